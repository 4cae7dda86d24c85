// Public identity material: certificates, the signed standing, and checking another server.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { requireAccount } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { isDomainName } from "../../lib/peer.ts";
import { certificateView, FINGERPRINT, statusAssertion, tombstoneWorkspaceIdentities } from "./service.ts";
import * as store from "./store.ts";
import { verifyPeer } from "./trust.ts";

const CertificateResponse = Type.Object({
	id: Type.String(),
	name: Type.String(),
	certificate: Type.String({ description: "X.509 certificate, PEM, issued by the server's CA" }),
	fingerprint: Type.String({ description: "lowercase hex SHA-256 of the identity key's SPKI DER" }),
	parentSignature: Type.String({
		description: "hex RSASSA-PKCS1-v1_5 SHA-256 by the root key over the fingerprint",
	}),
	domainAtIssue: Type.String(),
});

const StatusResponse = Type.Object({
	payload: Type.String({
		description:
			'base64url of {"type":"identity-status-v1","fingerprint","status","domain","iat","exp"}; status is active, revoked or unknown',
	}),
	signature: Type.String({
		description: "hex RSASSA-PKCS1-v1_5 SHA-256 by the root key over the payload string",
	}),
});

const Standing = Type.Union([Type.Literal("active"), Type.Literal("revoked"), Type.Literal("unknown")]);

const VerdictResponse = Type.Object({
	domain: Type.String(),
	state: Type.Union([
		Type.Literal("verified"),
		Type.Literal("unverified"),
		Type.Literal("dnsMissing"),
		Type.Literal("spoofed"),
		Type.Literal("revoked"),
		Type.Literal("invalid"),
	]),
	reason: Type.Optional(Type.String()),
	fingerprint: Type.Optional(Type.String({ description: "the peer's served root key fingerprint" })),
	identity: Type.Optional(Type.Object({ fingerprint: Type.String(), status: Standing })),
	checkedAt: Type.String({ format: "date-time" }),
});

export const identityRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { config, rootKey, clock } = app;
	// A deleted workspace's identities stay `revoked` at the status endpoint (spec standing table).
	app.workspaceHooks.onWorkspaceDeleted.push(tombstoneWorkspaceIdentities);

	app.get(
		"/api/certificate/:id",
		{
			schema: {
				summary: "An identity's certificate, fingerprint and the root key's signature over it",
				tags: ["identity"],
				params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
				response: { 200: CertificateResponse, ...errors(404) },
			},
		},
		async (request) => {
			const row = await store.findIdentity(app.store.db, request.params.id);
			if (!row) throw new AppError("not_found", "No identity with this id");
			return certificateView(row);
		},
	);

	app.get(
		"/api/identities/:fingerprint/status",
		{
			schema: {
				summary: "The identity's standing, signed by the root key and cacheable until it expires",
				tags: ["identity"],
				params: Type.Object({ fingerprint: Type.String() }),
				response: { 200: StatusResponse, ...errors(400, 429) },
			},
			// A fingerprint that cannot be stored is no fingerprint: answered as any malformed one.
			config: { rateLimit: app.limits.discovery, notFound: "identity_fingerprint_invalid" },
		},
		async (request, reply) => {
			const { envelope, iat, exp } = await statusAssertion(
				app.store.db,
				rootKey,
				config.domain,
				request.params.fingerprint,
				clock.now(),
			);
			// Cacheable exactly as long as the signature claims validity (spec).
			reply.header("cache-control", `public, max-age=${exp - iat}`);
			reply.header("expires", new Date(exp * 1000).toUTCString());
			return envelope;
		},
	);

	app.post(
		"/api/verify-peer",
		{
			schema: {
				summary: "Check another server's DNS pin and, optionally, its word on one of its identities",
				tags: ["identity"],
				security: [{ ApiKey: [] }, { Session: [] }],
				body: Type.Object(
					{
						domain: Type.String({ minLength: 1, maxLength: 253 }),
						identity: Type.Optional(
							Type.String({ description: "fingerprint of an identity the peer issued, to ask its standing" }),
						),
					},
					{ additionalProperties: false },
				),
				response: { 200: VerdictResponse, ...errors(400, 401, 403, 429) },
			},
			preHandler: requireAccount,
			config: { rateLimit: app.limits.heavy },
		},
		async (request) => {
			const domain = request.body.domain.trim().toLowerCase();
			if (!isDomainName(domain)) {
				throw new AppError("validation_failed", "domain must be a DNS name such as example.org", {
					extra: { field: "body.domain" },
				});
			}
			const identity = request.body.identity;
			if (identity !== undefined && !FINGERPRINT.test(identity))
				throw new AppError("identity_fingerprint_invalid");
			const { internal, ...verdict } = await verifyPeer(domain, identity, {
				dnsServers: config.dnsServers,
				peerOverrides: config.peerOverrides,
				now: clock.now(),
			});
			if (internal !== undefined)
				request.log.warn({ domain, detail: internal }, "verify-peer: peer unreachable");
			return verdict;
		},
	);
};
