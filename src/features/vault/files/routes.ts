// HTTP for vault files: `POST /api/files/token` and `GET /api/files/{recordId}?token=`.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { type AccountCaller, requireAccount } from "../../../http/auth.ts";
import { etagOf, lastModifiedOf, selectRange } from "../../../http/byte-range.ts";
import { AppError } from "../../../http/errors.ts";
import { errors } from "../../../http/schemas.ts";
import { BlobNotFoundError, type BlobStore } from "../../../lib/blob-store.ts";
import { contentDisposition } from "../../../lib/sniff.ts";
import { FILE_TOKEN_TTL_MS, mintFileToken, openFile } from "./service.ts";

// Shown in place (images and PDF); anything else downloads. Served with nosniff and a CSP that allows nothing.
const INLINE = /^(image\/(png|jpeg|gif|webp)|application\/pdf)$/;
const AnyBinary = {
	content: { "*/*": { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) } },
};
const Validators = {
	"accept-ranges": Type.Literal("bytes"),
	etag: Type.String({ description: "Strong: the file's SHA-256 in quotes." }),
	"last-modified": Type.String({ description: "The record's last change, as an HTTP-date." }),
};

export const fileRoutes: FastifyPluginAsyncTypebox = async (app) => {
	app.post(
		"/api/files/token",
		{
			onRequest: requireAccount,
			schema: {
				tags: ["files"],
				summary: "Mint a short-lived token for reading vault files",
				description: `Good for ${FILE_TOKEN_TTL_MS / 60000} minutes for any file of the caller's active workspace (append \`?token=\` to \`/api/files/{recordId}\`); stops working once the account leaves the workspace. A key's token opens no vault file.`,
				security: [{ ApiKey: [] }, { Session: [] }],
				response: {
					200: Type.Object({
						token: Type.String(),
						expiresAt: Type.String({ format: "date-time" }),
					}),
					...errors(401),
				},
			},
		},
		async (request) => mintFileToken(app.store.db, request.caller as AccountCaller, app.clock.now()),
	);

	app.route({
		// HEAD is declared rather than derived from GET: Fastify's derived HEAD drains the body
		// stream it is given, which would read the whole blob to send nothing.
		method: ["GET", "HEAD"],
		url: "/api/files/:recordId",
		config: { rateLimit: app.limits.download },
		schema: {
			tags: ["files"],
			summary: "The bytes of a file record, with a token from POST /api/files/token",
			description:
				"A bare URL (no `token`) serves nothing: 401 `file_download_invalid`. Range requests (RFC 9110): `Accept-Ranges: bytes`, a strong `ETag` (the file's SHA-256, quoted) and `Last-Modified` (the record's last change). One byte range (`bytes=0-99`, `bytes=100-`, `bytes=-100`) answers 206 with `Content-Range`; a range starting at or past the end, `bytes=-0` or a last position before the first answers 416 `range_not_satisfiable` with `Content-Range: bytes */<size>`. A list of ranges, another unit or a header that cannot be read is ignored: 200 with the whole file. `If-Range` (the ETag, or exactly the Last-Modified date) that does not hold: 200 with the whole file. HEAD answers the headers of the whole file and reads no bytes.",
			params: Type.Object({ recordId: Type.String({ minLength: 1, maxLength: 128 }) }),
			querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 256 })) }),
			response: {
				200: {
					description: "The whole file, with its sniffed content type.",
					headers: Validators,
					...AnyBinary,
				},
				206: {
					description: "The one byte range asked for; `Content-Range: bytes <first>-<last>/<size>`.",
					headers: { ...Validators, "content-range": Type.String() },
					...AnyBinary,
				},
				...errors(401, 403, 404, 416, 429),
			},
		},
		handler: async (request, reply) => {
			const file = await openFile(
				app.store.db,
				request.query.token,
				request.params.recordId,
				app.clock.now(),
			);
			// Range is defined for GET only (RFC 9110 §14.2): HEAD describes the whole file.
			const range =
				request.method === "GET"
					? selectRange(file.size, request.headers, file)
					: ({ kind: "whole" } as const);
			if (range.kind === "unsatisfiable") {
				throw new AppError("range_not_satisfiable", `The file has ${file.size} bytes`, {
					headers: { "content-range": `bytes */${file.size}` },
				});
			}
			// Opened before any header is set, so a blob gone missing is a plain 404 problem.
			const body =
				request.method === "GET"
					? await openBlob(app.blobs, file.fileKey, range.kind === "part" ? range : undefined)
					: undefined;
			const etag = etagOf(file);
			if (etag) reply.header("etag", etag);
			reply
				.type(file.type)
				.header("accept-ranges", "bytes")
				.header("last-modified", lastModifiedOf(file))
				.header("cache-control", "private, no-store")
				.header(
					"content-disposition",
					contentDisposition(INLINE.test(file.type) ? "inline" : "attachment", file.name),
				);
			if (range.kind === "part") {
				reply
					.code(206)
					.header("content-range", `bytes ${range.start}-${range.end}/${file.size}`)
					.header("content-length", String(range.end - range.start + 1));
			} else reply.header("content-length", String(file.size));
			return reply.send(body);
		},
	});
};

async function openBlob(blobs: BlobStore, key: string, range?: { start: number; end: number }) {
	try {
		return await blobs.get(key, range);
	} catch (err) {
		if (err instanceof BlobNotFoundError) throw new AppError("not_found", "The file's bytes are gone");
		throw err;
	}
}
