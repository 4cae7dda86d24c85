// Two Ajv instances: query strings, params and headers are text and get coerced ("2" -> 2); bodies are
// JSON and must carry the right types, so `{"maxViews": "5"}` is a 400 naming the field, not a 5.

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

export function validatorCompiler(): FastifySchemaCompiler<unknown> {
	const body = addFormats(new Ajv({ ...common, coerceTypes: false }));
	const text = addFormats(new Ajv({ ...common, coerceTypes: "array" }));
	return ({ schema, httpPart }) => {
		const ajv = httpPart === "body" ? body : text;
		return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
	};
}
