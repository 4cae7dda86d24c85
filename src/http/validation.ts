// Two Ajv instances: query strings, params and headers are text and get coerced ("2" -> 2); bodies are
// JSON and must carry the right types, so `{"maxViews": "5"}` is a 400 naming the field, not a 5.
//
// A route's validators and response serializers are compiled on the route's first request, not at
// start: compiled, the server's 1,300-odd schemas are about 9 MB of code and source text that an
// idle server (and one that never serves the route) does not need. `compileAll` compiles every one
// of them at once, so a schema Ajv or fast-json-stringify cannot compile still fails a test.

import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";
import { Ajv, type Options } from "ajv";
import addFormatsImport from "ajv-formats";
import type { FastifySchemaCompiler } from "fastify";

// ajv-formats ships CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

const common: Options = {
	allErrors: false,
	removeAdditional: false,
	useDefaults: true,
	strict: false,
	// OpenAPI keywords our schemas carry for documentation.
	keywords: ["example"],
};

type Validate = ReturnType<FastifySchemaCompiler<unknown>>;

/** Compilations put off until first use, each run at most once; `compileAll` runs those left. */
const pending = new Set<() => void>();

export function compileAll(): number {
	const left = [...pending];
	for (const compile of left) compile();
	return left.length;
}

function deferred<F>(build: () => F): () => F {
	let built: F | undefined;
	const compile = () => {
		if (built === undefined) {
			built = build();
			pending.delete(compile);
		}
		return built;
	};
	pending.add(compile);
	return compile;
}

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
	const body = addFormats(new Ajv({ ...common, coerceTypes: false }));
	const text = addFormats(new Ajv({ ...common, coerceTypes: "array" }));
	return ({ schema, httpPart }) => {
		const ajv = httpPart === "body" ? body : text;
		const compiled = deferred(() => ajv.compile(schema as object) as Validate);
		const validate = ((data: unknown) => compiled()(data)) as Validate;
		// Fastify reads the failures from the function it was given.
		Object.defineProperty(validate, "errors", { get: () => (compiled() as { errors?: unknown }).errors });
		return httpPart === "querystring" ? withBooleanDigits(schema, validate) : validate;
	};
}

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** Fastify's own fast-json-stringify compiler (with the shared schemas), run on first use. */
export const serializerFactory: SerializerFactory = (externalSchemas, options) => {
	const build = SerializerSelector()(externalSchemas, options);
	return (route) => {
		const compiled = deferred(() => build(route));
		return (data: unknown) => compiled()(data);
	};
};

/**
 * Query booleans as common clients send them: `1` and `0` besides `true` and `false` (Ajv coerces
 * only the words; the PocketBase SDK sends `skipTotal=1`). Every query boolean, on every route.
 */
function withBooleanDigits(schema: unknown, validate: Validate): Validate {
	const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
	const flags = Object.keys(properties).filter((name) => properties[name]?.type === "boolean");
	if (flags.length === 0) return validate;
	const wrapped = ((query: unknown) => {
		if (query && typeof query === "object") {
			const q = query as Record<string, unknown>;
			for (const name of flags) {
				if (q[name] === "1") q[name] = true;
				else if (q[name] === "0") q[name] = false;
			}
		}
		return validate(query);
	}) as Validate;
	// Fastify reads the failures from the function it was given.
	Object.defineProperty(wrapped, "errors", { get: () => (validate as { errors?: unknown }).errors });
	return wrapped;
}
