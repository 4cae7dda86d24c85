// GET /api/challenges/{scope}/{slug}: a single-use nonce to sign with an identity key.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { CHALLENGE_SCOPES, ChallengeScopes, issueChallenge } from "./service.ts";

declare module "fastify" {
	interface FastifyInstance {
		challengeScopes: ChallengeScopes;
	}
}

export function createChallengeScopes(): ChallengeScopes {
	return new ChallengeScopes();
}

const ChallengeResponse = Type.Object({
	nonce: Type.String({ description: "base64url, 256 bits; sign its UTF-8 bytes" }),
	scope: Type.Union(CHALLENGE_SCOPES.map((s) => Type.Literal(s))),
	slug: Type.String(),
	identityId: Type.Optional(Type.String()),
	expiresAt: Type.String({ format: "date-time" }),
});

export const challengeRoutes: FastifyPluginAsyncTypebox = async (app) => {
	app.get(
		"/api/challenges/:scope/:slug",
		{
			schema: {
				summary: "A single-use nonce, bound to the scope and slug, to sign with an identity key",
				description:
					"Good five minutes and spent on first presentation. For scope `attestation` the path segment is the offer token and `identityId` names the identity that will claim it.",
				tags: ["identity"],
				params: Type.Object({
					scope: Type.Union(CHALLENGE_SCOPES.map((s) => Type.Literal(s))),
					slug: Type.String({ minLength: 1, maxLength: 512 }),
				}),
				querystring: Type.Object({
					identityId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
				}),
				response: { 200: ChallengeResponse, ...errors(400, 404, 429) },
			},
			config: { rateLimit: app.limits.challenge },
		},
		async (request, reply) => {
			const { scope, slug } = request.params;
			const { identityId } = request.query;
			if (!(await app.challengeScopes.exists(app.store.db, scope, slug))) throw new AppError("not_found");
			const issued = await issueChallenge(app.store.db, { scope, slug, identityId }, app.clock.now());
			reply.header("cache-control", "no-store");
			return {
				nonce: issued.nonce,
				scope,
				slug,
				...(scope === "attestation" ? { identityId } : {}),
				expiresAt: new Date(issued.expires).toISOString(),
			};
		},
	);
};
