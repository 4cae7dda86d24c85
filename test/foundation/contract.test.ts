// The contract check of test/helpers/contract.ts, which makeApp puts on every app: each kind of
// difference from the OpenAPI document is planted in an otherwise honest answer (a hook the test
// adds runs before the check), and the check names it. An honest answer, a HEAD and an accepted
// request body pass; a file with a kept mismatch fails at its end (a fixture run as its own file).
// Runs once, not per database: the check reads answers and the document, which no database shapes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { processMismatches } from "../helpers/contract.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { entryArgs, REPO_ROOT } from "../helpers/root.ts";

let t: TestApp;
let owner: TestAccount;

before(async () => {
	t = await makeApp(
		{},
		{
			extend: async (app) => {
				// The plants, chosen per request by a header only this test sends.
				app.addHook("onSend", async (request, reply, payload) => {
					const plant = request.headers["x-plant"];
					if (plant === "status") reply.code(202);
					if (plant === "type") reply.type("text/plain");
					if (plant === "member" && typeof payload === "string") {
						const body = JSON.parse(payload) as Record<string, unknown>;
						delete body.fingerprint;
						return JSON.stringify(body);
					}
					if (plant === "wrong-type" && typeof payload === "string") {
						return JSON.stringify({ ...(JSON.parse(payload) as object), domain: 42 });
					}
					return payload;
				});
				// An API route without a response schema: the document lists it with a bare 200.
				app.get("/api/planted", { config: { contract: true } }, async () => ({ ok: true }));
				// A test's own scaffolding (most tests' extensions): not the API, not checked.
				app.get("/t/scaffold", async (_request, reply) => reply.code(418).send({ any: "thing" }));
				// A route whose body the handler takes after a hook changed it: as if the document
				// were stricter than what the server accepts.
				app.post(
					"/api/planted-body",
					{
						config: { contract: true },
						schema: {
							body: { type: "object", required: ["n"], properties: { n: { type: "integer" } } },
							response: { 204: { type: "null", description: "taken" } },
						},
						preHandler: async (request) => {
							if (request.headers["x-plant"] === "body") (request.body as { n: unknown }).n = "seven";
						},
					},
					async (_request, reply) => reply.code(204).send(),
				);
			},
		},
	);
	owner = await buildAccount(t.app, { name: "Ada" });
});
after(async () => {
	await t.close();
});

/** What the check kept for the request, then forgotten so the next one starts clean. */
function taken(): string[] {
	const found = t.mismatches.map((m) => `${m.operation} → ${m.status}: ${m.problem}`);
	t.mismatches.length = 0;
	processMismatches.length = 0;
	return found;
}

describe("every answer against the OpenAPI document", () => {
	test("an honest answer, its HEAD and an accepted body pass", async () => {
		assert.equal((await t.app.inject({ url: "/api/server" })).statusCode, 200);
		assert.equal((await t.app.inject({ method: "HEAD", url: "/api/server" })).statusCode, 200);
		const made = await t.app.inject({
			method: "POST",
			url: "/api/collections/records/records",
			headers: { authorization: `Bearer ${owner.token}` },
			payload: { key: "email", name: "Email", value: "ada@example.org" },
		});
		assert.equal(made.statusCode, 200, made.body);
		assert.deepEqual(taken(), []);
	});

	test("a status the operation does not declare is named", async () => {
		const res = await t.app.inject({ url: "/api/server", headers: { "x-plant": "status" } });
		assert.equal(res.statusCode, 202);
		const found = taken();
		assert.equal(found.length, 1, found.join("\n"));
		assert.match(found[0] as string, /^GET \/api\/server → 202: status 202 is not declared \(200/);
	});

	test("a missing member and a member of the wrong type are named with the schema's words", async () => {
		await t.app.inject({ url: "/api/server", headers: { "x-plant": "member" } });
		assert.deepEqual(taken(), [
			`GET /api/server → 200: the body differs from the schema: (body) must have required property 'fingerprint' {"missingProperty":"fingerprint"}`,
		]);
		await t.app.inject({ url: "/api/server", headers: { "x-plant": "wrong-type" } });
		assert.deepEqual(taken(), [
			`GET /api/server → 200: the body differs from the schema: /domain must be string {"type":"string"}`,
		]);
	});

	test("a content type the status does not declare is named", async () => {
		await t.app.inject({ url: "/api/server", headers: { "x-plant": "type" } });
		assert.deepEqual(taken(), [
			"GET /api/server → 200: content type text/plain is not declared (application/json)",
		]);
	});

	test("a body the document does not describe is named; an unknown address and a test's scaffolding are not checked", async () => {
		assert.equal((await t.app.inject({ url: "/api/planted" })).statusCode, 200);
		assert.deepEqual(taken(), ["GET /api/planted → 200: a body (application/json) where none is declared"]);
		assert.equal((await t.app.inject({ url: "/api/nowhere" })).statusCode, 404);
		assert.deepEqual(taken(), []);
		assert.equal((await t.app.inject({ url: "/t/scaffold" })).statusCode, 418);
		assert.deepEqual(taken(), [], "a route the test added without asking for the check");
	});

	test("an accepted request body the document refuses is named", async () => {
		const honest = await t.app.inject({ method: "POST", url: "/api/planted-body", payload: { n: 7 } });
		assert.equal(honest.statusCode, 204);
		assert.deepEqual(taken(), []);
		await t.app.inject({
			method: "POST",
			url: "/api/planted-body",
			payload: { n: 7 },
			headers: { "x-plant": "body" },
		});
		assert.deepEqual(taken(), [
			`POST /api/planted-body → 204: the accepted request body differs from the schema: /n must be integer {"type":"integer"}`,
		]);
	});

	test("a file with a kept mismatch exits failed, naming it, after its own cleanup ran", async () => {
		const fixture = "test/foundation/fixtures/contract-mismatch.fixture.ts";
		// A test run of its own: not this file's child (NODE_TEST_CONTEXT), no runner hooks.
		const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: "", CONTRACT_REPORT: "" };
		delete env.NODE_TEST_CONTEXT;
		const run = spawnSync(process.execPath, ["--test", ...entryArgs(fixture)], {
			cwd: REPO_ROOT,
			encoding: "utf8",
			env,
			timeout: 120_000,
		});
		assert.notEqual(run.status, 0, run.stdout);
		assert.match(run.stdout, /# pass 1/);
		assert.match(run.stdout, /# cleanup ran/);
		const said = run.stdout + run.stderr;
		assert.match(said, /answers that differ from the OpenAPI document:/);
		assert.match(said, /GET \/api\/server → 202: status 202 is not declared/);
	});
});
