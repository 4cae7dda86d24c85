// HTTP for vault files: `POST /api/files/token` and `GET /api/files/{recordId}?token=`.
import path from "node:path";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { type AccountCaller, requireAccount } from "../../../http/auth.ts";
import { AppError } from "../../../http/errors.ts";
import { errors } from "../../../http/schemas.ts";
import { BlobNotFoundError } from "../../../lib/blob-store.ts";
import { contentDisposition } from "../../../lib/sniff.ts";
import { FILE_TOKEN_TTL_MS, mintFileToken, openFile } from "./service.ts";
import { scheduleSweeps } from "./sweeper.ts";

// Shown in place (images and PDF); anything else downloads. Served with nosniff and a CSP that allows nothing.
const INLINE = /^(image\/(png|jpeg|gif|webp)|application\/pdf)$/;

export const fileRoutes: FastifyPluginAsyncTypebox = async (app) => {
	scheduleSweeps(app, path.join(app.config.dataDir, "blobs"));

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

	app.get(
		"/api/files/:recordId",
		{
			config: { rateLimit: app.limits.download },
			schema: {
				tags: ["files"],
				summary: "The bytes of a file record, with a token from POST /api/files/token",
				description: "A bare URL (no `token`) serves nothing: 401 `file_download_invalid`.",
				params: Type.Object({ recordId: Type.String({ minLength: 1, maxLength: 128 }) }),
				querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 256 })) }),
				response: {
					200: {
						description: "The file's bytes, with its sniffed content type.",
						content: { "*/*": { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) } },
					},
					...errors(401, 403, 404, 429),
				},
			},
		},
		async (request, reply) => {
			const { recordId } = request.params;
			const file = await openFile(app.store.db, request.query.token, recordId, app.clock.now());
			let body: NodeJS.ReadableStream;
			try {
				body = await app.blobs.get(file.fileKey);
			} catch (err) {
				if (err instanceof BlobNotFoundError) throw new AppError("not_found", "The file's bytes are gone");
				throw err;
			}
			return reply
				.type(file.type)
				.header("content-length", String(file.size))
				.header("cache-control", "private, no-store")
				.header(
					"content-disposition",
					contentDisposition(INLINE.test(file.type) ? "inline" : "attachment", file.name),
				)
				.send(body);
		},
	);
};
