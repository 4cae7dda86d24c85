// Discovery: health, the server claim, the CA's public material and the permission catalogue.
import type { FastifyPluginAsync } from "fastify";
import { Type } from "typebox";
import { publicOrigin } from "../../config.ts";
import { seconds } from "../../lib/clock.ts";
import { type SignedEnvelope, signEnvelope } from "../../lib/crypto.ts";
import { permissions } from "../accounts/permissions.ts";

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
	let cached: { iat: number; assertion: SignedEnvelope } | undefined;
	const assertion = (): SignedEnvelope => {
		const iat = seconds(clock.now());
		if (cached?.iat !== iat) {
			const body = {
				domain: config.domain,
				fingerprint: rootKey.fingerprint,
				origin,
				iat,
				exp: iat + ASSERTION_TTL,
			};
			cached = { iat, assertion: signEnvelope(rootKey.privateKey, "server-claim-v1", body) };
		}
		return cached.assertion;
	};

	app.get(
		"/healthz",
		{
			schema: {
				summary: "Liveness and database check",
				tags: ["discovery"],
				response: { 200: Type.String(), 503: Type.String() },
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
		async () => ({
			domain: config.domain,
			fingerprint: rootKey.fingerprint,
			publicKey: rootKey.publicPem,
			assertion: assertion(),
			txt: { host: `_svc.${config.domain}`, value: rootKey.fingerprint },
			limits: { maxFileSize: config.maxFileSize },
		}),
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
