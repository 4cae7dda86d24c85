// HTTP for taking a vault out and bringing entries in: `GET /api/vault/export` (a zip, streamed),
// `POST /api/vault/import/preview` and `POST /api/vault/import` (multipart, one `file` part,
// streamed into the blob store under a cap before it is read). Sessions only: a key never opens the
// vault (spec rule 6).
import multipart from "@fastify/multipart";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest, FastifySchemaCompiler } from "fastify";
import { Type } from "typebox";
import { type AccountCaller, requireAccount } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import { validatorCompiler } from "../../http/validation.ts";
import { isMultipart, lingeringClose, readMultipart, refuseOversized } from "../collections/multipart.ts";
import { tokenCaller } from "../vault/files/service.ts";
import { streamExport } from "./export.ts";
import { MAX_ARCHIVE_BYTES, MAX_TEXT_BYTES } from "./limits.ts";
import {
	IMPORT_FORMATS,
	type ImportFormat,
	requireExportScopes,
	requireImportScopes,
	runImport,
	uploadCap,
} from "./service.ts";

const Refusal = Type.Object({
	at: Type.String({
		description:
			"Where: `line 4` (CSV), `card 2 (line 9)` (vCard), a JSON pointer `/entries/3/key` or a zip entry's name (archive).",
	}),
	message: Type.String(),
});

const ImportReport = Type.Object(
	{
		format: Type.Union(IMPORT_FORMATS.map((f) => Type.Literal(f))),
		preview: Type.Boolean({ description: "True: nothing was written." }),
		counts: Type.Object({
			sections: Type.Integer({ description: "New sections (a key the workspace holds is reused)." }),
			entries: Type.Integer(),
			files: Type.Integer(),
			bytes: Type.Integer({ description: "Bytes of the files." }),
			templates: Type.Integer(),
			skipped: Type.Integer({ description: "vCard properties the vault gives no meaning, left out." }),
		}),
		sections: Type.Array(Type.Object({ key: Type.String(), name: Type.String(), existing: Type.Boolean() })),
		entries: Type.Array(
			Type.Object({
				at: Type.String(),
				key: Type.String(),
				name: Type.String(),
				type: Type.Union([Type.Literal("value"), Type.Literal("file")]),
				section: Type.Union([Type.String(), Type.Null()], { description: "The section's key." }),
				hidden: Type.Boolean(),
				alias: Type.Boolean(),
				size: Type.Optional(Type.Integer()),
			}),
			{ description: "The first 1000 entries; `counts` covers all." },
		),
		templates: Type.Array(Type.Object({ at: Type.String(), name: Type.String(), items: Type.Integer() })),
		refusals: Type.Array(Refusal, { description: "The first 100; an import with any is refused whole." }),
		refusalCount: Type.Integer(),
	},
	{
		$id: "ImportReport",
		description: "What an import makes (or, as a preview, would make) and what it refuses.",
	},
);

const Query = Type.Object({
	format: Type.Union(
		IMPORT_FORMATS.map((f) => Type.Literal(f)),
		{
			description: "`archive` (a zip made by the export), `vcard` (contacts), `csv` (entries).",
		},
	),
});

const Form = {
	content: {
		"multipart/form-data": {
			schema: Type.Object({
				file: Type.Unsafe<unknown>({ type: "string", format: "binary", description: "The file to import." }),
			}),
		},
	},
};

const IMPORT_DESCRIPTION = `Multipart with one \`file\` part, streamed into the blob store before it is read: an archive up to ${MAX_ARCHIVE_BYTES} bytes, a vCard or CSV file up to ${MAX_TEXT_BYTES}. Needs \`record:write\` and \`section:write\` (and \`template:write\` when the archive holds templates). See docs/api.md "Vault export and import" for the formats, the bounds and the refusals.`;

export const transferRoutes: FastifyPluginAsyncTypebox = async (app) => {
	// Encapsulated: only these routes (and the collections') parse multipart bodies.
	await app.register(multipart, { throwFileSizeLimit: false });
	app.addHook("onResponse", async (request) => {
		const raw = request.raw;
		if (isMultipart(request) && !raw.complete && !raw.readableEnded) lingeringClose(raw);
	});
	const compile = validatorCompiler();
	// The form is read by the handler after the access checks; the schema is for the OpenAPI document.
	const routeCompiler: FastifySchemaCompiler<unknown> = (def) =>
		def.httpPart === "body" ? () => true : compile(def);
	app.setValidatorCompiler(routeCompiler);
	app.addSchema(ImportReport);

	app.get(
		"/api/vault/export",
		{
			// A browser's own download carries a file token instead of the session header.
			onRequest: async function (this: typeof app, request) {
				const token = (request.query as { token?: unknown }).token;
				if (typeof token === "string" && token !== "")
					request.caller = await tokenCaller(app.store.db, token, app.clock.now());
				else await requireAccount.call(this, request);
			},
			schema: {
				tags: ["vault"],
				summary: "The active workspace's vault as a zip: vault.json and every file beside it",
				description:
					'Streamed, never built in memory: `vault.json` (the documented form `"format": "svc-vault-export", "version": 1`) and each file entry\'s bytes under `files/<entry id>/<file name>`, stored uncompressed, so `Content-Length` is known. Needs `record:read`, `section:read` and `template:read`. Sessions only. A browser downloads it itself with `?token=`, a token from `POST /api/files/token` in place of the session header (the member\'s role at download time counts; a key\'s token is refused 403 `api_key_scope_missing`; an unknown or expired one 401 `file_download_invalid`).',
				security: [{ Session: [] }],
				querystring: Type.Object({
					token: Type.Optional(
						Type.String({ maxLength: 256, description: "A token from `POST /api/files/token`." }),
					),
				}),
				response: {
					200: {
						description: "The zip.",
						content: {
							"application/zip": { schema: Type.Unsafe<unknown>({ type: "string", format: "binary" }) },
						},
					},
					...errors(401, 403),
				},
			},
		},
		async (request, reply) => {
			const caller = request.caller as AccountCaller;
			requireExportScopes(caller);
			return streamExport(app, reply, caller);
		},
	);

	const importRoute = (preview: boolean) => async (request: FastifyRequest) => {
		const format = (request.query as { format: ImportFormat }).format;
		const caller = request.caller as AccountCaller;
		requireImportScopes(caller);
		if (!isMultipart(request))
			throw new AppError(
				"unsupported_media_type",
				"Send multipart/form-data with the file in a part named file",
			);
		const cap = uploadCap(format);
		refuseOversized(request, cap);
		const { upload } = await readMultipart(request, Type.Object({}), app.blobs, cap);
		if (!upload)
			throw new AppError("validation_failed", "body.file is required", { extra: { field: "body.file" } });
		const deps = {
			db: app.store.db,
			blobs: app.blobs,
			caller,
			now: app.clock.now(),
			maxFileSize: app.config.maxFileSize,
		};
		return runImport(deps, format, upload, preview);
	};

	app.post(
		"/api/vault/import/preview",
		{
			onRequest: requireAccount,
			schema: {
				tags: ["vault"],
				summary: "What an import would make, and every refusal by line, card or JSON pointer; writes nothing",
				description: `${IMPORT_DESCRIPTION} Answers 200 with the refusals listed; only an unreadable upload (not a zip, a bomb, over a bound) is an error.`,
				security: [{ Session: [] }],
				querystring: Query,
				consumes: ["multipart/form-data"],
				body: Form,
				response: { 200: Type.Unsafe({ $ref: "ImportReport#" }), ...errors(400, 401, 403, 413, 415) },
			},
		},
		importRoute(true),
	);

	app.post(
		"/api/vault/import",
		{
			onRequest: requireAccount,
			schema: {
				tags: ["vault"],
				summary: "Import into the active workspace's vault, all or nothing",
				description: `${IMPORT_DESCRIPTION} Any refusal refuses the whole import: 400 \`import_invalid\`, \`detail\` naming the first, \`refusals\` listing up to 100. Without one, everything is written in one transaction: new ids, sections reused by key, aliases pointed at the new entries, files checked against their SHA-256.`,
				security: [{ Session: [] }],
				querystring: Query,
				consumes: ["multipart/form-data"],
				body: Form,
				response: { 200: Type.Unsafe({ $ref: "ImportReport#" }), ...errors(400, 401, 403, 409, 413, 415) },
			},
		},
		importRoute(false),
	);
};
