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

/** Response entries for error statuses, all carrying the problem body: `...errors(400, 404)`. */
export function errors(...statuses: number[]): Record<number, typeof problemRef> {
	const out: Record<number, typeof problemRef> = {};
	for (const s of statuses) out[s] = problemRef;
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
