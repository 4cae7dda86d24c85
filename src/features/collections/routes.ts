// HTTP for `/api/collections/{collection}/records[/{id}]`: each registered collection gets its own
// five routes with its own schemas (so the OpenAPI document shows each record shape), all going
// through the same steps: who is calling (401), the collection's access rule (405/403), then the
// module's visible rows (404 for missing and not-yours alike), then its handler. The collections
// come from the app (src/app.ts), each with the `Deps` its handlers get.
import multipart from "@fastify/multipart";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaCompiler } from "fastify";
import { type TObject, Type } from "typebox";
import type { AccountCaller } from "../../http/auth.ts";
import { resolveCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { toAppError } from "../../http/problem.ts";
import { errors } from "../../http/schemas.ts";
import { validatorCompiler } from "../../http/validation.ts";
import { findVisible, type ListQuery, listRecords } from "./list.ts";
import { isMultipart, lingeringClose, readMultipart, refuseOversized } from "./multipart.ts";
import { parseFields, pickedSchema, pickMembers } from "./pick.ts";
import {
	type AnyCollection,
	authorize,
	type CollectionRegistration,
	type Operation,
	type OperationContext,
	type StoredUpload,
} from "./registry.ts";
import {
	bodySchema,
	IdParams,
	ListQuerySchema,
	operationMeta,
	pageSchema,
	RecordQuerySchema,
	ref,
} from "./route-schemas.ts";

export interface CollectionRoutesOptions {
	/** Every collection of the API, in the order the OpenAPI document lists them. */
	collections: readonly CollectionRegistration[];
}

export const collectionRoutes: FastifyPluginAsyncTypebox<CollectionRoutesOptions> = async (
	app,
	{ collections },
) => {
	// Encapsulated: only these routes parse multipart bodies.
	// The cap is enforced by the blob store's running count (file_too_large), not by truncation.
	await app.register(multipart, { throwFileSizeLimit: false });
	app.addHook("onResponse", async (request) => {
		const raw = request.raw;
		if (isMultipart(request) && !raw.complete && !raw.readableEnded) lingeringClose(raw);
	});
	const compile = validatorCompiler();
	// Multipart bodies are read (and their fields validated) by the handler after the access
	// checks, never before; the schema is there for the OpenAPI document.
	const routeCompiler: FastifySchemaCompiler<unknown> = (def) =>
		def.httpPart === "body" && def.contentType === "multipart/form-data" ? () => true : compile(def);

	for (const registration of collections) {
		app.addSchema(registration.module.schemas.item);
		registerCollection(app as unknown as FastifyInstance, registration, routeCompiler);
	}

	const known = new Set(collections.map((c) => c.module.name));
	const unknown = async (request: FastifyRequest) => {
		const { collection } = request.params as { collection: string };
		if (known.has(collection))
			throw new AppError("method_not_allowed", `${request.method} is not offered here`);
		throw new AppError("not_found", `No collection named ${JSON.stringify(collection)}`);
	};
	app.all("/api/collections/:collection/records", { schema: { hide: true } }, unknown);
	app.all("/api/collections/:collection/records/:id", { schema: { hide: true } }, unknown);
};

/** What the five routes of one collection share. */
interface Mounted {
	app: FastifyInstance;
	module: AnyCollection;
	/** The module's `Deps`, taken from the app once, at start-up. */
	deps: object;
	base: string;
	/** The `$id` of the record schema (its OpenAPI component), and a reference to it. */
	itemId: string;
	item: ReturnType<typeof ref>;
	/** What a response with `fields` serializes with: the same members, none of them required. */
	picked: ReturnType<typeof pickedSchema>;
	pickedPage: Record<string, unknown>;
	common: { validatorCompiler: FastifySchemaCompiler<unknown> };
	maxFileSize: number;
}

function registerCollection(
	app: FastifyInstance,
	registration: CollectionRegistration,
	validatorCompiler: FastifySchemaCompiler<unknown>,
) {
	const { module } = registration;
	const itemId = (module.schemas.item as { $id?: string }).$id ?? module.name;
	const picked = pickedSchema(module.schemas.item);
	const mounted: Mounted = {
		app,
		module,
		deps: registration.deps(app),
		base: `/api/collections/${module.name}/records`,
		itemId,
		item: ref(itemId),
		picked,
		pickedPage: pageSchema(Type.Unsafe<unknown>(picked)) as unknown as Record<string, unknown>,
		common: { validatorCompiler },
		maxFileSize: app.config.maxFileSize,
	};
	listRoute(mounted);
	viewRoute(mounted);
	createRoute(mounted);
	updateRoute(mounted);
	deleteRoute(mounted);
}

/** The first step of every route: a signed-in caller, the access rule, and the body's kind. */
function guard({ module, maxFileSize }: Mounted, op: Operation) {
	return async function checkAccess(this: FastifyInstance, request: FastifyRequest) {
		const caller = await resolveCaller(this, request);
		if (caller.kind === "guest") throw new AppError("not_authenticated");
		request.caller = caller;
		authorize(module, op, caller);
		if (isMultipart(request)) {
			if (!module.uploads) throw new AppError("unsupported_media_type", `${module.name} takes JSON bodies`);
			refuseOversized(request, maxFileSize);
		}
	};
}

/** What a handler gets: the operation context and the module's `Deps`. */
function context({ app, deps }: Mounted, request: FastifyRequest): OperationContext {
	return { ...deps, db: app.store.db, caller: request.caller as AccountCaller, now: app.clock.now() };
}

function fieldsOf({ module }: Mounted, request: FastifyRequest) {
	return parseFields((request.query as { fields?: string }).fields, module.schemas.item);
}

/**
 * Serializes the answer with the schema of the picked members. A custom serializer leaves the
 * content type to its caller (Fastify sets `application/json` only for its own), so it is set
 * here: without it a `fields` answer went out with no Content-Type at all.
 */
function pickedSerializer(
	reply: FastifyReply,
	schema: Parameters<FastifyReply["compileSerializationSchema"]>[0],
) {
	reply.serializer(reply.compileSerializationSchema(schema));
	reply.type("application/json; charset=utf-8");
}

/** The record, or with `fields` its picked members (serialized by the picked schema, set last). */
function answer({ picked }: Mounted, reply: FastifyReply, record: unknown, names: string[] | undefined) {
	if (!names) return record;
	pickedSerializer(reply, picked);
	return pickMembers(record, names);
}

/** The JSON body, or the multipart fields (validated by the same schema) and the stored file. */
async function readBody({ app, maxFileSize }: Mounted, request: FastifyRequest, schema: TObject) {
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
}

/** Runs a write; a file already stored for it is removed when the write is refused. */
async function withUpload<T>(
	{ app }: Mounted,
	upload: StoredUpload | undefined,
	write: () => Promise<T>,
): Promise<T> {
	try {
		return await write();
	} catch (err) {
		if (upload) await app.blobs.delete(upload.key).catch(() => undefined);
		throw err;
	}
}

function listRoute(m: Mounted) {
	const { app, module } = m;
	app.get(
		m.base,
		{
			...m.common,
			onRequest: guard(m, "list"),
			schema: {
				...operationMeta(module, "list", `List ${module.name}`),
				querystring: ListQuerySchema,
				response: {
					200: pageSchema(m.item),
					...errors(400, 401, 403, 405),
				},
			},
		},
		async (request, reply) => {
			const names = fieldsOf(m, request);
			const page = await listRecords(
				module,
				app.store.db,
				app.store.dialect,
				request.caller as AccountCaller,
				request.query as ListQuery,
				app.clock.now(),
			);
			if (!names) return page;
			pickedSerializer(reply, m.pickedPage);
			return { ...page, items: page.items.map((record) => pickMembers(record, names)) };
		},
	);
}

function viewRoute(m: Mounted) {
	const { app, module } = m;
	app.get(
		`${m.base}/:id`,
		{
			...m.common,
			onRequest: guard(m, "view"),
			schema: {
				...operationMeta(module, "view", `View one of ${module.name}`),
				params: IdParams,
				querystring: RecordQuerySchema,
				response: { 200: m.item, ...errors(400, 401, 403, 404, 405) },
			},
		},
		async (request, reply) => {
			const names = fieldsOf(m, request);
			const { id } = request.params as { id: string };
			const record = module.toItem(
				await findVisible(module, app.store.db, request.caller as AccountCaller, id),
				app.clock.now(),
			);
			return answer(m, reply, record, names);
		},
	);
}

function createRoute(m: Mounted) {
	const { module } = m;
	m.app.post(
		m.base,
		{
			...m.common,
			onRequest: guard(m, "create"),
			schema: {
				...operationMeta(module, "create", `Create in ${module.name}`),
				querystring: RecordQuerySchema,
				body: bodySchema(module, module.schemas.create),
				response: {
					200: module.schemas.createHeaders
						? Type.Unsafe<unknown>({ $ref: `${m.itemId}#`, headers: module.schemas.createHeaders })
						: m.item,
					...errors(400, 401, 403, 405, 409, 413, 415),
				},
			},
		},
		async (request, reply) => {
			const create = module.handlers.create;
			if (!create || !module.schemas.create) throw new AppError("method_not_allowed");
			const names = fieldsOf(m, request);
			const { input, upload } = await readBody(m, request, module.schemas.create);
			const ctx = context(m, request);
			const created = await withUpload(m, upload, () => create(ctx, input, upload));
			if (created.headers) reply.headers(created.headers);
			const record = module.toItem(await findVisible(module, ctx.db, ctx.caller, created.id), ctx.now);
			return answer(m, reply, record, names);
		},
	);
}

function updateRoute(m: Mounted) {
	const { module } = m;
	m.app.patch(
		`${m.base}/:id`,
		{
			...m.common,
			onRequest: guard(m, "update"),
			schema: {
				...operationMeta(module, "update", `Update one of ${module.name}`),
				params: IdParams,
				querystring: RecordQuerySchema,
				body: bodySchema(module, module.schemas.update),
				response: { 200: m.item, ...errors(400, 401, 403, 404, 405, 409, 413, 415) },
			},
		},
		async (request, reply) => {
			const update = module.handlers.update;
			if (!update || !module.schemas.update) throw new AppError("method_not_allowed");
			const names = fieldsOf(m, request);
			const { id } = request.params as { id: string };
			const ctx = context(m, request);
			// Found (and visible) before a byte of an upload is read.
			const row = await findVisible(module, ctx.db, ctx.caller, id);
			const { input, upload } = await readBody(m, request, module.schemas.update);
			await withUpload(m, upload, () => update(ctx, row, input, upload));
			const record = module.toItem(await findVisible(module, ctx.db, ctx.caller, id), ctx.now);
			return answer(m, reply, record, names);
		},
	);
}

function deleteRoute(m: Mounted) {
	const { module } = m;
	m.app.delete(
		`${m.base}/:id`,
		{
			...m.common,
			onRequest: guard(m, "delete"),
			schema: {
				...operationMeta(module, "delete", `Delete one of ${module.name}`),
				params: IdParams,
				response: { 204: Type.Null({ description: "Deleted" }), ...errors(401, 403, 404, 405, 409) },
			},
		},
		async (request, reply) => {
			const remove = module.handlers.delete;
			if (!remove) throw new AppError("method_not_allowed");
			const { id } = request.params as { id: string };
			const ctx = context(m, request);
			const row = await findVisible(module, ctx.db, ctx.caller, id);
			await remove(ctx, row);
			return reply.code(204).send();
		},
	);
}
