// Shared route schemas: the problem body and helpers to declare error responses in OpenAPI.
import { Type } from "typebox";

export const ProblemSchema = Type.Object(
	{
		type: Type.String({ description: "Always `about:blank`." }),
		title: Type.String(),
		status: Type.Integer(),
		code: Type.String({ description: "The spec's error code, e.g. `link_password_required`." }),
		detail: Type.String(),
		field: Type.Optional(Type.String({ description: "The offending field on `validation_failed`." })),
		scope: Type.Optional(Type.String({ description: "The missing scope on `api_key_scope_missing`." })),
	},
	{ $id: "Problem", additionalProperties: true, description: "RFC 9457 problem details" },
);

const problemRef = Type.Unsafe<unknown>({ $ref: "Problem#" });

/**
 * An error response as the server sends it (src/http/problem.ts): `application/problem+json`.
 * Keyed by media type, so the OpenAPI document names that type (not `application/json`), and
 * fastify serializes with the schema what is sent with that type.
 */
export const problemContent = { "application/problem+json": { schema: problemRef } };
const problemResponse = {
	description: "RFC 9457 problem details with the error's `code` (docs/api.md)",
	content: problemContent,
};

/** Response entries for error statuses, all carrying the problem body: `...errors(400, 404)`. */
export function errors(...statuses: number[]): Record<number, typeof problemResponse> {
	const out: Record<number, typeof problemResponse> = {};
	for (const s of statuses) out[s] = problemResponse;
	return out;
}

/**
 * A query-string flag, default false. Every query boolean takes `true`/`1` and `false`/`0`
 * (src/http/validation.ts); this says so in the OpenAPI document.
 */
export function QueryBoolean(description: string) {
	return Type.Boolean({
		default: false,
		description: `${description} \`true\` or \`1\`, \`false\` or \`0\`.`,
	});
}
