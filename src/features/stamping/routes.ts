// HTTP for `POST /api/stamp-preview`: the stamped copy of a vault file as an attachment.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { type AccountCaller, requireAccount } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { contentDisposition } from "../../lib/sniff.ts";
import { STAMPABLE_TYPES } from "../../lib/stamp/index.ts";
import { PREVIEW_MARK, type ShareStampFor, STAMP_TEXT_MAX, stampPreview } from "./service.ts";

export interface StampingOptions {
	/** The shares feature's `shareStampFor`; without it every `link` is `link_not_found`. */
	shareStampFor?: ShareStampFor;
}

const noShares: ShareStampFor = async () => {
	throw new AppError("link_not_found");
};

const binary = Type.Unsafe<unknown>({ type: "string", format: "binary" });

export const stampingRoutes: FastifyPluginAsyncTypebox<StampingOptions> = async (app, options) => {
	const shareStampFor = options.shareStampFor ?? noShares;

	app.post(
		"/api/stamp-preview",
		{
			onRequest: requireAccount,
			config: { rateLimit: app.limits.heavy },
			schema: {
				tags: ["files"],
				summary: "A stamped (watermarked) copy of a vault file, to preview a stamp",
				description: [
					"Stamps a copy of a PDF, JPEG, PNG or WebP file record of the active workspace; the original is never changed. ",
					`The line is \`text\` (trimmed, 1 to ${STAMP_TEXT_MAX} characters, one line) followed by \` ${PREVIEW_MARK}\`; `,
					"with `link`, `text` is ignored and the share's stamp is used instead: the share must be the workspace's, grant the record and have a stamp. ",
					"Answers the copy as an attachment named `<name>-preview<ext>`. ",
					"Files are vault records and a key never opens the vault: an API key is refused with 403 `api_key_scope_missing` (`record:read`). ",
					"Rate limit `heavy`; 503 `service_unavailable` with `Retry-After` when every stamping worker is busy. See docs/api.md, Stamping.",
				].join(""),
				security: [{ ApiKey: [] }, { Session: [] }],
				body: Type.Object(
					{
						record: Type.String({ minLength: 1, maxLength: 128, description: "id of a file record" }),
						text: Type.Optional(
							Type.String({
								description: `the stamp text: one line of 1 to ${STAMP_TEXT_MAX} characters once trimmed (else 400 \`watermark_text_invalid\`); required without \`link\``,
							}),
						),
						link: Type.Optional(
							Type.String({
								minLength: 1,
								maxLength: 128,
								description: "id of a share of the workspace whose stamp to preview",
							}),
						),
					},
					{ additionalProperties: false },
				),
				response: {
					200: {
						description:
							"The stamped copy, in the file's own format, as an attachment `<name>-preview<ext>`.",
						content: Object.fromEntries(STAMPABLE_TYPES.map((t) => [t, { schema: binary }])),
					},
					...errors(400, 401, 403, 404, 415, 429, 503),
				},
			},
		},
		async (request, reply) => {
			const { copy, type, filename } = await stampPreview(
				{
					db: app.store.db,
					blobs: app.blobs,
					stamper: app.stamper,
					shareStampFor,
					now: app.clock.now(),
				},
				request.caller as AccountCaller,
				request.body,
			);
			return reply
				.type(type)
				.header("cache-control", "private, no-store")
				.header("content-disposition", contentDisposition("attachment", filename))
				.header("content-length", String(copy.size))
				.send(copy.body);
		},
	);
};
