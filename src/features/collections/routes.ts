// HTTP for `/api/collections/{collection}/records[/{id}]`: each registered collection gets its own
// five routes with its own schemas (so the OpenAPI document shows each record shape), all going
// through the same steps: who is calling (401), the collection's access rule (405/403), then the
// module's visible rows (404 for missing and not-yours alike), then its handler.
import multipart from "@fastify/multipart";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaCompiler } from "fastify";
import { type TObject, type TSchema, Type } from "typebox";
import type { AccountCaller } from "../../http/auth.ts";
import { resolveCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { toAppError } from "../../http/problem.ts";
import { errors, QueryBoolean } from "../../http/schemas.ts";
import { validatorCompiler } from "../../http/validation.ts";
import { relyingParty } from "../passkeys/service.ts";
import {
	findVisible,
	type ListQuery,
	listRecords,
	PAGE_MAX,
	PER_PAGE_DEFAULT,
	PER_PAGE_MAX,
} from "./list.ts";
import { collectionModules } from "./modules.ts";
import { isMultipart, readMultipart, refuseOversized } from "./multipart.ts";
import { FIELDS_DESCRIPTION, FIELDS_MAX_LENGTH, parseFields, pickedSchema, pickMembers } from "./pick.ts";
import {
	type AnyCollection,
	authorize,
	type Operation,
	type OperationContext,
	type StoredUpload,
} from "./registry.ts";

const Fields = Type.Optional(Type.String({ maxLength: FIELDS_MAX_LENGTH, description: FIELDS_DESCRIPTION }));

/** View, create and update: the record in the response, `fields` picking its members. */
const RecordQuerySchema = Type.Object({ fields: Fields });

const ListQuerySchema = Type.Object({
	filter: Type.Optional(
		Type.String({
			description:
				'Filter expression, e.g. `key = "iban" && (hidden = false || created >= "2025-01-01")`. Operators `= != > >= < <= ~ !~` (`~` contains, `!~` does not: A-Z and a-z match each other, every other character only itself, and `%` `_` are no wildcards), `&&`, `||`, parentheses; values are strings, numbers, `true`, `false`, `null`. At most 2048 characters, 10 levels of parentheses and 50 comparisons.',
		}),
	),
	sort: Type.Optional(
		Type.String({ description: "Comma-separated sortable fields, `-` for descending: `-created,name`." }),
	),
	page: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_MAX, default: 1 })),
	perPage: Type.Optional(Type.Integer({ minimum: 1, maximum: PER_PAGE_MAX, default: PER_PAGE_DEFAULT })),
	skipTotal: Type.Optional(
		QueryBoolean(
			"Skip counting: `totalItems` and `totalPages` are -1. The count visits every match (from an index alone where one covers the filter), the page only its own rows: skip it when the total is not shown.",
		),
	),
	fields: Fields,
});

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

/** The list envelope, PocketBase's. */
function pageSchema(item: TSchema) {
	return Type.Object({
		page: Type.Integer(),
		perPage: Type.Integer({ description: `The page size used (at most ${PER_PAGE_MAX}).` }),
		totalItems: Type.Integer({ description: "-1 with `skipTotal`" }),
		totalPages: Type.Integer({ description: "-1 with `skipTotal`" }),
		items: Type.Array(item),
	});
}

function ref(id: string) {
	return Type.Unsafe<unknown>({ $ref: `${id}#` });
}

export const collectionRoutes: FastifyPluginAsyncTypebox = async (app) => {
	// Encapsulated: only these routes parse multipart bodies.
	// The cap is enforced by the blob store's running count (file_too_large), not by truncation.
	await app.register(multipart, { throwFileSizeLimit: false });
	// An upload refused before it was read whole (401, 404, 413...): read and drop a little more, then
	// close, instead of reading the rest of a possibly huge body or closing at once (a reset that can
	// destroy the answer before the client reads it: nginx's "lingering close").
	app.addHook("onResponse", async (request) => {
		const raw = request.raw;
		if (isMultipart(request) && !raw.complete && !raw.readableEnded) lingeringClose(raw);
	});
	const compile = validatorCompiler();
	// Multipart bodies are read (and their fields validated) by the handler after the access
	// checks, never before; the schema is there for the OpenAPI document.
	const routeCompiler: FastifySchemaCompiler<unknown> = (def) =>
		def.httpPart === "body" && def.contentType === "multipart/form-data" ? () => true : compile(def);

	for (const module of collectionModules) {
		app.addSchema(module.schemas.item);
		registerCollection(app as unknown as FastifyInstance, module, routeCompiler);
	}

	const known = new Set(collectionModules.map((m) => m.name));
	const unknown = async (request: FastifyRequest) => {
		const { collection } = request.params as { collection: string };
		if (known.has(collection))
			throw new AppError("method_not_allowed", `${request.method} is not offered here`);
		throw new AppError("not_found", `No collection named ${JSON.stringify(collection)}`);
	};
	app.all("/api/collections/:collection/records", { schema: { hide: true } }, unknown);
	app.all("/api/collections/:collection/records/:id", { schema: { hide: true } }, unknown);
};

const LINGER = { bytes: 8 * 1024 * 1024, ms: 2000 };

function lingeringClose(raw: FastifyRequest["raw"]): void {
	let read = 0;
	// (`app.inject` requests have a socket stand-in without destroy.)
	const close = () => raw.socket.destroy?.();
	const timer = setTimeout(close, LINGER.ms);
	timer.unref();
	raw.on("data", (chunk: Buffer) => {
		read += chunk.length;
		if (read > LINGER.bytes) {
			clearTimeout(timer);
			close();
		}
	});
	// The body ended within the linger: the connection is clean and may be reused.
	raw.on("end", () => clearTimeout(timer));
	raw.resume();
}

function registerCollection(
	app: FastifyInstance,
	module: AnyCollection,
	validatorCompiler: FastifySchemaCompiler<unknown>,
) {
	const base = `/api/collections/${module.name}/records`;
	const itemId = (module.schemas.item as { $id?: string }).$id ?? module.name;
	const item = ref(itemId);
	const tags = [`collection: ${module.name}`];
	const maxFileSize = app.config.maxFileSize;
	// What a response with `fields` serializes with: the same members, none of them required. Set
	// last, once nothing can fail before the reply is written (a problem body needs the default).
	const picked = pickedSchema(module.schemas.item);
	const pickedPage = pageSchema(Type.Unsafe<unknown>(picked)) as unknown as Record<string, unknown>;
	const answer = (reply: FastifyReply, record: unknown, names: string[] | undefined) => {
		if (!names) return record;
		reply.serializer(reply.compileSerializationSchema(picked));
		return pickMembers(record, names);
	};
	const fieldsOf = (request: FastifyRequest) =>
		parseFields((request.query as { fields?: string }).fields, module.schemas.item);

	const meta = (op: Operation, summary: string) => {
		const rule = module.access[op];
		const security: Record<string, string[]>[] =
			rule?.apiKeys === false ? [{ Session: [] }] : [{ ApiKey: [] }, { Session: [] }];
		return {
			tags,
			summary: rule ? summary : `${summary} (not offered: 405)`,
			description: rule
				? `Needs scope \`${rule.scope}\`${rule.apiKeys ? "" : "; API keys are refused"}.`
				: (module.refusals?.[op] ?? "Not offered for this collection."),
			security,
			// An operation without a rule still answers (405), but is not advertised.
			hide: !rule,
		};
	};

	const guard = (op: Operation) =>
		async function checkAccess(this: FastifyInstance, request: FastifyRequest) {
			const caller = await resolveCaller(this, request);
			if (caller.kind === "guest") throw new AppError("not_authenticated");
			request.caller = caller;
			authorize(module, op, caller);
			if (isMultipart(request)) {
				if (!module.uploads) throw new AppError("unsupported_media_type", `${module.name} takes JSON bodies`);
				refuseOversized(request, maxFileSize);
			}
		};

	const context = (request: FastifyRequest): OperationContext => ({
		db: app.store.db,
		caller: request.caller as AccountCaller,
		now: app.clock.now(),
		blobs: app.blobs,
		workspaceHooks: app.workspaceHooks,
		grantHooks: app.grantHooks,
		rootKey: app.rootKey,
		domain: app.config.domain,
		origin: relyingParty(app.config).origin,
		callbackPolicy: { allowPrivate: app.config.allowPrivateCallbacks, dnsServers: app.config.dnsServers },
		allowAttestations: app.config.allowAttestations,
		credentialClaim: app.credentialClaim,
	});

	/** The JSON body, or the multipart fields (validated by the same schema) and the stored file. */
	const readBody = async (request: FastifyRequest, schema: TObject) => {
		if (!isMultipart(request)) {
			if (request.body === undefined || request.body === null) {
				throw new AppError("validation_failed", "body is required", { extra: { field: "body" } });
			}
			return { input: request.body };
		}
		const { fields, upload } = await readMultipart(request, schema, app.blobs, maxFileSize);
		const validate = request.compileValidationSchema(schema, "body");
		if (!validate(fields)) {
			if (upload) await app.blobs.delete(upload.key);
			const failure = Object.assign(new Error("validation"), {
				validation: validate.errors,
				validationContext: "body",
			});
			throw toAppError(failure as never) ?? new AppError("validation_failed");
		}
		return { input: fields, upload };
	};

	/** Runs a write; a file already stored for it is removed when the write is refused. */
	const withUpload = async <T>(upload: StoredUpload | undefined, write: () => Promise<T>): Promise<T> => {
		try {
			return await write();
		} catch (err) {
			if (upload) await app.blobs.delete(upload.key).catch(() => undefined);
			throw err;
		}
	};

	const bodySchema = (schema: TObject | undefined) => {
		if (!schema) return Type.Object({});
		if (!module.uploads) return schema;
		const form = Type.Object(
			{
				...schema.properties,
				file: Type.Optional(
					Type.Unsafe<unknown>({ type: "string", format: "binary", description: "The file's bytes." }),
				),
			},
			{
				description:
					"Form fields as in the JSON body (booleans as `true`/`false`), plus the bytes in `file`.",
			},
		);
		return { content: { "application/json": { schema }, "multipart/form-data": { schema: form } } };
	};

	const common = { validatorCompiler };

	app.get(
		base,
		{
			...common,
			onRequest: guard("list"),
			schema: {
				...meta("list", `List ${module.name}`),
				querystring: ListQuerySchema,
				response: {
					200: pageSchema(item),
					...errors(400, 401, 403, 405),
				},
			},
		},
		async (request, reply) => {
			const names = fieldsOf(request);
			const page = await listRecords(
				module,
				app.store.db,
				app.store.dialect,
				request.caller as AccountCaller,
				request.query as ListQuery,
				app.clock.now(),
			);
			if (!names) return page;
			reply.serializer(reply.compileSerializationSchema(pickedPage));
			return { ...page, items: page.items.map((record) => pickMembers(record, names)) };
		},
	);

	app.get(
		`${base}/:id`,
		{
			...common,
			onRequest: guard("view"),
			schema: {
				...meta("view", `View one of ${module.name}`),
				params: IdParams,
				querystring: RecordQuerySchema,
				response: { 200: item, ...errors(400, 401, 403, 404, 405) },
			},
		},
		async (request, reply) => {
			const names = fieldsOf(request);
			const { id } = request.params as { id: string };
			const record = module.toItem(
				await findVisible(module, app.store.db, request.caller as AccountCaller, id),
				app.clock.now(),
			);
			return answer(reply, record, names);
		},
	);

	app.post(
		base,
		{
			...common,
			onRequest: guard("create"),
			schema: {
				...meta("create", `Create in ${module.name}`),
				querystring: RecordQuerySchema,
				body: bodySchema(module.schemas.create),
				response: {
					200: module.schemas.createHeaders
						? Type.Unsafe<unknown>({ $ref: `${itemId}#`, headers: module.schemas.createHeaders })
						: item,
					...errors(400, 401, 403, 405, 409, 413, 415),
				},
			},
		},
		async (request, reply) => {
			const create = module.handlers.create;
			if (!create || !module.schemas.create) throw new AppError("method_not_allowed");
			const names = fieldsOf(request);
			const { input, upload } = await readBody(request, module.schemas.create);
			const ctx = context(request);
			const created = await withUpload(upload, () => create(ctx, input, upload));
			if (created.headers) reply.headers(created.headers);
			const record = module.toItem(await findVisible(module, app.store.db, ctx.caller, created.id), ctx.now);
			return answer(reply, record, names);
		},
	);

	app.patch(
		`${base}/:id`,
		{
			...common,
			onRequest: guard("update"),
			schema: {
				...meta("update", `Update one of ${module.name}`),
				params: IdParams,
				querystring: RecordQuerySchema,
				body: bodySchema(module.schemas.update),
				response: { 200: item, ...errors(400, 401, 403, 404, 405, 409, 413, 415) },
			},
		},
		async (request, reply) => {
			const update = module.handlers.update;
			if (!update || !module.schemas.update) throw new AppError("method_not_allowed");
			const names = fieldsOf(request);
			const { id } = request.params as { id: string };
			const ctx = context(request);
			// Found (and visible) before a byte of an upload is read.
			const row = await findVisible(module, ctx.db, ctx.caller, id);
			const { input, upload } = await readBody(request, module.schemas.update);
			await withUpload(upload, () => update(ctx, row, input, upload));
			return answer(reply, module.toItem(await findVisible(module, ctx.db, ctx.caller, id), ctx.now), names);
		},
	);

	app.delete(
		`${base}/:id`,
		{
			...common,
			onRequest: guard("delete"),
			schema: {
				...meta("delete", `Delete one of ${module.name}`),
				params: IdParams,
				response: { 204: Type.Null({ description: "Deleted" }), ...errors(401, 403, 404, 405, 409) },
			},
		},
		async (request, reply) => {
			const remove = module.handlers.delete;
			if (!remove) throw new AppError("method_not_allowed");
			const { id } = request.params as { id: string };
			const ctx = context(request);
			const row = await findVisible(module, ctx.db, ctx.caller, id);
			await remove(ctx, row);
			return reply.code(204).send();
		},
	);
}
