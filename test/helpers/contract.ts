// Every answer a test receives from an app it built, checked against the OpenAPI document that app
// serves (`app.swagger()`, what GET /api/openapi.json answers): the status is declared for the
// operation (exactly, as `4XX`, or `default`), the content type is one the status declares, and a
// JSON body validates against its schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it).
// A request body the server accepted (a 2xx answer) is checked against the operation's
// `requestBody` the same way: a document stricter than the server fails it. Refused bodies are
// what many tests send on purpose, and their 4xx answer is checked like any other.
//
// The check runs when an answer is sent (`onSend` keeps the body, `onResponse` checks), so it sees what `inject`, `fetch`, Chromium and every SDK
// receive from an app built by makeApp or startServer. What it finds is kept on the app and for
// the process, and fails the test file at its end, naming each answer (helpers/app.ts);
// test/foundation/contract.test.ts plants each kind of difference and sees it reported.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsImport from "ajv-formats";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

// ajv-formats ships CommonJS with a default export; under NodeNext it arrives as the module object.
const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;
interface Operation {
	responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
	requestBody?: { content?: Record<string, { schema?: unknown }> };
}

/** One answer that differs from the document: the operation, the status and what differs. */
export interface Mismatch {
	operation: string;
	status: number;
	problem: string;
}

/** The document of one app, with its validators compiled once per schema. */
class Contract {
	private readonly ajv: Ajv2020;
	private readonly validators = new Map<string, ValidateFunction>();

	constructor(readonly doc: Json) {
		this.ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
		addFormats(this.ajv);
		this.ajv.addSchema({ ...doc, $id: "urn:svc:openapi" });
	}

	operation(path: string, method: string): Operation | undefined {
		const item = (this.doc.paths as Record<string, Record<string, Operation>>)[path];
		return item?.[method];
	}

	/** The errors of `value` against the schema at `pointer` (JSON Pointer into the document). */
	errors(pointer: string, value: unknown): string | undefined {
		let validate = this.validators.get(pointer);
		if (!validate) {
			validate = this.ajv.compile({ $ref: `urn:svc:openapi#${pointer}` });
			this.validators.set(pointer, validate);
		}
		if (validate(value)) return undefined;
		return (validate.errors ?? [])
			.slice(0, 5)
			.map(
				(e) => `${e.instancePath || "(body)"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`,
			)
			.join("; ");
	}
}

const contracts = new Map<string, Contract>();

/** Every mismatch of every app this process built, until the file's end takes them (helpers/app.ts). */
export const processMismatches: Mismatch[] = [];
// scripts/test-batch.mjs, which runs several files in one process, reads them here after each file.
(globalThis as Record<symbol, unknown>)[Symbol.for("svc.test.contractMismatches")] = processMismatches;

/** One Contract per distinct document in this process (apps built alike serve the same one). */
function contractOf(doc: Json): Contract {
	const key = JSON.stringify(doc);
	let contract = contracts.get(key);
	if (!contract) {
		contract = new Contract(doc);
		contracts.set(key, contract);
	}
	return contract;
}

/** `doc` with every `required` list left out: what a `fields` answer is checked against. */
function withoutRequired(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(withoutRequired);
	if (value === null || typeof value !== "object") return value;
	const out: Json = {};
	for (const [k, v] of Object.entries(value))
		if (k !== "required" || !Array.isArray(v)) out[k] = withoutRequired(v);
	return out;
}

/**
 * Whether the request picks members with `fields` (docs/api.md: the record schemas list every
 * member as present; with `fields` only the named ones are, so their presence is not checked).
 */
function picksFields(request: FastifyRequest): boolean {
	const fields = (request.query as { fields?: unknown } | undefined)?.fields;
	if (typeof fields !== "string") return false;
	const names = fields
		.split(",")
		.map((f) => f.trim())
		.filter((f) => f !== "");
	return names.length > 0 && !names.includes("*");
}

const pointerPart = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** A route's address as the document writes it: `/api/links/:id` is `/api/links/{id}`. */
function documentPath(url: string): string {
	return url.replace(/:(\w+)/g, "{$1}");
}

function mediaType(header: unknown): string {
	return String(header ?? "")
		.split(";")[0]
		?.trim()
		.toLowerCase() as string;
}

function isJson(type: string): boolean {
	return type === "application/json" || type.endsWith("+json");
}

/** The media type of `declared` that `actual` matches: itself, `type/*` or `*\/*`. */
function declaredType(declared: string[], actual: string): string | undefined {
	return (
		declared.find((d) => d === actual) ??
		declared.find((d) => d.endsWith("/*") && actual.startsWith(d.slice(0, -1))) ??
		declared.find((d) => d === "*/*")
	);
}

function bodyText(payload: unknown): string | undefined {
	if (typeof payload === "string") return payload;
	if (Buffer.isBuffer(payload)) return payload.toString("utf8");
	return undefined; // a stream: its content type is checked, not its bytes
}

function bodyLength(payload: unknown): number | undefined {
	if (payload === null || payload === undefined) return 0;
	if (typeof payload === "string") return Buffer.byteLength(payload);
	if (Buffer.isBuffer(payload)) return payload.length;
	return undefined;
}

/** The mismatches of one answer; empty when it is as the document says. */
function check(
	contract: Contract,
	request: FastifyRequest,
	reply: FastifyReply,
	payload: unknown,
): Mismatch[] {
	const url = request.routeOptions.url;
	if (url === undefined) return []; // no route matched: the not-found answer of no operation
	// Routes left out of the document on purpose (pages, the console, CORS preflights) say so.
	if ((request.routeOptions.schema as { hide?: boolean } | undefined)?.hide === true) return [];
	// An internal error is no operation's answer: fuzzing and the tests' own status checks find them.
	if (reply.statusCode === 500) return [];
	const path = documentPath(url);
	const head = request.method === "HEAD";
	const method = head ? "get" : request.method.toLowerCase();
	const op = contract.operation(path, method);
	const name = `${request.method} ${path}`;
	const status = reply.statusCode;
	if (!op) {
		if (!url.startsWith("/api") || request.method === "OPTIONS") return [];
		return [{ operation: name, status, problem: "the operation is not in the document" }];
	}
	const responses = op.responses ?? {};
	const key = [String(status), `${String(status)[0]}XX`, "default"].find((k) => k in responses);
	if (key === undefined) {
		return [
			{
				operation: name,
				status,
				problem: `status ${status} is not declared (${Object.keys(responses).join(", ")})`,
			},
		];
	}
	const found: Mismatch[] = [];
	const content = responses[key]?.content ?? {};
	const declared = Object.keys(content);
	const type = mediaType(reply.getHeader("content-type"));
	const length = bodyLength(payload);
	// 204 and 304 carry no body on the wire, whatever the handler handed Fastify (it drops it).
	const bodiless = head || status === 204 || status === 304;
	if (declared.length === 0) {
		if (!bodiless && length !== 0) {
			found.push({
				operation: name,
				status,
				problem: `a body (${type || "no content type"}) where none is declared`,
			});
		}
	} else if (bodiless || length === 0) {
		// No body: nothing to type.
	} else {
		const match = declaredType(declared, type);
		if (match === undefined) {
			found.push({
				operation: name,
				status,
				problem: `content type ${type || "(none)"} is not declared (${declared.join(", ")})`,
			});
		} else if (isJson(type) && content[match]?.schema !== undefined) {
			const text = bodyText(payload);
			if (text !== undefined) {
				let body: unknown;
				try {
					body = JSON.parse(text);
				} catch {
					found.push({ operation: name, status, problem: `a ${type} body that is not JSON` });
				}
				if (body !== undefined) {
					const pointer = `/paths/${pointerPart(path)}/${method}/responses/${pointerPart(key)}/content/${pointerPart(match)}/schema`;
					const errors = contract.errors(pointer, body);
					if (errors)
						found.push({ operation: name, status, problem: `the body differs from the schema: ${errors}` });
				}
			}
		}
	}
	// A request body the server took: the document must not refuse it.
	// A body came when it has bytes: a browser's bodiless POST says `Content-Length: 0`.
	const sent =
		Number(request.headers["content-length"] ?? 0) > 0 || request.headers["transfer-encoding"] !== undefined;
	if (status >= 200 && status < 300 && sent && op.requestBody?.content) {
		const requestType = mediaType(request.headers["content-type"]);
		const bodies = op.requestBody.content;
		const match = declaredType(Object.keys(bodies), requestType);
		if (match === undefined) {
			found.push({
				operation: name,
				status,
				problem: `request content type ${requestType || "(none)"} is not declared (${Object.keys(bodies).join(", ")})`,
			});
		} else if (isJson(requestType) && bodies[match]?.schema !== undefined) {
			const pointer = `/paths/${pointerPart(path)}/${method}/requestBody/content/${pointerPart(match)}/schema`;
			const errors = contract.errors(pointer, request.body);
			if (errors)
				found.push({
					operation: name,
					status,
					problem: `the accepted request body differs from the schema: ${errors}`,
				});
		}
	}
	return found;
}

/**
 * Checks every answer of `app` against its document from now on (call before the app is ready),
 * but those of the routes in `unchecked` (addresses as registered); what differs collects in the
 * returned list, each entry once.
 */
export function checkAnswers(app: FastifyInstance, unchecked: ReadonlySet<string> = new Set()): Mismatch[] {
	const mismatches: Mismatch[] = [];
	const seen = new Set<string>();
	let contract: Contract | undefined;
	let picked: Contract | undefined;
	// The body as the app's hooks leave it; the headers once the answer is sent, when a route's
	// own hooks and Fastify's defaults (a JSON body's content type) have set them.
	const payloads = new WeakMap<FastifyRequest, unknown>();
	app.addHook("onSend", async (request, _reply, payload) => {
		payloads.set(request, payload);
		return payload;
	});
	app.addHook("onResponse", async (request, reply) => {
		if (request.routeOptions.url !== undefined && unchecked.has(request.routeOptions.url)) return;
		// An answer the client left before it was written (a browser moving on to the next page
		// cancels its fetches) has no headers: nothing was answered.
		if (!reply.raw.headersSent) return;
		contract ??= contractOf(app.swagger() as unknown as Json);
		let against = contract;
		if (picksFields(request)) {
			picked ??= contractOf(withoutRequired(contract.doc) as Json);
			against = picked;
		}
		for (const m of check(against, request, reply, payloads.get(request))) {
			const key = `${m.operation} ${m.status} ${m.problem}`;
			if (seen.has(key)) continue;
			seen.add(key);
			mismatches.push(m);
			processMismatches.push(m);
		}
	});
	return mismatches;
}

/** The mismatches as lines for an error message. */
export function describeMismatches(mismatches: Mismatch[]): string {
	return mismatches.map((m) => `  ${m.operation} → ${m.status}: ${m.problem}`).join("\n");
}
