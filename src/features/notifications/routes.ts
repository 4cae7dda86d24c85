// The account's notice settings: which kinds of in-app notice it wants. Each kind is on until
// turned off; a PATCH names the kinds it changes.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { requireAccount, requireScope } from "../../http/auth.ts";
import { errors } from "../../http/schemas.ts";
import { changeNoticeSettings, NOTICE_KINDS, noticeSettings } from "./service.ts";

const tags = ["notifications"];

const KIND_TEXT: Record<(typeof NOTICE_KINDS)[number], string> = {
	request_answered: "a request of yours was answered, or an answer updated",
	answer_revoked: "an answer to a request of yours was revoked",
	callback_failed: "a callback delivery failed",
	link_expired: "a share ran out of views or reached its expiry",
	link_revoked: "a share was revoked",
	member_joined: "someone joined a workspace through an invitation",
	identity_revoked: "an identity of the workspace was revoked",
	credential_revoked: "a credential was revoked (one the workspace issued, or one you hold)",
};

const kinds = (optional: boolean) =>
	Object.fromEntries(
		NOTICE_KINDS.map((k) => {
			const flag = Type.Boolean({ description: `true: notify when ${KIND_TEXT[k]}.` });
			return [k, optional ? Type.Optional(flag) : flag];
		}),
	);

const Settings = Type.Object(
	{ inApp: Type.Object(kinds(false), { additionalProperties: false }) },
	{ description: "Which notices the account gets in-app, per kind (all on by default)." },
);

const SettingsChange = Type.Object(
	{ inApp: Type.Object(kinds(true), { additionalProperties: false }) },
	{ additionalProperties: false },
);

export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
	app.get(
		"/api/notifications/settings",
		{
			schema: {
				tags,
				summary: "Which kinds of notice the account gets",
				description: "Every kind is on until the account turns it off. Needs `notification:read`.",
				security: [{ Session: [] }, { ApiKey: [] }],
				response: { 200: Settings, ...errors(401, 403) },
			},
			preHandler: requireAccount,
		},
		async (request) => {
			const caller = request.caller;
			requireScope(caller, "notification:read");
			return { inApp: await noticeSettings(app.store.db, caller.accountId) };
		},
	);

	app.patch(
		"/api/notifications/settings",
		{
			schema: {
				tags,
				summary: "Turn kinds of notice on or off for the account",
				description:
					"Names only the kinds it changes; the others stay. An unknown kind or a value other than a boolean is 400 `validation_failed` and changes nothing. Needs `notification:write`. Answers every kind's setting.",
				security: [{ Session: [] }, { ApiKey: [] }],
				body: SettingsChange,
				response: { 200: Settings, ...errors(400, 401, 403) },
			},
			preHandler: requireAccount,
		},
		async (request) => {
			const caller = request.caller;
			requireScope(caller, "notification:write");
			const inApp = await changeNoticeSettings(
				app.store.db,
				caller.accountId,
				request.body.inApp,
				app.clock.now(),
			);
			return { inApp };
		},
	);
};
