// HTTP for shares: the public probe and resolve, files and archives by one-time token, and the
// owner's archive. The public paths run queries compiled once at start-up (public-queries/).
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import { Type } from "typebox";
import { type AccountCaller, requireAccount } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { contentDisposition } from "../../lib/sniff.ts";
import { ServerClaim, Sharer, serverClaim } from "../server/service.ts";
import { ownerArchive, stampedCopy, streamArchive } from "./archive.ts";
import { sharesContext } from "./context.ts";
import { probe, resolve } from "./public.ts";
import { logTokenRead, openArchive, openDownload } from "./tokens.ts";

const Slug = Type.Object({ slug: Type.String({ minLength: 1, maxLength: 128 }) });
const Binary = {
	content: {
		"application/octet-stream": { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) },
	},
};
const Zip = {
	description: "A zip archive, streamed.",
	content: { "application/zip": { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) } },
};

const Probe = Type.Object({
	slug: Type.String(),
	label: Type.String(),
	status: Type.String({ description: "`active`, `paused`, `revoked` or `expired`." }),
	requiresPassword: Type.Boolean(),
	requireHandshake: Type.Boolean({ description: "A proven identity is required." }),
	watermarked: Type.Boolean({ description: "Served files are stamped with who they were sent to." }),
	purpose: Type.String({ description: "`application` or empty." }),
	identity: Type.String({ description: "Id of the identity the share is made under; empty for none." }),
	sharer: Sharer,
	server: ServerClaim,
});

const ResolveBody = Type.Object(
	{
		password: Type.Optional(Type.String({ maxLength: 200 })),
		identityId: Type.Optional(
			Type.String({ maxLength: 64, description: "The identity of this server that signed the challenge." }),
		),
		handshakeToken: Type.Optional(
			Type.String({
				maxLength: 512,
				description:
					"Accepted for compatibility and ignored: a handshake is proven by `challengeNonce` and `challengeSignature` only.",
			}),
		),
		challengeNonce: Type.Optional(Type.String({ maxLength: 256 })),
		challengeSignature: Type.Optional(Type.String({ maxLength: 256 })),
	},
	{ description: "Every member optional; an absent body is an empty one." },
);

const SharedRecord = Type.Object({
	id: Type.String(),
	key: Type.String(),
	name: Type.String(),
	type: Type.Union([Type.Literal("value"), Type.Literal("file")]),
	value: Type.Union([Type.String(), Type.Null()], {
		description: "The current value (an alias's target's); null for a file.",
	}),
	section: Type.Union([Type.String(), Type.Null()]),
	hidden: Type.Boolean({
		description:
			"A sensitive entry: served like any other, for the reader's app to mask until revealed; never handed to a tool.",
	}),
	file: Type.Union([
		Type.Object({ name: Type.String(), type: Type.String(), size: Type.Integer(), sha256: Type.String() }),
		Type.Null(),
	]),
	version: Type.Integer({ description: "Grows by one with every change to the record." }),
	updated: Type.String({ format: "date-time" }),
	downloadToken: Type.Optional(
		Type.String({
			description:
				"File records: single use, for `GET /api/public/links/{slug}/files/{id}?dl=`; good ten minutes.",
		}),
	),
});

const Resolved = Type.Object({
	slug: Type.String(),
	label: Type.String(),
	purpose: Type.String(),
	identity: Type.String(),
	sections: Type.Array(
		Type.Object({
			id: Type.String(),
			key: Type.String(),
			name: Type.String(),
			records: Type.Array(Type.String(), { description: "Ids of its granted records." }),
		}),
	),
	records: Type.Array(SharedRecord),
	viewCount: Type.Integer({ description: "The view count after this read." }),
	watermark: Type.Optional(Type.String({ description: "The stamp line; watermarked shares only." })),
	archiveToken: Type.Optional(
		Type.String({ description: "When at least one file is granted: single use, within two minutes." }),
	),
});

export const shareRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const db = app.store.db;
	const ctx = sharesContext(
		db,
		serverClaim(app.config, app.rootKey.fingerprint),
		app.grantHooks,
		app.keyedLimit("password", app.limits.password),
	);
	app.challengeScopes.register(
		"link",
		async (_db, slug) => (await ctx.q.linkBySlug(db, { slug })).length > 0,
	);

	app.get(
		"/api/public/links/:slug",
		{
			config: { rateLimit: app.limits.probe, notFound: "link_not_found" },
			schema: {
				tags: ["shares"],
				summary: "Probe a share: its gates, sharer and server, never data, never a view",
				params: Slug,
				response: { 200: Probe, ...errors(404, 429) },
			},
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			return probe(ctx, request.params.slug, app.clock.now());
		},
	);

	app.post(
		"/api/public/links/:slug",
		{
			config: { rateLimit: app.limits.gate, notFound: "link_not_found" },
			// Every member is optional, and so is the body itself: none is an empty one.
			// A callback, not an async hook: a promise per resolve for nothing (issue 37).
			preValidation: (request, _reply, done) => {
				if (request.body === undefined || request.body === null) request.body = {};
				done();
			},
			schema: {
				tags: ["shares"],
				summary: "Resolve a share: pass its gates, consume one view, read the current values",
				description:
					"Gates in order: status (404 `link_paused`, `link_revoked`, `link_expired`), password (401 `link_password_required`, `link_password_invalid`), handshake (401 `challenge_required`, `challenge_invalid`, `signature_invalid`; 403 `identity_revoked`), then one view taken atomically: a reader who lost the last view to a concurrent one gets 404 `link_expired`. Password attempts at one share by one client are counted together with those at `/s/{slug}` (GET, HEAD, POST): the 31st in a minute is 429 `rate_limited` with `Retry-After`.",
				params: Slug,
				body: ResolveBody,
				response: { 200: Resolved, ...errors(400, 401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			return resolve(ctx, request.params.slug, request.body, app.clock.now(), { ip: request.ip });
		},
	);

	app.get(
		"/api/public/links/:slug/files/:recordId",
		{
			exposeHeadRoute: false,
			config: { rateLimit: app.limits.download, notFound: "link_not_found" },
			schema: {
				tags: ["shares"],
				summary: "A file the share grants, with the resolve's single-use downloadToken",
				description:
					"401 `file_download_invalid` when `dl` is missing, spent, expired or minted for another share or file. The share must still grant the file (404 `record_not_found`) and still be readable (404 `link_paused`, `link_revoked`, `link_expired`; a share expired by its view cap still honours the view the token carries). On a watermarked share the file is a stamped copy naming the reader; a file that cannot be stamped is 415 `file_not_watermarkable`, never served unmarked. Always the whole file with `Accept-Ranges: none`: a `Range` header is ignored, since the token is spent by this request; resuming takes a new resolve (a new view). HEAD is 405 `method_not_allowed` and spends nothing.",
				params: Type.Object({
					slug: Type.String({ minLength: 1, maxLength: 128 }),
					recordId: Type.String({ minLength: 1, maxLength: 128 }),
				}),
				querystring: Type.Object({ dl: Type.Optional(Type.String({ maxLength: 128 })) }),
				response: {
					200: { description: "The file's bytes; on a watermarked share a stamped copy.", ...Binary },
					...errors(401, 404, 415, 429),
				},
			},
		},
		async (request, reply) => {
			const { slug, recordId } = request.params;
			const now = app.clock.now();
			const { link, file, stampLine, read } = await openDownload(ctx, slug, recordId, request.query.dl, now);
			const disposition = contentDisposition("attachment", file.name);
			if (stampLine !== null) {
				// A watermarked share serves stamped copies only; what cannot be stamped is not served.
				// A copy from the cache is logged as a read exactly as a fresh one (the view was taken
				// at resolve, with the token).
				const copy = await stampedCopy(app, link.workspace, file, stampLine);
				if (!copy)
					throw new AppError("file_not_watermarkable", "This file cannot be stamped, so it is not served");
				try {
					await logTokenRead(ctx, read, now);
				} catch (err) {
					if (!Buffer.isBuffer(copy.body)) copy.body.destroy();
					throw err;
				}
				return sendFile(reply, copy.body, copy.size, disposition);
			}
			const body = await app.blobs.get(file.fileKey).catch(() => {
				throw new AppError("record_not_found", "The file's bytes are gone");
			});
			await logTokenRead(ctx, read, now);
			return sendFile(reply, body, file.size, disposition);
		},
	);

	app.get(
		"/api/public/links/:slug/archive",
		{
			exposeHeadRoute: false,
			config: { rateLimit: app.limits.download, notFound: "archive_empty" },
			schema: {
				tags: ["shares"],
				summary: "Every file the share grants as one zip, with the resolve's single-use archiveToken",
				description:
					"Streamed, never built in memory. Entries are named after the files; a repeated name becomes `name (2).ext`. 401 `file_download_invalid` for a missing, spent, expired (two minutes) or foreign token; 404 `archive_empty` when no file could go in or the share no longer exists. Always the whole archive with `Accept-Ranges: none`: a `Range` header is ignored (the token is spent by this request). HEAD is 405 `method_not_allowed` and spends nothing.",
				params: Slug,
				querystring: Type.Object({ dl: Type.Optional(Type.String({ maxLength: 128 })) }),
				response: { 200: Zip, ...errors(401, 404, 429) },
			},
		},
		async (request, reply) => {
			const now = app.clock.now();
			const { link, files, stampLine, read } = await openArchive(
				ctx,
				request.params.slug,
				request.query.dl,
				now,
			);
			return streamArchive(app, reply, link, files, stampLine, () => logTokenRead(ctx, read, now));
		},
	);

	// HEAD on a one-time token's address would spend the token (and log a read) to send nothing,
	// and link checkers and mail scanners send HEAD unasked: 405 instead, with nothing touched.
	for (const url of ["/api/public/links/:slug/files/:recordId", "/api/public/links/:slug/archive"]) {
		app.head(
			url,
			{ config: { rateLimit: app.limits.download }, schema: { hide: true } },
			async (_request, reply) => {
				reply.header("allow", "GET");
				throw new AppError("method_not_allowed", "HEAD would spend the one-time token; download with GET");
			},
		);
	}

	app.get(
		"/api/links/:id/archive",
		{
			onRequest: requireAccount,
			config: { rateLimit: app.limits.download, notFound: "link_not_found" },
			schema: {
				tags: ["shares"],
				summary: "The owner's copy of a share's archive (claims no view)",
				description:
					"Only files the caller may read: an API key reads no vault file, so for a key the archive is always 404 `archive_empty`. Needs `link:read`.",
				security: [{ ApiKey: [] }, { Session: [] }],
				params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
				response: { 200: Zip, ...errors(401, 403, 404, 429) },
			},
		},
		async (request, reply) => {
			const { link, files, stampLine } = await ownerArchive(
				ctx,
				request.caller as AccountCaller,
				request.params.id,
				app.clock.now(),
			);
			return streamArchive(app, reply, link, files, stampLine);
		},
	);
};

/**
 * A share's file, always whole: its `downloadToken` is spent on first presentation, so a range
 * could never be followed by the rest (docs/api.md "Range requests"); a Range header is ignored.
 */
function sendFile(
	reply: FastifyReply,
	body: NodeJS.ReadableStream | Buffer,
	size: number,
	disposition: string,
) {
	return reply
		.type("application/octet-stream")
		.header("accept-ranges", "none")
		.header("content-length", String(size))
		.header("cache-control", "private, no-store")
		.header("x-content-type-options", "nosniff")
		.header("content-disposition", disposition)
		.send(body);
}
