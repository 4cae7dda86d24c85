// fast-check arbitraries from the OpenAPI document's JSON schemas: bodies that mostly match their
// route's schema (so the handler would run), with noise (huge and negative numbers, control
// characters, `constructor` members) mixed in. Each body is then made certainly invalid by one
// poison (fuzz-requests.ts), so a route that answers it may change nothing.
import fc from "fast-check";

export interface Schema {
	$ref?: string;
	type?: string | string[];
	anyOf?: Schema[];
	oneOf?: Schema[];
	enum?: unknown[];
	const?: unknown;
	properties?: Record<string, Schema>;
	patternProperties?: Record<string, Schema>;
	additionalProperties?: boolean | Schema;
	required?: string[];
	items?: Schema;
	uniqueItems?: boolean;
	maxItems?: number;
	minLength?: number;
	maxLength?: number;
	pattern?: string;
	format?: string;
	minimum?: number;
	maximum?: number;
}

export interface OpenApiDoc {
	paths: Record<string, Record<string, Operation>>;
	components?: { schemas?: Record<string, Schema> };
}

interface Operation {
	parameters?: { in: string; name: string; schema?: Schema }[];
	requestBody?: { content: Record<string, { schema: Schema }> };
}

export function deref(schema: Schema, doc: OpenApiDoc): Schema {
	let s = schema;
	for (let hops = 0; s.$ref !== undefined && hops < 8; hops++) {
		const name = s.$ref.replace(/^#\/components\/schemas\//, "").replace(/#$/, "");
		s = doc.components?.schemas?.[name] ?? {};
	}
	return s;
}

/** The JSON types a schema admits (`integer` counts as `number`); `any` when it leaves one open. */
export function typesOf(schema: Schema, doc: OpenApiDoc): Set<string> {
	const s = deref(schema, doc);
	const out = new Set<string>();
	const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
	const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? [])];
	for (const t of types) out.add(t === "integer" ? "number" : t);
	for (const sub of alternatives) for (const t of typesOf(sub, doc)) out.add(t);
	if (s.enum) for (const v of s.enum) out.add(jsonType(v));
	if (s.const !== undefined) out.add(jsonType(s.const));
	if (types.length === 0 && alternatives.length === 0 && !s.enum && s.const === undefined) out.add("any");
	return out;
}

export function jsonType(v: unknown): string {
	if (v === null) return "null";
	if (Array.isArray(v)) return "array";
	return typeof v;
}

/** Strings a generated body may carry: real ids (so lookups hit rows) and noise. */
export interface Pools {
	ids: readonly string[];
}

const NOISY_NUMBERS = [-1, 0, -(2 ** 31), 2 ** 31, Number.MAX_SAFE_INTEGER + 2, -1e15, 1e308, 0.5];
const CONTROL = fc.constantFrom("\u0001", "\u0007", "\u001b", "\u007f", "\u0085", "\u2028", "\ufeff");

function text(min: number, max: number): fc.Arbitrary<string> {
	const plain = fc.string({ minLength: min, maxLength: Math.max(min, Math.min(max, 24)) });
	const noisy = fc.tuple(plain, CONTROL).map(([s, c]) => (s + c).slice(0, Math.max(1, max)));
	return fc.oneof({ arbitrary: plain, weight: 4 }, { arbitrary: noisy, weight: 1 });
}

function stringFor(s: Schema, pools: Pools): fc.Arbitrary<string> {
	const min = s.minLength ?? 0;
	const max = s.maxLength ?? 64;
	if (s.pattern) return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length <= max);
	switch (s.format) {
		case "date-time":
			return fc
				.date({ min: new Date("2020-01-01"), max: new Date("2040-01-01"), noInvalidDate: true })
				.map((d) => d.toISOString());
		case "uri":
		case "url":
			return fc.constantFrom("https://example.org/hook", "http://127.0.0.1:9/x", "ftp://example.org/");
		case "email":
			return fc.constantFrom("someone@example.org", "a@b");
		default:
			break;
	}
	if (max >= 20 && pools.ids.length > 0) {
		return fc.oneof(
			{ arbitrary: fc.constantFrom(...pools.ids), weight: 2 },
			{ arbitrary: text(min, max), weight: 3 },
		);
	}
	return text(min, max);
}

function numberFor(s: Schema, integer: boolean): fc.Arbitrary<number> {
	const min = Math.max(s.minimum ?? -1000, -1e9);
	const max = Math.min(s.maximum ?? 1000, 1e9);
	const valid = integer
		? fc.integer({ min, max })
		: fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
	return fc.oneof(
		{ arbitrary: valid, weight: 4 },
		{ arbitrary: fc.constantFrom(...NOISY_NUMBERS), weight: 1 },
	);
}

/** Values for `schema`, mostly valid, bounded in size and depth. */
export function valueFor(schema: Schema, doc: OpenApiDoc, pools: Pools, depth = 0): fc.Arbitrary<unknown> {
	const s = deref(schema, doc);
	if (depth > 4) return fc.constant(null);
	const alternatives = [...(s.anyOf ?? []), ...(s.oneOf ?? [])];
	if (alternatives.length > 0)
		return fc.oneof(...alternatives.map((a) => valueFor(a, doc, pools, depth + 1)));
	if (s.enum && s.enum.length > 0) return fc.constantFrom(...s.enum);
	if (s.const !== undefined) return fc.constant(s.const);
	const type = Array.isArray(s.type) ? s.type[0] : s.type;
	switch (type) {
		case "string":
			return stringFor(s, pools);
		case "integer":
			return numberFor(s, true);
		case "number":
			return numberFor(s, false);
		case "boolean":
			return fc.boolean();
		case "null":
			return fc.constant(null);
		case "array": {
			const item = valueFor(s.items ?? {}, doc, pools, depth + 1);
			const maxLength = Math.min(s.maxItems ?? 3, 3);
			return s.uniqueItems
				? fc.uniqueArray(item, { maxLength, selector: (v) => JSON.stringify(v) })
				: fc.array(item, { maxLength });
		}
		case "object":
			return objectFor(s, doc, pools, depth);
		default:
			return fc.jsonValue({ maxDepth: 2 });
	}
}

function objectFor(s: Schema, doc: OpenApiDoc, pools: Pools, depth: number): fc.Arbitrary<unknown> {
	const props = s.properties ?? {};
	const model: Record<string, fc.Arbitrary<unknown>> = {};
	for (const [key, sub] of Object.entries(props)) model[key] = valueFor(sub, doc, pools, depth + 1);
	const required = (s.required ?? []).filter((k) => k in props);
	const declared = fc.record(model, { requiredKeys: required });
	const mapSchema =
		Object.values(s.patternProperties ?? {})[0] ??
		(typeof s.additionalProperties === "object" ? s.additionalProperties : undefined);
	const extra = mapSchema
		? fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), valueFor(mapSchema, doc, pools, depth + 1), {
				maxKeys: 3,
			})
		: fc.constant({});
	// Noise, now and then: a `constructor` member (harmless alone; `constructor.prototype` is
	// refused as prototype poisoning). Rare, as most schemas refuse unknown members.
	const noise = fc.oneof(
		{ arbitrary: fc.constant(null), weight: 7 },
		{ arbitrary: fc.record({ constructor: fc.jsonValue({ maxDepth: 1 }) }), weight: 1 },
	);
	return fc.tuple(declared, extra, noise).map(([d, e, n]) => ({ ...e, ...d, ...(n ?? {}) }));
}
