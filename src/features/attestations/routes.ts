// The attestations' public routes (spec "Attestations"): the issuer metadata with the certified
// credential key, the status list, the offer view and the claim. The `attestations` collection is
// in collection.ts.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { publicOrigin } from "../../config.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { requireSession } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors, media } from "../../http/schemas.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import type { PeerOptions } from "../../lib/peer.ts";
import { standingOf } from "../identity/service.ts";
import { CREDENTIAL_KEYS, keyRing } from "../server/service.ts";
import { statusListUri } from "./credential.ts";
import { claimHeld, credentialRecord, type HeldClaimInput, heldStatus } from "./held.ts";
import { Credential } from "./held-collection.ts";
import { OfferView, type OfferViewT, relayRoutes } from "./relay-routes.ts";
import {
	attestationByToken,
	type ClaimOfferDeps,
	claimOffer,
	onAccountDeleted,
	onWorkspaceDeleted,
	openOffer,
} from "./service.ts";
import { positionStatus, statusListSigner, TTL_S } from "./status-list.ts";
import { StatusListCache } from "./status-list-reader.ts";
import * as store from "./store.ts";
import { type AttesterSource, verifyPresentation } from "./verify.ts";

const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 128 }) });

const IdentityHalf = Type.Object(
	{
		id: Type.Optional(Type.String({ maxLength: 64 })),
		name: Type.Optional(Type.String({ maxLength: 200 })),
		fingerprint: Type.String({ pattern: "^[0-9a-f]{64}$" }),
		certificate: Type.String({ minLength: 1, maxLength: 16_384 }),
		parentSignature: Type.String({ minLength: 1, maxLength: 2048 }),
		domainAtIssue: Type.Optional(Type.String({ maxLength: 253 })),
	},
	{
		description:
			"The public half of the identity as `GET /api/certificate/{id}` gives it; `domainAtIssue` names the server that issued it (this server when left out).",
	},
);

const ClaimBody = Type.Object(
	{
		identity: IdentityHalf,
		challengeNonce: Type.Optional(Type.String({ maxLength: 200 })),
		challengeSignature: Type.Optional(Type.String({ maxLength: 400 })),
	},
	{ additionalProperties: false },
);

export const attestationRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { config } = app;
	const db = app.store.db;
	const issuer = publicOrigin(config);
	const keys = keyRing(db, CREDENTIAL_KEYS, app.rootKey, config.domain, () => app.clock.now());
	const statusList = statusListSigner(db, keys, statusListUri(issuer), issuer);
	const peer = (): PeerOptions => ({
		dnsServers: config.dnsServers,
		peerOverrides: config.peerOverrides,
		now: app.clock.now(),
	});
	const claimDeps = (): ClaimOfferDeps => ({
		db,
		domain: config.domain,
		issuer,
		peer: peer(),
		now: app.clock.now(),
		clock: () => app.clock.now(),
		keys: () => keys.get(),
	});
	// The challenge an offer's claim is signed over names the offer's token.
	app.challengeScopes.register("attestation", async (_db, token) =>
		Boolean(await attestationByToken(db, token)),
	);
	app.workspaceHooks.onWorkspaceDeleted.push(onWorkspaceDeleted);
	app.workspaceHooks.onAccountDeleted.push(onAccountDeleted);

	app.get(
		"/.well-known/jwt-vc-issuer",
		{
			schema: {
				tags: ["attestations"],
				summary: "The issuer metadata: the ES256 credential keys, each certified by the root key",
				response: {
					200: Type.Object({
						issuer: Type.String(),
						jwks: Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) }),
					}),
				},
			},
			config: { rateLimit: app.limits.discovery },
		},
		async (_request, reply) => {
			const ring = await keys.get();
			reply.header("cache-control", "public, max-age=300").header("access-control-allow-origin", "*");
			return { issuer, jwks: { keys: ring.all.map((k) => k.jwk) } };
		},
	);

	app.get(
		"/api/attestations/status",
		{
			schema: {
				tags: ["attestations"],
				summary: "The status list (`application/statuslist+jwt`): set bit = revoked; keep it `ttl` seconds",
				response: { 200: media("application/statuslist+jwt", "The signed status list") },
			},
			config: { rateLimit: app.limits.discovery },
		},
		async (_request, reply) => {
			const jwt = await statusList(app.clock.now());
			return reply
				.type("application/statuslist+jwt")
				.header("cache-control", `public, max-age=${TTL_S}`)
				.header("access-control-allow-origin", "*")
				.send(jwt);
		},
	);

	const Verdict = Type.Object(
		{
			state: Type.Union([
				Type.Literal("verified"),
				Type.Literal("unverified"),
				Type.Literal("dnsMissing"),
				Type.Literal("spoofed"),
				Type.Literal("revoked"),
				Type.Literal("expired"),
				Type.Literal("invalid"),
			]),
			reason: Type.String({
				description: "The first reason the credential was held back; empty when verified.",
			}),
			issuer: Type.String({ description: "The attesting domain (from `iss`)." }),
			issuerState: Type.String({
				description:
					"How the attester's key was tied to its domain: `verified`, `dnsMissing`, `spoofed`, `unreachable`.",
			}),
			type: Type.String({ description: "The credential's `vct`." }),
			claims: Type.Optional(
				Type.Record(Type.String(), Type.Unknown(), {
					description: "Disclosed claims; only when the issuer's signature verified.",
				}),
			),
			withheld: Type.Integer({ description: "Claims present only as digests." }),
			status: Type.Union([Type.Literal("valid"), Type.Literal("revoked"), Type.Literal("unknown")]),
			issuedAt: Type.Optional(Type.Integer()),
			expiresAt: Type.Optional(Type.Integer()),
			holder: Type.Object({
				fingerprint: Type.String(),
				domain: Type.String(),
				state: Type.String(),
				status: Type.String(),
			}),
			keyBound: Type.Boolean(),
		},
		{ $id: "Verdict" },
	);

	const statusLists = new StatusListCache();
	const source = (now: number): AttesterSource => ({
		self: {
			domain: config.domain,
			issuer,
			keys: () => keys.get(),
			statusBit: (position) => positionStatus(db, position),
		},
		peer: peer(),
		statusLists,
		now,
		localStanding: (fingerprint) => standingOf(db, fingerprint),
		spendNonce: (audience, nonce) =>
			store.spendVerifyNonce(db, sha256Hex(`${audience}\n${nonce}`), now, now + 10 * 60_000),
	});

	app.post(
		"/api/attestations/verify",
		{
			schema: {
				tags: ["attestations"],
				summary: "Checks a presentation along the attester's and the holder's chains; always a verdict",
				body: Type.Object(
					{
						presentation: Type.String({ minLength: 1, maxLength: 65_536 }),
						audience: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
						nonce: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9._~-]{8,256}$" })),
					},
					{ additionalProperties: false },
				),
				response: { 200: Verdict },
			},
			config: { rateLimit: app.limits.verify },
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			return verifyPresentation(source(app.clock.now()), request.body);
		},
	);

	app.get(
		"/api/attestations/offers/:token",
		{
			schema: {
				tags: ["attestations"],
				summary: "The offer as its subject sees it",
				params: TokenParams,
				response: { 200: OfferView, ...errors(404, 410) },
			},
			config: { rateLimit: app.limits.probe },
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			return offerView(request.params.token);
		},
	);

	/** The offer as its subject sees it (`GET /api/attestations/offers/{token}`). */
	const offerView = async (token: string): Promise<OfferViewT> => {
		const now = app.clock.now();
		const row = openOffer(await attestationByToken(db, token), now);
		const workspace = await store.offerWorkspace(db, row.workspace);
		return {
			type: row.type,
			label: row.label,
			status: row.status as "offered" | "active",
			// The claims are shown while the offer is open to be accepted.
			...(row.status === "offered" ? { claims: JSON.parse(row.claims) } : {}),
			expiresAt: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
			offerExpiresAt: new Date(row.offer_expires_at).toISOString(),
			subjectFingerprint: row.subject_fingerprint,
			server: { domain: config.domain, fingerprint: app.rootKey.fingerprint, origin: issuer },
			workspace,
		};
	};

	app.post(
		"/api/attestations/offers/:token/claim",
		{
			schema: {
				tags: ["attestations"],
				summary: "Accepts the offer with a proven identity; answers the SD-JWT VC bound to its key",
				params: TokenParams,
				body: ClaimBody,
				response: {
					200: Type.Object({ credential: Type.String(), issuer: Type.String() }),
					...errors(401, 403, 404, 410, 502),
				},
			},
			config: { rateLimit: app.limits.gate },
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			return claimOffer(claimDeps(), request.params.token, request.body);
		},
	);

	const claimCredential = (caller: AccountCaller, input: HeldClaimInput) => {
		const now = app.clock.now();
		return claimHeld({ db, local: claimDeps(), source: source(now), peer: peer(), now }, caller, input);
	};
	app.credentialClaim.claim = claimCredential;

	app.post(
		"/api/credentials/claim",
		{
			onRequest: requireSession,
			schema: {
				tags: ["attestations"],
				summary:
					"Accepts an offer (of this server or another) with one of your identities and keeps the credential",
				description:
					"Session only. Get the nonce from the offer server's `GET /api/challenges/attestation/{token}?identityId=…` and sign it with the identity's key. `origin` is the offer server's address (left out: this server; plain http only for a PEER_OVERRIDES domain). The offer server's refusals are passed on with their codes; when it cannot be asked, 502 `remote_unreachable`; a credential not signed by a key tied to its domain, or not bound to this identity and its key, is 502 `credential_invalid` and is not kept.",
				security: [{ Session: [] }],
				body: Type.Object(
					{
						origin: Type.Optional(Type.String({ maxLength: 300 })),
						token: Type.String({ minLength: 1, maxLength: 128 }),
						identityId: Type.String({ minLength: 1, maxLength: 64 }),
						challengeNonce: Type.String({ minLength: 1, maxLength: 200 }),
						challengeSignature: Type.String({ minLength: 1, maxLength: 400 }),
					},
					{ additionalProperties: false },
				),
				response: { 200: Credential, ...errors(401, 403, 404, 410, 502) },
			},
			config: { rateLimit: app.limits.gate },
		},
		async (request, reply) => {
			const row = await claimCredential(request.caller as AccountCaller, request.body);
			reply.header("cache-control", "no-store");
			return credentialRecord(row);
		},
	);

	relayRoutes(app, { offerView, peer });

	app.get(
		"/api/credentials/:id/status",
		{
			onRequest: requireSession,
			schema: {
				tags: ["attestations"],
				summary:
					"The verdict on a kept credential now (as verify answers it; keyBound always false, so never `verified`)",
				security: [{ Session: [] }],
				params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
				response: { 200: Verdict, ...errors(401, 404) },
			},
			config: { rateLimit: app.limits.verify },
		},
		async (request, reply) => {
			const caller = request.caller as AccountCaller;
			const row = await store.accountCredential(db, caller.accountId, request.params.id);
			if (!row) throw new AppError("not_found", "No such credential");
			reply.header("cache-control", "no-store");
			return heldStatus(source(app.clock.now()), row);
		},
	);
};
