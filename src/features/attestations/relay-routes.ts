// The console's part of held credentials (docs/api.md "Held credentials"): its page may call its
// own server only (CSP connect-src 'self'), so that server asks the offer's server for the offer
// view and the challenge the identity key in the browser signs, and posts the presentation the page
// built (key binding signed in the browser) to the service that asked with `svc://present`.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { type Static, Type } from "typebox";
import { Compile } from "typebox/compile";
import type { AccountCaller } from "../../http/auth.ts";
import { requireSession } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { onOrigin, parseToolOrigin, STATE } from "../../lib/app-link-parts.ts";
import { createOutboundClient } from "../../lib/outbound.ts";
import type { PeerOptions } from "../../lib/peer.ts";
import { issueChallenge } from "../challenges/service.ts";
import { offerServer, relayFromOfferServer } from "./held.ts";
import { attestationByToken } from "./service.ts";
import * as store from "./store.ts";

/** `GET /api/attestations/offers/{token}`: the offer as its subject sees it. */
export const OfferView = Type.Object({
	type: Type.String(),
	label: Type.String(),
	status: Type.Union([Type.Literal("offered"), Type.Literal("active")]),
	claims: Type.Optional(
		Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
	),
	expiresAt: Type.Union([Type.String(), Type.Null()]),
	offerExpiresAt: Type.String(),
	subjectFingerprint: Type.Union([Type.String(), Type.Null()]),
	server: Type.Object({ domain: Type.String(), fingerprint: Type.String(), origin: Type.String() }),
	workspace: Type.Object({ id: Type.String(), name: Type.String() }),
});
export type OfferViewT = Static<typeof OfferView>;

const offerViewCheck = Compile(OfferView);
const isOfferView = (value: unknown): value is OfferViewT => offerViewCheck.Check(value);

type App = Parameters<FastifyPluginAsyncTypebox>[0];

export function relayRoutes(
	app: App,
	{ offerView, peer }: { offerView: (token: string) => Promise<OfferViewT>; peer: () => PeerOptions },
): void {
	const { config } = app;
	const db = app.store.db;
	// The console's page cannot call another server, so its server asks the offer's server for it:
	// the offer view to show, and the challenge the identity key on the device signs for the claim.
	const OfferQuery = Type.Object({
		origin: Type.Optional(Type.String({ maxLength: 300 })),
		token: Type.String({ minLength: 1, maxLength: 128 }),
	});
	const offerFrom = (origin: string | undefined) =>
		offerServer(origin, config.domain, peer(), "querystring.origin");
	app.get(
		"/api/credentials/offer",
		{
			onRequest: requireSession,
			schema: {
				tags: ["attestations"],
				summary: "An offer of this server or another, as its server shows it (for the console)",
				description:
					"Session only. Asks the offer's server (`origin` as in `POST /api/credentials/claim`; left out: this server) for `GET /api/attestations/offers/{token}` and answers its view; its refusals are passed on with their codes (404, 410 `attestation_offer_expired`, `attestation_offer_revoked`), 502 `remote_unreachable` when it cannot be asked or answers something else.",
				security: [{ Session: [] }],
				querystring: OfferQuery,
				response: { 200: OfferView, ...errors(401, 403, 404, 410, 502) },
			},
			config: { rateLimit: app.limits.probe },
		},
		async (request, reply) => {
			const { origin, token } = request.query;
			const remote = offerFrom(origin);
			reply.header("cache-control", "no-store");
			if (!remote) return offerView(token);
			const body = await relayFromOfferServer(
				remote.base,
				`/api/attestations/offers/${encodeURIComponent(token)}`,
				peer(),
			);
			if (!isOfferView(body))
				throw new AppError("remote_unreachable", "the offer's server answered no offer");
			return body;
		},
	);

	app.get(
		"/api/credentials/offer/challenge",
		{
			onRequest: requireSession,
			schema: {
				tags: ["attestations"],
				summary:
					"The offer server's challenge for claiming an offer with one of your identities (for the console)",
				description:
					"Session only. Asks the offer's server for `GET /api/challenges/attestation/{token}?identityId=…` and answers `{nonce}`: the identity key on the device signs it for `POST /api/credentials/claim`. Refusals as for `GET /api/credentials/offer`.",
				security: [{ Session: [] }],
				querystring: Type.Object({
					...OfferQuery.properties,
					identityId: Type.String({ minLength: 1, maxLength: 64 }),
				}),
				response: { 200: Type.Object({ nonce: Type.String() }), ...errors(401, 403, 404, 410, 502) },
			},
			config: { rateLimit: app.limits.challenge },
		},
		async (request, reply) => {
			const { origin, token, identityId } = request.query;
			const remote = offerFrom(origin);
			reply.header("cache-control", "no-store");
			if (!remote) {
				if (!(await attestationByToken(db, token))) throw new AppError("not_found");
				const issued = await issueChallenge(
					db,
					{ scope: "attestation", slug: token, identityId },
					app.clock.now(),
				);
				return { nonce: issued.nonce };
			}
			const path = `/api/challenges/attestation/${encodeURIComponent(token)}?identityId=${encodeURIComponent(identityId)}`;
			const body = await relayFromOfferServer(remote.base, path, peer());
			if (typeof body.nonce !== "string" || body.nonce.length > 200)
				throw new AppError("remote_unreachable", "the offer's server answered no challenge");
			return { nonce: body.nonce };
		},
	);

	// The console's page may call its own server only (CSP connect-src 'self'), so its server posts
	// the presentation the page built (key binding signed in the browser) to the service.
	const allowPrivateService = config.allowPrivateCallbacks || config.domain === "localhost";
	app.post(
		"/api/credentials/:id/present",
		{
			onRequest: requireSession,
			schema: {
				tags: ["attestations"],
				summary:
					"Posts a presentation of your credential to the service that asked (svc://present, for the console)",
				description:
					"Session only. `presentation` must present this credential (its issuer JWT first); `responseUri` must be on `clientId`'s origin (an origin as `svc://present` takes it). Posts `{presentation, state}` as JSON to `responseUri` (no redirects followed, 10 seconds, the callback address policy: public addresses only unless ALLOW_PRIVATE_CALLBACKS or DOMAIN=localhost) and answers the service's status with its `redirect_uri` when that is on `clientId`'s origin, else null. 502 `remote_unreachable` when the service cannot be reached.",
				security: [{ Session: [] }],
				params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
				body: Type.Object(
					{
						clientId: Type.String({ minLength: 1, maxLength: 300 }),
						responseUri: Type.String({ minLength: 1, maxLength: 2000 }),
						presentation: Type.String({ minLength: 1, maxLength: 262_144 }),
						state: Type.String({ maxLength: 128 }),
					},
					{ additionalProperties: false },
				),
				response: {
					200: Type.Object({
						status: Type.Integer({ description: "The service's HTTP status" }),
						redirectUri: Type.Union([Type.String(), Type.Null()], {
							description: "The service's `redirect_uri`, when it named one on its own origin",
						}),
					}),
					...errors(401, 404, 502),
				},
			},
			config: { rateLimit: app.limits.gate },
		},
		async (request, reply) => {
			const caller = request.caller as AccountCaller;
			const row = await store.accountCredential(db, caller.accountId, request.params.id);
			if (!row) throw new AppError("not_found", "No such credential");
			const { clientId, responseUri, presentation, state } = request.body;
			const field = (name: string, err: unknown): never => {
				throw new AppError("validation_failed", `${name}: ${(err as Error).message}`, {
					extra: { field: `body.${name}` },
				});
			};
			let origin = "";
			try {
				origin = parseToolOrigin(clientId, { allowLoopback: allowPrivateService }, "clientId");
			} catch (err) {
				field("clientId", err);
			}
			try {
				onOrigin("responseUri", responseUri, origin);
			} catch (err) {
				field("responseUri", err);
			}
			if (state !== "" && !STATE.test(state))
				field("state", new Error("must be 1 to 128 of [A-Za-z0-9._~-]"));
			if (!presentation.startsWith(`${row.credential.split("~")[0]}~`))
				field("presentation", new Error("does not present this credential"));
			const client = createOutboundClient({
				allowPrivate: allowPrivateService,
				dnsServers: config.dnsServers,
				timeoutMs: 10_000,
				maxBodyBytes: 64 * 1024,
			});
			let res: Awaited<ReturnType<typeof client.send>>;
			try {
				res = await client.send({
					method: "POST",
					url: responseUri,
					headers: { "content-type": "application/json", accept: "application/json" },
					body: JSON.stringify({ presentation, state }),
				});
			} finally {
				await client.close();
			}
			if (res.kind !== "response") throw new AppError("remote_unreachable", `the service: ${res.reason}`);
			reply.header("cache-control", "no-store");
			return {
				status: res.status,
				redirectUri: res.status < 400 ? sameOriginRedirect(res.body, origin) : null,
			};
		},
	);
}

/** The service's `redirect_uri`, only when it is on the service's own origin (spec `svc://present`). */
function sameOriginRedirect(body: Buffer, origin: string): string | null {
	let redirect: unknown;
	try {
		redirect = (JSON.parse(body.toString("utf8")) as { redirect_uri?: unknown })?.redirect_uri;
	} catch {
		return null;
	}
	if (typeof redirect !== "string" || redirect.length > 2000) return null;
	try {
		const url = new URL(redirect);
		return url.origin === origin && (url.protocol === "https:" || url.protocol === "http:")
			? url.toString()
			: null;
	} catch {
		return null;
	}
}
