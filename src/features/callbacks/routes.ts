// `POST /api/requests/callback-test`: one sample payload through the client real deliveries use
// (built with the app's background work, src/background.ts).
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyRequest } from "fastify";
import fp from "fastify-plugin";
import { Type } from "typebox";
import { requireScope, resolveCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import type { OutboundClient } from "../../lib/outbound.ts";
import { testDelivery } from "./attempt.ts";
import { CALLBACK_URL_MAX } from "./policy.ts";

export interface CallbackOptions {
	/** The client real deliveries go through (src/background.ts), closed with the app. */
	client: OutboundClient;
}

const TestBody = Type.Object(
	{
		url: Type.String({ minLength: 1, maxLength: CALLBACK_URL_MAX, description: "The URL to try." }),
		requestId: Type.Optional(
			Type.String({
				minLength: 1,
				maxLength: 64,
				description:
					"A request of the active workspace: its real id and slug, and `X-Svc-Request`, are sent.",
			}),
		),
	},
	{ additionalProperties: false },
);

const TestResponse = Type.Object({
	ok: Type.Boolean({ description: "True when the target answered below 400." }),
	status: Type.Integer({ description: "The status answered; 0 when nothing was reached." }),
	code: Type.Union(
		[Type.Literal("ok"), Type.Literal("blocked"), Type.Literal("unreachable"), Type.Literal("status")],
		{
			description:
				"`ok`; `blocked` (the URL policy refused it); `unreachable` (no connection, DNS failure or no complete answer within 10 s); `status` (answered 400 or above).",
		},
	),
	detail: Type.String({ description: "One line saying what happened." }),
});

/** Session only: a key is refused as the collections refuse keys on account-level acts. */
async function sessionWithRequestWrite(this: FastifyInstance, request: FastifyRequest): Promise<void> {
	const caller = await resolveCaller(this, request);
	if (caller.kind === "guest") throw new AppError("not_authenticated");
	if (caller.kind === "apiKey") {
		throw new AppError("api_key_scope_missing", "API keys never run callback tests (sessions only)", {
			extra: { scope: "request:write" },
		});
	}
	requireScope(caller, "request:write");
	request.caller = caller;
}

const plugin: FastifyPluginAsyncTypebox<CallbackOptions> = async (app, opts) => {
	const { client } = opts;
	app.post(
		"/api/requests/callback-test",
		{
			schema: {
				summary: "Send one sample payload (`test: true`) to a URL through the callback client",
				description:
					"Sent at once, not queued, under the same policy, 10 s bound and no-redirect rule as real deliveries. A refused, unreachable or erroring target still answers 200, with `ok: false`.",
				tags: ["requests"],
				security: [{ Session: [] }],
				body: TestBody,
				response: { 200: TestResponse, ...errors(400, 401, 403, 404, 429) },
			},
			onRequest: sessionWithRequestWrite,
			config: { rateLimit: app.limits.callbackTest },
		},
		async (request) => {
			const caller = request.caller as { workspaceId: string };
			const log = (detail: string) => request.log.warn({ detail }, "callback test: receiver unreachable");
			return testDelivery({ db: app.store.db, client, log }, caller.workspaceId, request.body);
		},
	);
};

export const callbackRoutes = fp(plugin, { name: "callbacks" });
