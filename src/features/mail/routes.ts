// Mail's routes, registered only while SMTP_URL is set (src/app.ts): sending a request's link to a
// responder, and verifying the account's address. What is queued is sent by the mail pass of the
// outbox loop (worker.ts, run by src/background.ts).
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import fp from "fastify-plugin";
import { Type } from "typebox";
import { requireAccount, requireScope, requireSession } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { type Lang, pickLanguage } from "../../http/language.ts";
import { errors } from "../../http/schemas.ts";
import { accountById, confirmVerification } from "../accounts/service.ts";
import { findWorkspaceRequest } from "../requests/service.ts";
import { findWorkspace } from "../workspaces/service.ts";
import { checkDisplayName } from "./addresses.ts";
import { asLang, type Mailer } from "./service.ts";

export interface MailRouteOptions {
	mailer: Mailer;
}

const Language = Type.Union([Type.Literal("en"), Type.Literal("de")], {
	description: "The mail's language; else the recipient's when known, else the sender's.",
});

const SendLinkBody = Type.Object(
	{
		to: Type.String({ minLength: 1, maxLength: 320, description: "The responder's address." }),
		name: Type.Optional(
			Type.String({ maxLength: 200, description: "The responder's name, as the mail greets them (≤ 100)." }),
		),
		language: Type.Optional(Language),
	},
	{ additionalProperties: false },
);

const Queued = Type.Object({
	id: Type.String({ description: "The queued mail's id." }),
	to: Type.String({ description: "The address it goes to, normalised." }),
	language: Language,
});

const VerifyBody = Type.Object({ language: Type.Optional(Language) }, { additionalProperties: false });

const ConfirmBody = Type.Object(
	{ token: Type.String({ minLength: 1, maxLength: 128, description: "The token from the verify link." }) },
	{ additionalProperties: false },
);

const Confirmed = Type.Object({
	email: Type.String({ description: "The address now verified." }),
	verifiedAt: Type.String({ format: "date-time" }),
});

const plugin: FastifyPluginAsyncTypebox<MailRouteOptions> = async (app, opts) => {
	const { mailer } = opts;
	/** The sender's language: the body's, else the account's, else the browser's. */
	const senderLanguage = async (accountId: string, acceptLanguage: string | undefined): Promise<Lang> =>
		asLang((await accountById(app.store.db, accountId))?.language) ?? pickLanguage(acceptLanguage);

	app.post(
		"/api/requests/:id/send-link",
		{
			schema: {
				tags: ["requests"],
				summary: "Send the request's link to a responder by e-mail",
				description:
					"Queues one mail with the link to answer (`/app/answer/<slug>`), never the request's password. Only while the server has mail on (else the route does not exist). Needs `request:write`. The address is checked (400 `mail_address_invalid` naming `to` or `name`); at most MAIL_LIMIT_ACCOUNT mails per account and MAIL_LIMIT_RECIPIENT per address a day (429 `mail_rate_limited`, with `limit` naming which). Another workspace's request is 404. See docs/operations.md \"Outgoing e-mail\".",
				security: [{ Session: [] }, { ApiKey: [] }],
				params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
				body: SendLinkBody,
				response: { 202: Queued, ...errors(400, 401, 403, 404, 429) },
			},
			preHandler: requireAccount,
		},
		async (request, reply) => {
			const caller = request.caller;
			requireScope(caller, "request:write");
			const { to, name, language } = request.body;
			if (name !== undefined) checkDisplayName("name", name);
			const db = app.store.db;
			const now = app.clock.now();
			const req = await findWorkspaceRequest(db, caller.workspaceId, request.params.id);
			const sender = await accountById(db, caller.accountId);
			const workspace = (await findWorkspace(db, caller.workspaceId))?.name ?? "";
			const fallback = await senderLanguage(caller.accountId, request.headers["accept-language"]);
			const lang = language ?? (await mailer.languageFor(db, to, fallback));
			const id = await db.transaction().execute((trx) =>
				mailer.queue(
					trx,
					{
						kind: "request_link",
						account: caller.accountId,
						to,
						language: lang,
						template: "request_link",
						params: { label: req.label, sender: sender?.name ?? "", workspace },
						link: `${mailer.origin}/app/answer/${req.slug}`,
					},
					now,
				),
			);
			reply.code(202);
			return { id, to: to.trim().toLowerCase(), language: lang };
		},
	);

	app.post(
		"/api/auth/email/verify",
		{
			schema: {
				tags: ["accounts"],
				summary: "Send a link that verifies the account's address",
				description:
					'Queues a mail to the account\'s address with a one-time link (`/app/verify#<token>`, 256 bits, kept hashed, good 24 hours); opening it calls `POST /api/auth/email/confirm`. Also sent at sign-up. Session only; only while the server has mail on. 429 `mail_rate_limited` past the caps. See docs/operations.md "Verified addresses".',
				security: [{ Session: [] }],
				body: VerifyBody,
				response: { 202: Queued, ...errors(400, 401, 429) },
			},
			preHandler: requireSession,
		},
		async (request, reply) => {
			if (request.caller.kind === "guest") throw new AppError("not_authenticated");
			const accountId = request.caller.accountId;
			const fallback = request.body.language ?? pickLanguage(request.headers["accept-language"]);
			const db = app.store.db;
			const now = app.clock.now();
			const id = await db
				.transaction()
				.execute((trx) => mailer.sendVerification(trx, accountId, fallback, now));
			const account = await accountById(db, accountId);
			reply.code(202);
			return { id, to: account?.email ?? "", language: asLang(account?.language) ?? fallback };
		},
	);

	app.post(
		"/api/auth/email/confirm",
		{
			schema: {
				tags: ["accounts"],
				summary: "Confirm an address with the token of a verify link",
				description:
					"No sign-in needed: the link is the capability. Spent on first presentation, right or wrong; refused with 400 `mail_verification_invalid` when unknown, spent, expired, or when the account's address changed since. The OIDC provider then answers `email_verified: true`.",
				body: ConfirmBody,
				response: { 200: Confirmed, ...errors(400, 429) },
			},
			config: { rateLimit: app.limits.passkey },
		},
		async (request) => {
			const done = await confirmVerification(app.store.db, request.body.token, app.clock.now());
			return { email: done.email, verifiedAt: new Date(done.verifiedAt).toISOString() };
		},
	);
};

export const mailRoutes = fp(plugin, { name: "mail", dependencies: ["callbacks"] });
