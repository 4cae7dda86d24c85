import assert from "node:assert/strict";
import { EventEmitter, once } from "node:events";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { Type } from "typebox";
import { makeApp, type TestApp } from "../helpers/app.ts";

function assertProblem(
	res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
	status: number,
	code: string,
) {
	assert.equal(res.statusCode, status);
	assert.match(String(res.headers["content-type"]), /^application\/problem\+json/);
	const body = res.json() as Record<string, unknown>;
	assert.equal(body.status, status);
	assert.equal(body.code, code);
	assert.equal(body.type, "about:blank");
	assert.equal(typeof body.title, "string");
	assert.equal(typeof body.detail, "string");
	return body;
}

describe("errors are problem+json with a code, never a 500 for input", () => {
	let t: TestApp;
	const logs: string[] = [];
	const logged = new EventEmitter();
	let received = 0;
	before(async () => {
		const logStream = new Writable({
			write(chunk, _enc, done) {
				logs.push(chunk.toString());
				logged.emit("line");
				done();
			},
		});
		t = await makeApp(
			{ bodyLimit: 2048, logLevel: "error" },
			{
				logStream,
				extend: async (app) => {
					app.post(
						"/t/share",
						{
							schema: {
								body: Type.Object({
									label: Type.String({ minLength: 1 }),
									maxViews: Type.Optional(Type.Integer({ minimum: 1 })),
								}),
								querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })) }),
							},
						},
						async (request) => {
							received++;
							return { ok: true, body: request.body, query: request.query };
						},
					);
					app.get("/t/boom", async () => {
						throw new Error("secret database detail");
					});
				},
			},
		);
	});
	after(() => t.close());

	const post = (payload: string, type = "application/json", url = "/t/share") =>
		t.app.inject({ method: "POST", url, payload, headers: { "content-type": type } });

	test("a valid body passes and query strings are coerced", async () => {
		const res = await post('{"label":"x","maxViews":3}', "application/json", "/t/share?page=2");
		assert.equal(res.statusCode, 200);
		assert.deepEqual(res.json().query, { page: 2 });
	});

	test("unknown route: 404 not_found", async () => {
		const body = assertProblem(await t.app.inject({ method: "GET", url: "/nope/x?y=1" }), 404, "not_found");
		assert.match(String(body.detail), /GET \/nope\/x$/);
	});

	test("malformed JSON: 400 invalid_json", async () => {
		assertProblem(await post('{"label":'), 400, "invalid_json");
		assertProblem(await post("[1,2"), 400, "invalid_json");
	});

	test("empty JSON body where one is needed: 400 validation_failed (an empty body is no body)", async () => {
		const before = received;
		const body = assertProblem(await post(""), 400, "validation_failed");
		assert.equal(body.field, "body");
		assert.equal(received, before, "the handler never ran");
	});

	test("__proto__ as a member name is refused, not merged", async () => {
		const res = await post('{"label":"x","__proto__":{"admin":true}}');
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().code, "invalid_json");
	});

	test("body over the limit: 413 body_too_large", async () => {
		assertProblem(await post(JSON.stringify({ label: "x".repeat(4096) })), 413, "body_too_large");
	});

	test("wrong content type: 415 unsupported_media_type", async () => {
		assertProblem(await post("label=x", "application/x-www-form-urlencoded"), 415, "unsupported_media_type");
		assertProblem(await post("hello", "text/plain"), 415, "unsupported_media_type");
	});

	test("wrong type is not coerced: 400 naming the field", async () => {
		const body = assertProblem(await post('{"label":"x","maxViews":"5"}'), 400, "validation_failed");
		assert.equal(body.field, "body.maxViews");
		assert.match(String(body.detail), /maxViews/);
	});

	test("missing required member: 400 naming it", async () => {
		const body = assertProblem(await post('{"maxViews":2}'), 400, "validation_failed");
		assert.equal(body.field, "body.label");
	});

	test("bad query value: 400 naming the field", async () => {
		const body = assertProblem(
			await post('{"label":"x"}', "application/json", "/t/share?page=zero"),
			400,
			"validation_failed",
		);
		assert.equal(body.field, "querystring.page");
	});

	test("refused input never reaches the handler", async () => {
		const before = received;
		await post('{"label":');
		await post('{"label":"x","maxViews":"5"}');
		await post("label=x", "text/plain");
		assert.equal(received, before);
	});

	test("a 500 reveals nothing and is logged with the request id", async () => {
		const res = await t.app.inject({ method: "GET", url: "/t/boom" });
		const body = assertProblem(res, 500, "internal_error");
		assert.doesNotMatch(JSON.stringify(body), /secret database detail/);
		const id = String(res.headers["x-request-id"]);
		assert.ok(id);
		// pino's async destination may flush a moment later: wait for the line itself.
		while (!logs.some((l) => l.includes(id))) await once(logged, "line");
		const line = logs.find((l) => l.includes(id));
		assert.ok(line, "the error is logged with the request id");
		assert.match(line, /secret database detail/);
		// The id is the request logger's binding (made on its first line: http/lazy-logger.ts).
		assert.equal(JSON.parse(line).reqId, id);
	});
});
