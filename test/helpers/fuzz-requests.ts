// Generated requests for one route of the OpenAPI document, each certainly invalid: it carries at
// least one poison that the server must refuse before anything is written (a NUL or lone
// surrogate, malformed JSON, a prototype-poisoning member, a member of the wrong type, an unknown
// id, a broken filter or sort, a multipart part the parser would drop). Around the poison the
// request is as real as the seeds allow (real ids and slugs, real credentials), so the refusal is
// tested where the handler would otherwise run.
import fc from "fast-check";
import {
	deref,
	jsonType,
	type OpenApiDoc,
	type Pools,
	type Schema,
	typesOf,
	valueFor,
} from "./fuzz-schema.ts";

export interface Op {
	method: string;
	path: string;
	params: string[];
	query: string[];
	json: Schema | undefined;
	multipart: Schema | undefined;
}

export function operationsOf(doc: OpenApiDoc): Op[] {
	const ops: Op[] = [];
	for (const [path, item] of Object.entries(doc.paths)) {
		for (const [method, op] of Object.entries(item)) {
			const parameters = op.parameters ?? [];
			ops.push({
				method: method.toUpperCase(),
				path,
				params: parameters.filter((p) => p.in === "path").map((p) => p.name),
				query: parameters.filter((p) => p.in === "query").map((p) => p.name),
				json: op.requestBody?.content["application/json"]?.schema,
				multipart: op.requestBody?.content["multipart/form-data"]?.schema,
			});
		}
	}
	return ops;
}

export interface Seeds {
	doc: OpenApiDoc;
	pools: Pools;
	/** Real values for an operation's path params, each a whole assignment (a scope with its slug). */
	params(op: Op): Record<string, string>[];
	credentials: Record<"none" | "session" | "apiKey" | "bogusBearer" | "bogusKey", Record<string, string>>;
	/** Sent with every request (Host and Origin of the server, so passkey ceremonies get past their gate). */
	base: Record<string, string>;
}

export interface FuzzRequest {
	method: string;
	url: string;
	headers: Record<string, string>;
	payload?: string | Buffer;
	/** What makes it invalid, for the failure message. */
	poison: string;
}

const UNSTORABLE = fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff");

function insert(text: string, poison: string, at: number): string {
	const i = at % (text.length + 1);
	return text.slice(0, i) + poison + text.slice(i);
}

// ---- path ------------------------------------------------------------------------------------

function pathArb(op: Op, seeds: Seeds, poisoned: boolean): fc.Arbitrary<{ url: string; poison: string }> {
	const real = seeds.params(op);
	const assignment = real.length > 0 ? fc.constantFrom(...real) : fc.constant<Record<string, string>>({});
	if (!poisoned) return assignment.map((values) => ({ url: fill(op.path, values), poison: "" }));
	const kinds = fc.oneof(
		fc.tuple(fc.constant("nul"), fc.nat()),
		fc.tuple(fc.constant("control"), fc.nat()),
		fc.tuple(fc.constant("unknown"), fc.nat()),
		fc.tuple(fc.constant("overlong"), fc.integer({ min: 101, max: 400 })),
		fc.tuple(fc.constant("badUtf8"), fc.nat()),
	);
	return fc
		.tuple(assignment, fc.nat(), kinds, fc.stringMatching(/^[a-z0-9]{20}$/))
		.map(([values, which, [kind, n], fresh]) => {
			const name = op.params[which % op.params.length] as string;
			const base = values[name] ?? fresh;
			const raw: Record<string, string> = {};
			let value: string;
			switch (kind) {
				case "nul":
					value = insert(base, "\u0000", n);
					break;
				case "control":
					value = insert(fresh, String.fromCharCode((n % 31) + 1), n);
					break;
				case "unknown":
					value = fresh;
					break;
				case "overlong":
					value = "a".repeat(n);
					break;
				default:
					// Percent-escapes that are not UTF-8: the router cannot decode the path.
					value = "";
					raw[name] = ["%ED%A0%80", "%C3", "%FF%FE"][n % 3] as string;
			}
			return { url: fill(op.path, { ...values, [name]: value }, raw), poison: `path ${name}: ${kind}` };
		});
}

function fill(path: string, values: Record<string, string>, raw: Record<string, string> = {}): string {
	return path.replace(
		/\{(\w+)\}/g,
		(_m, name: string) => raw[name] ?? encodeURIComponent(values[name] ?? "x"),
	);
}

// ---- query -----------------------------------------------------------------------------------

const FIELDS = ["id", "key", "name", "label", "status", "created", "updated", "hidden", "value", "file.size"];
const OPS = ["=", "!=", ">", ">=", "<", "<=", "~", "!~"];
const filterArb = fc
	.array(
		fc.oneof(
			fc.constantFrom(
				...FIELDS,
				...OPS,
				"&&",
				"||",
				"(",
				")",
				"true",
				"false",
				"null",
				'"x"',
				"12",
				"-3.5",
				'"',
			),
			fc.string({ maxLength: 6 }),
		),
		{ maxLength: 9 },
	)
	.map((tokens) => tokens.join(" "));
const sortArb = fc
	.array(fc.tuple(fc.constantFrom("", "-", "+"), fc.constantFrom(...FIELDS, "", "nope")), { maxLength: 3 })
	.map((parts) => parts.map(([d, f]) => d + f).join(","));
const numberText = fc.oneof(
	fc.integer({ min: 1, max: 5 }).map(String),
	fc.constantFrom("0", "-1", "1e400", "abc", "99999999999999999999", "1.5", "", "NaN"),
);

function queryValue(name: string): fc.Arbitrary<string> {
	switch (name) {
		case "filter":
			return filterArb;
		case "sort":
			return sortArb;
		case "page":
		case "perPage":
			return numberText;
		case "skipTotal":
			return fc.constantFrom("true", "false", "1", "0", "maybe");
		case "fields":
			return fc.constantFrom(
				"id",
				"id,name",
				"*",
				"",
				" key , value ",
				"nope",
				"expand.x",
				"value:excerpt(3)",
			);
		default:
			return fc.string({ maxLength: 24 });
	}
}

type Pairs = [string, string][];

function queryArb(op: Op, poisoned: boolean): fc.Arbitrary<{ pairs: Pairs; poison: string }> {
	const declared = fc
		.tuple(...op.query.map((name) => fc.option(queryValue(name).map((v): [string, string] => [name, v]))))
		.map((list) => list.filter((p): p is [string, string] => p !== null));
	if (!poisoned) return declared.map((pairs) => ({ pairs, poison: "" }));
	const names = [...op.query, "x", "q"];
	const nul = fc
		.tuple(fc.constantFrom(...names), fc.string({ maxLength: 12 }), fc.nat(), fc.boolean())
		.map(([name, v, at, inKey]): [Pairs[number], string] =>
			inKey
				? [[insert(name, "\u0000", at), v], "query key: NUL"]
				: [[name, insert(v, "\u0000", at)], `query ${name}: NUL`],
		);
	const list = op.query.includes("filter")
		? [
				nul,
				filterArb.map((f): [Pairs[number], string] => [["filter", `${f} && (`], "filter: unbalanced"]),
				fc.nat().map((n): [Pairs[number], string] => [["sort", `-zz_nosuch_${n}`], "sort: unknown field"]),
				fc
					.constantFrom("0", "-3", "abc", "1e400", "99999999999999999999", "1.5")
					.map((v): [Pairs[number], string] => [["page", v], "page: out of range"]),
			]
		: [nul];
	return fc.tuple(declared, fc.oneof(...list)).map(([pairs, [pair, poison]]) => ({
		pairs: [...pairs.filter(([k]) => k !== pair[0]), pair],
		poison,
	}));
}

function withQuery(url: string, pairs: Pairs): string {
	if (pairs.length === 0) return url;
	return `${url}?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")}`;
}

// ---- JSON body -------------------------------------------------------------------------------

type Json = Record<string, unknown>;

/** Every string leaf and every object of a JSON value, with a setter, found without recursion. */
function nodes(root: Json): { strings: [Json | unknown[], string | number][]; objects: Json[] } {
	const strings: [Json | unknown[], string | number][] = [];
	const objects: Json[] = [];
	const stack: (Json | unknown[])[] = [root];
	for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
		if (!Array.isArray(node)) objects.push(node);
		const entries: [string | number, unknown][] = Array.isArray(node)
			? [...node.entries()]
			: Object.entries(node);
		for (const [k, v] of entries) {
			if (typeof v === "string") strings.push([node, k]);
			else if (typeof v === "object" && v !== null) stack.push(v as Json);
		}
	}
	return { strings, objects };
}

const WRONG = [12345, "text", true, [1], { a: 1 }, null];

const RAW: ((body: string) => string)[] = [
	(b) => b.slice(0, -1),
	(b) => `${b},`,
	(b) => `{"__proto__":{"polluted":1},${b.slice(1)}`,
	(b) => `{"constructor":{"prototype":{"polluted":1}},${b.slice(1)}`,
	() => "{'a':1}",
	() => "[1,2,]",
	() => '{"a":NaN}',
	() => '{"a":"\u0001"}',
	() => '{"a":1e999,',
	() => "",
	() => '{"a":"\\ud800"',
	() => "\u0000",
];

function jsonArb(
	op: Op,
	schema: Schema,
	seeds: Seeds,
	poisoned: boolean,
): fc.Arbitrary<{ text: string; poison: string }> {
	const body = valueFor(schema, seeds.doc, seeds.pools) as fc.Arbitrary<Json>;
	if (!poisoned) return body.map((b) => ({ text: JSON.stringify(b), poison: "" }));
	const declared = Object.keys(deref(schema, seeds.doc).properties ?? {});
	const kind = fc.constantFrom("leaf", "key", "wrongType", "deep", "raw");
	return fc
		.tuple(body, kind, fc.nat(), fc.nat(), UNSTORABLE, fc.integer({ min: 20, max: 5000 }))
		.map(([b, k, pick, at, bad, depth]) =>
			poisonJson(op, schema, seeds, declared, b, k, pick, at, bad, depth),
		);
}

function poisonJson(
	op: Op,
	schema: Schema,
	seeds: Seeds,
	declared: string[],
	body: Json,
	kind: string,
	pick: number,
	at: number,
	bad: string,
	depth: number,
): { text: string; poison: string } {
	const { strings, objects } = nodes(body);
	const name = bad === "\u0000" ? "NUL" : "lone surrogate";
	if (kind === "leaf" && strings.length > 0) {
		const [node, key] = strings[pick % strings.length] as [Json, string];
		node[key] = insert(node[key] as string, bad, at);
		return { text: JSON.stringify(body), poison: `body string ${key}: ${name}` };
	}
	if (kind === "wrongType" && declared.length > 0) {
		const prop = declared[pick % declared.length] as string;
		const allowed = typesOf(deref(schema, seeds.doc).properties?.[prop] ?? {}, seeds.doc);
		const wrong = WRONG.find((v, i) => i >= at % WRONG.length && !allowed.has(jsonType(v)));
		if (!allowed.has("any") && wrong !== undefined) {
			body[prop] = wrong;
			return { text: JSON.stringify(body), poison: `body ${prop}: ${jsonType(wrong)} for ${[...allowed]}` };
		}
	}
	if (kind === "deep") {
		const prop = declared[pick % Math.max(1, declared.length)] ?? "deep";
		const [open, close] = at % 2 === 0 ? ["[", "]"] : ['{"a":', "}"];
		body[prop] = "__DEEP__";
		const deep = `${open.repeat(depth)}"\\u0000"${close.repeat(depth)}`;
		return {
			text: JSON.stringify(body).replace('"__DEEP__"', deep),
			poison: `body ${prop}: ${depth} deep, NUL inside`,
		};
	}
	if (kind === "raw") {
		const make = RAW[pick % RAW.length] as (b: string) => string;
		return { text: make(JSON.stringify(body)), poison: `malformed JSON #${pick % RAW.length}` };
	}
	const target = objects[pick % objects.length] ?? body;
	target[insert("k", bad, at)] = "v";
	return { text: JSON.stringify(body), poison: `body member name: ${name} (${op.path})` };
}

// ---- multipart -------------------------------------------------------------------------------

interface Part {
	name: string;
	value: Buffer;
	charset?: string;
	disposition?: string;
}

function multipart(parts: Part[]): { payload: Buffer; contentType: string } {
	const boundary = "fuzzBoundary7MA4YWxkTrZu0gW";
	const chunks: Buffer[] = [];
	for (const p of parts) {
		const disposition = p.disposition ?? `form-data; name="${p.name}"`;
		const type = p.charset ? `Content-Type: text/plain; charset=${p.charset}\r\n` : "";
		chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`, "utf8"));
		chunks.push(p.value, Buffer.from("\r\n"));
	}
	chunks.push(Buffer.from(`--${boundary}--\r\n`));
	return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function multipartArb(
	schema: Schema,
	seeds: Seeds,
): fc.Arbitrary<{ payload: Buffer; contentType: string; poison: string }> {
	const fields = valueFor(deref(schema, seeds.doc), seeds.doc, seeds.pools) as fc.Arbitrary<Json>;
	const file = fc.option(
		fc.record({
			name: fc.string({ maxLength: 12 }),
			bytes: fc.uint8Array({ maxLength: 64 }),
			first: fc.boolean(),
		}),
	);
	const kind = fc.constantFrom("valueNul", "valueSurrogate", "nameNul", "droppedFile");
	return fc.tuple(fields, file, kind, fc.nat()).map(([f, fileSpec, k, at]) => {
		const poisonsValue = k === "valueNul" || k === "valueSurrogate";
		const parts: Part[] = Object.entries(f)
			.filter(([name, v]) => ["string", "number", "boolean"].includes(typeof v) && name !== "file")
			.filter(([name]) => !(poisonsValue && name === "value"))
			.map(([name, v]) => ({ name, value: Buffer.from(String(v)) }));
		let poison: string;
		if (poisonsValue) {
			const text = insert(String(f.key ?? "value"), k === "valueNul" ? "\u0000" : "\ud800", at);
			// A lone surrogate travels in a UTF-16 part: the parser decodes it back as it was sent.
			const utf16 = k === "valueSurrogate";
			parts.push({
				name: "value",
				value: Buffer.from(text, utf16 ? "utf16le" : "utf8"),
				...(utf16 ? { charset: "utf-16le" } : {}),
			});
			poison = `multipart value: ${k}`;
		} else if (k === "nameNul") {
			parts.push({ name: `na\u0000me`, value: Buffer.from("x") });
			poison = "multipart field name: NUL";
		} else {
			// busboy skips a part whose file name holds a bare line break; the record must not be made without it.
			parts.push({
				name: "file",
				value: Buffer.from("%PDF-1.4 lost"),
				disposition: `form-data; name="file"; filename*=UTF-8''a%0Ab.pdf`,
			});
			poison = "multipart file part the parser drops";
		}
		if (fileSpec && k !== "droppedFile") {
			const part: Part = {
				name: "file",
				value: Buffer.from(fileSpec.bytes),
				disposition: `form-data; name="file"; filename="${fileSpec.name.replace(/["\r\n\\]/g, "_")}\u0000.bin"`,
			};
			if (fileSpec.first) parts.unshift(part);
			else parts.push(part);
		}
		return { ...multipart(parts), poison };
	});
}

// ---- the request -----------------------------------------------------------------------------

type Site = "path" | "query" | "json" | "multipart";

export function requestArb(op: Op, seeds: Seeds): fc.Arbitrary<FuzzRequest> {
	const sites: fc.WeightedArbitrary<Site>[] = [{ arbitrary: fc.constant("query"), weight: 2 }];
	if (op.params.length > 0) sites.push({ arbitrary: fc.constant("path"), weight: 3 });
	if (op.json) sites.push({ arbitrary: fc.constant("json"), weight: 5 });
	if (op.multipart) sites.push({ arbitrary: fc.constant("multipart"), weight: 2 });
	// Mostly real credentials, so most requests get past authentication to the handler.
	const credential = fc.oneof(
		{ arbitrary: fc.constant("session" as const), weight: 4 },
		{ arbitrary: fc.constant("apiKey" as const), weight: 3 },
		{ arbitrary: fc.constantFrom("none" as const, "bogusBearer" as const, "bogusKey" as const), weight: 2 },
	);
	return fc.tuple(fc.oneof(...sites), credential).chain(([site, who]) =>
		fc
			.tuple(
				pathArb(op, seeds, site === "path"),
				queryArb(op, site === "query"),
				op.json ? jsonArb(op, op.json, seeds, site === "json") : fc.constant(undefined),
				site === "multipart" && op.multipart ? multipartArb(op.multipart, seeds) : fc.constant(undefined),
			)
			.map(([path, query, json, form]): FuzzRequest => {
				const headers: Record<string, string> = { ...seeds.base, ...seeds.credentials[who] };
				let payload: string | Buffer | undefined;
				if (form) {
					headers["content-type"] = form.contentType;
					payload = form.payload;
				} else if (json) {
					headers["content-type"] = "application/json";
					payload = json.text;
				}
				const poison = [path.poison, query.poison, json?.poison, form?.poison].filter(Boolean).join("; ");
				return {
					method: op.method,
					url: withQuery(path.url, query.pairs),
					headers,
					...(payload === undefined ? {} : { payload }),
					poison: `${poison} (as ${who})`,
				};
			}),
	);
}
