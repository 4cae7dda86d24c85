// HTTP for answers: answering a request on this server, and what a request collected.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { type AccountCaller, optionalCaller, requireAccount, requireScope } from "../../http/auth.ts";
import { errors, media } from "../../http/schemas.ts";
import { contentDisposition } from "../../lib/sniff.ts";
import { answerFile, createRemoteReader } from "../grants/service.ts";
import { requestLinks } from "./collected.ts";
import { answersCsv } from "./export.ts";
import { onWorkspaceDeleted, registerAnswerHooks } from "./grant-events.ts";
import { MAX_VALUE_LENGTH, submitAnswer } from "./submit.ts";

const AnswerBody = Type.Object(
	{
		password: Type.Optional(Type.String({ maxLength: 200 })),
		identifier: Type.Optional(
			Type.String({ maxLength: 200, description: "Required when the probe says `requiresIdentifier`." }),
		),
		senderName: Type.Optional(Type.String({ maxLength: 200, description: "Free text; unverified." })),
		values: Type.Optional(
			Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: MAX_VALUE_LENGTH }), {
				description:
					"Template key -> value typed directly, checked against the item's type; minted as records in your workspace.",
			}),
		),
		entries: Type.Optional(
			Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 64 }), {
				description:
					"Template key -> id of a record of your active workspace, granted as it is (a `file` item needs a file record).",
			}),
		),
		identityId: Type.Optional(Type.String({ maxLength: 64 })),
		challengeNonce: Type.Optional(Type.String({ maxLength: 256 })),
		challengeSignature: Type.Optional(Type.String({ maxLength: 256 })),
	},
	{ additionalProperties: false },
);

const AnswerResult = Type.Object({
	ok: Type.Boolean(),
	responseId: Type.String({
		description: "The id of the answer's link in your workspace; stable when you answer again.",
	}),
	linkId: Type.String({ description: "Legacy alias of `responseId`." }),
	completed: Type.Boolean({ description: "Every required item is answered (always true on success)." }),
	updated: Type.Boolean({ description: "True when this replaced your earlier answer." }),
	identity: Type.String({ description: "The identity proven by the challenge; empty when none." }),
});

const Collected = Type.Object({
	responseId: Type.String(),
	linkId: Type.String(),
	slug: Type.String({
		description: "The answer's share slug while it is active (read files through it); empty otherwise.",
	}),
	remote: Type.Boolean({ description: "True for an answer kept on another server." }),
	unreachable: Type.Optional(
		Type.Boolean({
			description:
				"Only on a remote answer whose server could not be asked: then `values` is empty and `status` is the last one a signed event told.",
		}),
	),
	server: Type.Optional(Type.String({ description: "That server's domain, for a remote answer." })),
	status: Type.String({
		description: "`active`, `paused`, `expired` or `revoked` (also for a deleted answer).",
	}),
	identity: Type.String({ description: "Identity proven by handshake; empty when none." }),
	identifier: Type.String(),
	senderName: Type.String(),
	values: Type.Array(
		Type.Object({
			key: Type.String({ description: "The template key." }),
			label: Type.String(),
			recordId: Type.String(),
			type: Type.Union([Type.Literal("value"), Type.Literal("file")]),
			value: Type.Union([Type.String(), Type.Null()]),
			file: Type.Union([
				Type.Object({
					name: Type.String(),
					type: Type.String(),
					size: Type.Integer(),
					sha256: Type.String(),
				}),
				Type.Null(),
			]),
		}),
		{ description: "Current values, only while the answer is active; empty otherwise." },
	),
	created: Type.String({ format: "date-time" }),
	updated: Type.String({ format: "date-time" }),
});

export const answerRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const db = app.store.db;
	const readRemote = createRemoteReader(
		() => ({
			dnsServers: app.config.dnsServers,
			peerOverrides: app.config.peerOverrides,
			now: app.clock.now(),
		}),
		() => app.clock.now(),
	);
	registerAnswerHooks(app.grantHooks);
	app.workspaceHooks.onWorkspaceDeleted.push((trx, workspaceId, now) =>
		onWorkspaceDeleted(trx, workspaceId, now),
	);

	app.post(
		"/api/public/requests/:slug",
		{
			onRequest: optionalCaller,
			config: { rateLimit: app.limits.gate },
			schema: {
				tags: ["requests"],
				summary: "Answer a request: your values become a revocable share in your own workspace",
				description:
					"Session only (else 401 `request_account_required`). Gates: the request is open (404 `request_closed`, `request_expired`), its password (401 `link_password_required`, `link_password_invalid`), the identifier when required (400 `validation_failed`), a proven identity when required (401 `challenge_required`, `challenge_invalid`, `signature_invalid`; 403 `identity_revoked`). Values are checked against the template (400 `validation_failed` naming `values.<key>` or `entries.<key>`). Answering again updates the same answer (same `responseId`).",
				security: [{ Session: [] }],
				params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 128 }) }),
				body: AnswerBody,
				response: { 200: AnswerResult, ...errors(400, 401, 403, 404, 409, 429) },
			},
		},
		async (request) =>
			submitAnswer(
				{ db, now: app.clock.now() },
				request.caller ?? { kind: "guest" },
				request.params.slug,
				request.body,
			),
	);

	app.get(
		"/api/requests/:id/links",
		{
			onRequest: requireAccount,
			schema: {
				tags: ["requests"],
				summary: "What a request collected: its answers, with current values while each is active",
				description: "Needs `request:read`. Answers in the order they first came, paged like collections.",
				security: [{ ApiKey: [] }, { Session: [] }],
				params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
				querystring: Type.Object({
					page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, default: 1 })),
					// Below the collections' 1000: each answer's values are read live through its share.
					perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 30 })),
				}),
				response: {
					200: Type.Object({
						page: Type.Integer(),
						perPage: Type.Integer(),
						totalItems: Type.Integer(),
						totalPages: Type.Integer(),
						items: Type.Array(Collected),
					}),
					...errors(400, 401, 403, 404),
				},
			},
		},
		async (request) => {
			const caller = request.caller as AccountCaller;
			requireScope(caller, "request:read");
			const { page = 1, perPage = 30 } = request.query;
			return requestLinks(
				db,
				caller.workspaceId,
				request.params.id,
				page,
				perPage,
				app.clock.now(),
				readRemote,
			);
		},
	);

	app.get(
		"/api/requests/:id/links.csv",
		{
			onRequest: requireAccount,
			config: { rateLimit: app.limits.heavy },
			schema: {
				tags: ["requests"],
				summary: "A request's answers as CSV, each value read live through its grant at export time",
				description:
					"Needs `request:read`. One row per answer, oldest first, as `GET /api/requests/{id}/links` reads them at this moment: `responseId`, `status`, `server` (remote answers), `identity`, `identifier`, `senderName`, `created`, `updated`, then one column per template key (and per extra key an answer gave), holding the value, or a file's name. An answer that is not active (paused, revoked, expired, unreachable) has its status and empty values. RFC 4180 with CRLF and a UTF-8 byte order mark; a cell a spreadsheet would run as a formula is led by an apostrophe. An attachment named after the request.",
				security: [{ ApiKey: [] }, { Session: [] }],
				params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
				response: {
					200: media("text/csv", "One row per answer, UTF-8 (docs/api.md)"),
					...errors(401, 403, 404, 429),
				},
			},
		},
		async (request, reply) => {
			const caller = request.caller as AccountCaller;
			requireScope(caller, "request:read");
			const { label, csv } = await answersCsv(
				db,
				caller.workspaceId,
				request.params.id,
				app.clock.now(),
				readRemote,
			);
			return reply
				.type("text/csv; charset=utf-8")
				.header("cache-control", "no-store")
				.header("content-disposition", contentDisposition("attachment", `${label} answers.csv`))
				.send(csv);
		},
	);
	app.post(
		"/api/requests/:id/links/:responseId/files/:key",
		{
			onRequest: requireAccount,
			config: { rateLimit: app.limits.download },
			schema: {
				tags: ["requests"],
				summary: "Open a file an answer gives: a one-time address for the requester's browser",
				description:
					"Needs `request:read`. The file the answer `responseId` gives under the template key `key`, as `url`: an address on the server keeping the answer where the browser downloads it once, within ten minutes, through the answer's share like any shared file (its gates, and a stamped copy naming who it was sent to on a watermarked share). An answer kept here: `url` is a path on this server. A remote answer: this server asks the responder's server (`POST /api/grants/files` with the grant's id and token, through its DNS pin, `PEER_OVERRIDES` in development) and `url` is on that server's pinned address; the bytes never pass through this server. No view of the share is taken; the responder's read log shows a `file` read with view 0. 404 `not_found` (no such answer of this request), `link_paused`, `link_revoked`, `link_expired` (the answer not active; a grant the responder's server no longer knows reads as revoked), `record_not_found` (no file under `key`); 502 `remote_unreachable` when the responder's server cannot be asked.",
				security: [{ ApiKey: [] }, { Session: [] }],
				params: Type.Object({
					id: Type.String({ minLength: 1, maxLength: 128 }),
					responseId: Type.String({ minLength: 1, maxLength: 128 }),
					key: Type.String({ minLength: 1, maxLength: 64 }),
				}),
				response: {
					200: Type.Object({
						url: Type.String({ description: "Download once, within ten minutes, with GET." }),
						name: Type.String(),
						type: Type.String(),
						size: Type.Integer(),
					}),
					...errors(401, 403, 404, 429, 502),
				},
			},
		},
		async (request, reply) => {
			const caller = request.caller as AccountCaller;
			requireScope(caller, "request:read");
			reply.header("cache-control", "no-store");
			const { id, responseId, key } = request.params;
			return answerFile(
				{
					db,
					peer: {
						dnsServers: app.config.dnsServers,
						peerOverrides: app.config.peerOverrides,
						now: app.clock.now(),
					},
					origin: "",
					now: app.clock.now(),
				},
				caller.workspaceId,
				id,
				responseId,
				key,
			);
		},
	);
};
