// Text neither database can store faithfully (NUL, lone UTF-16 surrogates) is refused the same on
// SQLite and PostgreSQL, before any query: a path id or slug holding it is 404 as an unknown one
// is, a body or query member holding it is 400 `validation_failed` naming the member. Text that
// can be stored (surrogate pairs, other control characters) still round-trips unchanged.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";

const RECORDS = "/api/collections/records/records";

let t: TestApp;
let a: TestAccount;
let ips = 0;
const nextIp = () => `192.0.2.${(ips++ % 250) + 1}`;

before(async () => {
	t = await makeApp(
		{},
		{
			extend: async (app) => {
				app.get("/t/things/:id", { config: { notFound: "record_not_found" } }, async () => ({ ok: true }));
				app.get("/t/plain/:id", async () => ({ ok: true }));
			},
		},
	);
	a = await buildAccount(t.app);
});
after(() => t.close());

function inject(
	method: "GET" | "POST" | "PATCH" | "DELETE",
	url: string,
	payload?: string,
	headers = a.headers,
) {
	return t.app.inject({
		method,
		url,
		remoteAddress: nextIp(),
		headers: payload === undefined ? headers : { ...headers, "content-type": "application/json" },
		...(payload === undefined ? {} : { payload }),
	});
}

function problem(res: { statusCode: number; body: string }, status: number, code: string) {
	assert.equal(res.statusCode, status, res.body);
	const body = JSON.parse(res.body) as { code: string; field?: string; detail: string };
	assert.equal(body.code, code, res.body);
	return body;
}

describe("a path id or slug that no row can hold is not found", () => {
	test("the route's config.notFound names the code; not_found by default", async () => {
		problem(await inject("GET", "/t/things/a%00b"), 404, "record_not_found");
		problem(await inject("GET", "/t/plain/a%00b"), 404, "not_found");
		assert.equal((await inject("GET", "/t/plain/ab")).statusCode, 200);
	});

	// Each row: a URL with an unknown id, and the same with NUL in it; both answer alike (the share
	// routes and the status endpoint say their code in `config.notFound`).
	const rows: { url: (id: string) => string; method?: "GET" | "PATCH" | "DELETE" }[] = [
		{ url: (id) => `${RECORDS}/${id}` },
		{ url: (id) => `${RECORDS}/${id}`, method: "PATCH" },
		{ url: (id) => `${RECORDS}/${id}`, method: "DELETE" },
		{ url: (id) => `/api/collections/links/records/${id}` },
		{ url: (id) => `/api/passkeys/${id}`, method: "DELETE" },
		{ url: (id) => `/api/public/requests/${id}` },
		{ url: (id) => `/api/requests/${id}/links` },
		{ url: (id) => `/api/challenges/link/${id}` },
		{ url: (id) => `/api/certificate/${id}` },
		{ url: (id) => `/api/public/links/${id}` },
		{ url: (id) => `/api/links/${id}/archive` },
		{ url: (id) => `/api/public/links/${id}/archive?dl=x` },
		{ url: (id) => `/api/public/links/${id}/files/abc?dl=x` },
		{ url: (id) => `/api/identities/${id}/status` },
	];
	for (const row of rows) {
		const method = row.method ?? "GET";
		const name = `${method} ${row.url(":id")}`;
		test(name, async () => {
			const payload = method === "PATCH" ? "{}" : undefined;
			const unknown = await inject(method, row.url("abcdefghij0123456789"), payload);
			const nul = await inject(method, row.url("abcdefghij%000123456789"), payload);
			assert.equal(nul.statusCode, unknown.statusCode, nul.body);
			assert.equal(JSON.parse(nul.body).code, JSON.parse(unknown.body).code, nul.body);
		});
	}

	test("a public probe with NUL in its slug is 404 without a credential", async () => {
		const res = await inject("GET", "/api/public/requests/x%00y", undefined, {});
		problem(res, 404, "not_found");
	});
});

describe("a query value with NUL is refused, named as schema errors name it", () => {
	test("in a filter", async () => {
		const res = await inject("GET", `${RECORDS}?filter=${encodeURIComponent('key = "a\u0000"')}`);
		const body = problem(res, 400, "validation_failed");
		assert.equal(body.field, "querystring.filter");
	});

	test("in a repeated key, and in a key", async () => {
		const twice = await inject("GET", `${RECORDS}?sort=key&sort=%00`);
		assert.equal(problem(twice, 400, "validation_failed").field, "querystring.sort");
		const key = await inject("GET", `/api/server?a%00=1`, undefined, {});
		assert.equal(problem(key, 400, "validation_failed").field, "querystring");
	});
});

describe("a JSON string with NUL or a lone surrogate is refused, at any depth", () => {
	const cases: [string, string, string][] = [
		["NUL in a value", '{"key":"iban","value":"DE\\u0000"}', "body.value"],
		["a lone high surrogate", '{"key":"iban","value":"\\ud83d"}', "body.value"],
		["a lone low surrogate", '{"key":"iban","name":"x\\ude00y"}', "body.name"],
		["NUL in a member name", '{"key":"iban","va\\u0000lue":"x"}', "body"],
		["a lone surrogate in a nested name", '{"key":"iban","x":{"a":[{"\\udfff":1}]}}', "body.x.a.0"],
		["NUL deep in an array", '{"key":"iban","x":[[1,[true,null,"\\u0000"]]]}', "body.x.0.1.2"],
	];
	for (const [name, payload, field] of cases) {
		test(name, async () => {
			const body = problem(await inject("POST", RECORDS, payload), 400, "validation_failed");
			assert.equal(body.field, field);
		});
	}

	test("100,000 levels of nesting are walked without recursion", async () => {
		const deep = `${"[".repeat(100_000)}"\\u0000"${"]".repeat(100_000)}`;
		const body = problem(
			await inject("POST", RECORDS, `{"key":"k","value":${deep}}`),
			400,
			"validation_failed",
		);
		const field = body.field ?? "";
		assert.ok(field.startsWith("body.value.0.0."), field);
		assert.ok(field.length < 300, "the field names the place without echoing the body");
	});

	test("on a public route without a credential, before its gates", async () => {
		const link = "/api/public/links/abcdefghij0123456789";
		const res = await inject("POST", link, '{"password":"pa\\u0000ss"}', {});
		assert.equal(problem(res, 400, "validation_failed").field, "body.password");
	});

	test("nothing was stored by the refusals above", async () => {
		const res = await inject("GET", RECORDS);
		assert.equal(res.json().totalItems, 0);
	});

	test("storable text round-trips: surrogate pairs, other control characters, U+FFFD", async () => {
		const value = "😀 naïve \u0001\u001f\u007f \ufffd \u2028 end";
		const created = await inject("POST", RECORDS, JSON.stringify({ key: "emoji", value }));
		assert.equal(created.statusCode, 200, created.body);
		const read = await inject("GET", `${RECORDS}/${created.json().id}`);
		assert.equal(read.json().value, value);
	});
});

describe("multipart text fields are held to the same rule", () => {
	const boundary = "unstorableBoundary";
	function form(parts: { disposition: string; type?: string; bytes: Buffer }[]) {
		const chunks = parts.flatMap((p) => [
			Buffer.from(
				`--${boundary}\r\nContent-Disposition: ${p.disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ""}\r\n`,
			),
			p.bytes,
			Buffer.from("\r\n"),
		]);
		return Buffer.concat([...chunks, Buffer.from(`--${boundary}--\r\n`)]);
	}
	const post = (payload: Buffer) =>
		t.app.inject({
			method: "POST",
			url: RECORDS,
			headers: { ...a.headers, "content-type": `multipart/form-data; boundary=${boundary}` },
			payload,
		});
	const field = (name: string, value: string) => ({
		disposition: `form-data; name="${name}"`,
		bytes: Buffer.from(value),
	});
	const file = (name: string) => ({
		disposition: `form-data; name="file"; filename="${name}"`,
		bytes: Buffer.from("%PDF-1.4 x"),
	});

	async function blobCount() {
		let n = 0;
		for await (const _ of t.app.blobs.list()) n += 1;
		return n;
	}

	test("NUL in a field value, after the file was stored: 400 naming it, no blob left", async () => {
		const blobs = await blobCount();
		const res = await post(form([file("a.pdf"), field("key", "doc"), field("name", "a\u0000b")]));
		assert.equal(problem(res, 400, "validation_failed").field, "body.name");
		assert.equal(await blobCount(), blobs);
	});

	test("a lone surrogate in a UTF-16 field", async () => {
		const value = {
			disposition: 'form-data; name="value"',
			type: "text/plain; charset=utf-16le",
			bytes: Buffer.from("x\ud800", "utf16le"),
		};
		const res = await post(form([field("key", "note"), value]));
		assert.equal(problem(res, 400, "validation_failed").field, "body.value");
	});

	test("NUL in a field name", async () => {
		const res = await post(form([field("key", "note"), field("va\u0000lue", "x")]));
		assert.equal(problem(res, 400, "validation_failed").field, "body");
	});

	test("NUL in a file name never reaches the database: it is dropped like other control characters", async () => {
		const res = await post(form([field("key", "scan"), file("sc\u0000an.pdf")]));
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().file.name, "scan.pdf");
	});
});
