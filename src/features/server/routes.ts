// Discovery: health, the server claim, the CA's public material and the permission catalogue.
import type { FastifyPluginAsync } from "fastify";
import { type Static, Type } from "typebox";
import { publicOrigin } from "../../config.ts";
import { permissions } from "../../http/permissions.ts";
import { seconds } from "../../lib/clock.ts";
import { signEnvelope } from "../../lib/crypto.ts";

const ASSERTION_TTL = 24 * 60 * 60;

const Envelope = Type.Object({
	payload: Type.String({ description: "base64url JSON whose first member is `type`" }),
	signature: Type.String({
		description: "hex RSASSA-PKCS1-v1_5 SHA-256 by the root key over the payload string",
	}),
});

const ServerClaimResponse = Type.Object({
	domain: Type.String(),
	fingerprint: Type.String({ description: "lowercase hex SHA-256 of the root key's SPKI DER" }),
	publicKey: Type.String({ description: "root public key, PEM (SPKI)" }),
	assertion: Envelope,
	txt: Type.Object({ host: Type.String(), value: Type.String() }),
	limits: Type.Object({ maxFileSize: Type.Integer({ description: "bytes; -1 means no cap" }) }),
});

export const serverRoutes: FastifyPluginAsync = async (app) => {
	const { config, rootKey, clock } = app;
	const origin = publicOrigin(config);

	// PKCS#1 v1.5 signatures are deterministic and iat is in whole seconds, so reusing the
	// statement signed within the same second is byte-for-byte what signing afresh would give.
	// The whole answer is kept as its JSON text for that second: the hottest discovery call then
	// costs neither a signature nor a serialisation (the PEM's line breaks make the latter slow).
	let cached: { iat: number; json: string } | undefined;
	const claimJson = (): string => {
		const iat = seconds(clock.now());
		if (cached?.iat !== iat) {
			const body = {
				domain: config.domain,
				fingerprint: rootKey.fingerprint,
				origin,
				iat,
				exp: iat + ASSERTION_TTL,
			};
			const claim: Static<typeof ServerClaimResponse> = {
				domain: config.domain,
				fingerprint: rootKey.fingerprint,
				publicKey: rootKey.publicPem,
				assertion: signEnvelope(rootKey.privateKey, "server-claim-v1", body),
				txt: { host: `_svc.${config.domain}`, value: rootKey.fingerprint },
				limits: { maxFileSize: config.maxFileSize },
			};
			cached = { iat, json: JSON.stringify(claim) };
		}
		return cached.json;
	};

	app.get(
		"/healthz",
		{
			schema: {
				summary: "Liveness and database check",
				tags: ["discovery"],
				response: {
					200: { description: "`ok`", content: { "text/plain": { schema: Type.String() } } },
					503: {
						description: "`database unavailable`",
						content: { "text/plain": { schema: Type.String() } },
					},
				},
			},
		},
		async (_request, reply) => {
			const ok = await app.store.ping().catch(() => false);
			if (!ok) {
				return reply.code(503).type("text/plain; charset=utf-8").send("database unavailable");
			}
			return reply.type("text/plain; charset=utf-8").send("ok");
		},
	);

	app.get(
		"/api/server",
		{
			schema: {
				summary: "The server claim: domain, root key, signed assertion, DNS record, limits",
				tags: ["discovery"],
				response: { 200: ServerClaimResponse },
			},
			// Not rate-limited: the spec gives it no 429, and the signed assertion is reused within
			// its second, so a request costs no signature.
		},
		// Sent as the JSON text kept above (a string with a JSON type is not serialised again).
		(_request, reply) => {
			reply.type("application/json; charset=utf-8").send(claimJson());
		},
	);

	app.get(
		"/api/certificate",
		{
			schema: {
				summary: "Public material of the server's certificate authority",
				tags: ["discovery"],
				response: {
					200: Type.Object({
						domain: Type.String(),
						certificate: Type.String({ description: "self-signed CA certificate, PEM" }),
						publicKey: Type.String({ description: "CA public key, PEM (SPKI); the root key" }),
						fingerprint: Type.String(),
					}),
				},
			},
		},
		async () => ({
			domain: config.domain,
			certificate: rootKey.certificatePem,
			publicKey: rootKey.publicPem,
			fingerprint: rootKey.fingerprint,
		}),
	);

	app.get(
		"/api/permissions",
		{
			schema: {
				summary: "The permission catalogue and the scopes each permission expands to",
				tags: ["discovery"],
				response: {
					200: Type.Object({
						permissions: Type.Array(
							Type.Object({ name: Type.String(), label: Type.String(), scopes: Type.Array(Type.String()) }),
						),
					}),
				},
			},
		},
		async () => ({ permissions }),
	);
};
