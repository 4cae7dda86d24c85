// HTTP for requests: the public probe by slug, and the `request` challenge scope. Answering and
// `GET /api/requests/{id}/links` build on this feature.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors } from "../../http/schemas.ts";
import { ServerClaim, Sharer, serverClaim } from "../server/service.ts";
import { TemplateItem } from "../vault/templates/service.ts";
import { probeRequest } from "./service.ts";
import * as store from "./store.ts";

const Probe = Type.Object({
	label: Type.String(),
	status: Type.String({ description: "`open`, `closed` or `expired`." }),
	requiresPassword: Type.Boolean(),
	requiresIdentifier: Type.Boolean({ description: "The responder must enter an identifier." }),
	requireHandshake: Type.Boolean({ description: "The responder must prove an identity (signed challenge)." }),
	allowExtraFields: Type.Boolean({ description: "Fields beyond the template are accepted." }),
	identityScope: Type.Union([Type.Literal("any"), Type.Literal("from_root")], {
		description: "`any` or `from_root` (identities this server certified).",
	}),
	answerSignup: Type.Boolean({
		description:
			"A responder without an account may sign up here to answer (answer-only): the request allows it, it is open, it has sign-ups left (`answerSignupLimit`), and the operator has not forbidden it.",
	}),
	answerSignupsUsedUp: Type.Boolean({
		description:
			"The request allows answer-only sign-ups, but its answer link has created as many accounts as its requester allowed (`answerSignupLimit`): a sign-up is refused with 403 `answer_signup_limit_reached`.",
	}),
	template: Type.Array(TemplateItem, { description: "What the request asks for." }),
	requester: Sharer,
	server: ServerClaim,
});

export const requestRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const { config, rootKey, clock } = app;
	const db = app.store.db;
	const server = serverClaim(config, rootKey.fingerprint);

	// A nonce for any request that exists; whether it still takes answers is the answer's check.
	app.challengeScopes.register("request", (_db, slug) => store.slugExists(db, slug));

	app.get(
		"/api/public/requests/:slug",
		{
			schema: {
				summary: "Probe a request: its gates, what it asks for, who asks and which server speaks",
				description:
					"No credential: the slug is the capability. A closed or expired request still answers, with its `status`; an unknown slug is 404.",
				tags: ["requests"],
				params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 128 }) }),
				response: { 200: Probe, ...errors(400, 404, 429) },
			},
			config: { rateLimit: app.limits.probe },
		},
		async (request, reply) => {
			const probe = await probeRequest(
				db,
				request.params.slug,
				server,
				clock.now(),
				config.allowAnswerSignups,
			);
			reply.header("cache-control", "no-store");
			return probe;
		},
	);
};
