// The account's notice settings: which kinds of in-app notice it wants. Each kind is on until
// turned off; a PATCH names the kinds it changes.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { requireAccount, requireScope } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { accountById, setAccountLanguage } from "../accounts/service.ts";
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

const Language = Type.Union([Type.Literal("en"), Type.Literal("de")]);

const Settings = Type.Object(
	{
		inApp: Type.Object(kinds(false), {
			additionalProperties: false,
			description: "Which notices the account gets in-app, per kind (all on by default).",
		}),
		mail: Type.Object(kinds(false), {
			additionalProperties: false,
			description:
				"Which notices are also sent to the account's address by e-mail, per kind (all off by default; only while the server has mail on).",
		}),
		mailOn: Type.Boolean({ description: "Whether this server sends mail at all (`SMTP_URL` set)." }),
		language: Type.Union([Language, Type.Null()], {
			description: "The language of mails to this account; null until chosen (then the sender's).",
		}),
	},
	{ description: "Which notices the account gets, in-app and by e-mail, and in which language." },
);

const SettingsChange = Type.Object(
	{
		inApp: Type.Optional(Type.Object(kinds(true), { additionalProperties: false })),
		mail: Type.Optional(Type.Object(kinds(true), { additionalProperties: false })),
		language: Type.Optional(Language),
	},
	{ additionalProperties: false, minProperties: 1 },
);

export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const mailOn = app.config.smtpUrl !== "";
	const mailState = async (db: typeof app.store.db, accountId: string) => {
		const language = (await accountById(db, accountId))?.language;
		const lang: "en" | "de" | null = language === "en" || language === "de" ? language : null;
		return { mailOn, language: lang };
	};
	app.get(
		"/api/notifications/settings",
		{
			schema: {
				tags,
				summary: "Which kinds of notice the account gets",
				description:
					"Every kind is on in-app and off by mail until the account changes it. Needs `notification:read`.",
				security: [{ Session: [] }, { ApiKey: [] }],
				response: { 200: Settings, ...errors(401, 403) },
			},
			preHandler: requireAccount,
		},
		async (request) => {
			const caller = request.caller;
			requireScope(caller, "notification:read");
			const db = app.store.db;
			return { ...(await noticeSettings(db, caller.accountId)), ...(await mailState(db, caller.accountId)) };
		},
	);

	app.patch(
		"/api/notifications/settings",
		{
			schema: {
				tags,
				summary: "Turn kinds of notice on or off for the account",
				description:
					"Names only the kinds (and channels) it changes; the others stay. An unknown kind or a value other than a boolean is 400 `validation_failed` and changes nothing; turning a mail switch on while the server has mail off is 403 `mail_disabled`. `language` sets the language of mails to the account. Needs `notification:write`. Answers every kind's setting.",
				security: [{ Session: [] }, { ApiKey: [] }],
				body: SettingsChange,
				response: { 200: Settings, ...errors(400, 401, 403) },
			},
			preHandler: requireAccount,
		},
		async (request) => {
			const caller = request.caller;
			requireScope(caller, "notification:write");
			const { inApp, mail, language } = request.body;
			// Turning mail on where the server sends none would promise what cannot happen.
			if (!mailOn && Object.values(mail ?? {}).some((v) => v === true)) {
				throw new AppError("mail_disabled", "This server does not send mail (SMTP_URL is not set)");
			}
			const db = app.store.db;
			const now = app.clock.now();
			if (language) await setAccountLanguage(db, caller.accountId, language, now);
			const settings = await changeNoticeSettings(db, caller.accountId, { inApp, mail }, now);
			return { ...settings, ...(await mailState(db, caller.accountId)) };
		},
	);
};
