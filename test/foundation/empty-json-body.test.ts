// An empty body sent as `Content-Type: application/json` is no body, on every route (clients such as
// the PocketBase SDK send the header on DELETE too): each route answers it exactly as it answers the
// same request without the header. A route that needs a body therefore still refuses it (400
// `validation_failed` naming `body`), and one without a body goes on to its handler.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { publicOrigin } from "../../src/config.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";
import { type Op, operationsOf } from "../helpers/fuzz-requests.ts";
import type { OpenApiDoc } from "../helpers/fuzz-schema.ts";

const UNKNOWN_ID = "abcdefghij0123456789";

describe("an empty JSON body is no body", () => {
	let t: TestApp;
	let ops: Op[];
	let base: Record<string, string>;
	before(async () => {
		t = await makeApp();
		ops = operationsOf((await t.app.inject({ url: "/api/openapi.json" })).json() as OpenApiDoc).filter(
			(op) => op.method !== "GET",
		);
		const origin = publicOrigin(t.app.config);
		base = { host: new URL(origin).host, origin };
	});
	after(() => t.close());

	/** The answer to `op` with a fresh session (a route may end it), an unknown id in the path. */
	const send = async (op: Op, emptyJson: boolean) => {
		const { headers } = await buildAccount(t.app);
		const res = await t.app.inject({
			method: op.method as "POST",
			url: op.path.replace(/\{\w+\}/g, UNKNOWN_ID),
			headers: { ...base, ...headers, ...(emptyJson ? { "content-type": "application/json" } : {}) },
			...(emptyJson ? { payload: "" } : {}),
		});
		const body = res.body ? (res.json() as { code?: string; field?: string }) : {};
		return { status: res.statusCode, code: body.code, field: body.field };
	};

	test("a route without a body answers it as it answers no body at all", async (ctx) => {
		const bodiless = ops.filter((op) => !op.json && !op.multipart);
		assert.ok(bodiless.length >= 10, `${bodiless.length} operations`);
		for (const op of bodiless) {
			await ctx.test(`${op.method} ${op.path}`, async () => {
				const none = await send(op, false);
				const empty = await send(op, true);
				assert.deepEqual(empty, none);
				assert.ok(empty.status < 500, `${empty.status}`);
			});
		}
	});

	test("a route that needs a body refuses it, naming the body", async (ctx) => {
		const needing = ops.filter((op) => op.json);
		assert.ok(needing.length >= 25, `${needing.length} operations`);
		for (const op of needing) {
			await ctx.test(`${op.method} ${op.path}`, async () => {
				const empty = await send(op, true);
				// `validation_failed`, or the route's own code for a malformed body (passkey ceremonies).
				if (empty.status === 400) assert.equal(empty.field, "body", JSON.stringify(empty));
				// Refused before the body is read (an unknown share slug): as without a body.
				else assert.deepEqual(empty, await send(op, false));
			});
		}
	});

	test("a collection: create and update refuse it and change nothing; delete deletes", async () => {
		const a = await buildAccount(t.app);
		const created = await t.app.inject({
			method: "POST",
			url: "/api/collections/sections/records",
			headers: { ...a.headers, "content-type": "application/json" },
			payload: "",
		});
		assert.equal(created.statusCode, 400);
		assert.equal(created.json().code, "validation_failed");
		assert.equal(created.json().field, "body");
		assert.equal(created.json().detail, "body is required");
		const listed = await t.app.inject({ url: "/api/collections/sections/records", headers: a.headers });
		assert.equal(listed.json().totalItems, 0, "nothing was created");

		const section = await t.app.inject({
			method: "POST",
			url: "/api/collections/sections/records",
			headers: a.headers,
			payload: { key: "docs", name: "Docs" },
		});
		const url = `/api/collections/sections/records/${section.json().id}`;
		const patched = await t.app.inject({
			method: "PATCH",
			url,
			headers: { ...a.headers, "content-type": "application/json; charset=utf-8" },
			payload: "",
		});
		assert.equal(patched.json().field, "body");
		const deleted = await t.app.inject({
			method: "DELETE",
			url,
			headers: { ...a.headers, "content-type": "application/json" },
			payload: "",
		});
		assert.equal(deleted.statusCode, 204, deleted.body);
		assert.equal((await t.app.inject({ url, headers: a.headers })).statusCode, 404);
	});

	test("a body that is only whitespace is still malformed JSON", async () => {
		const a = await buildAccount(t.app);
		const res = await t.app.inject({
			method: "POST",
			url: "/api/collections/sections/records",
			headers: { ...a.headers, "content-type": "application/json" },
			payload: " ",
		});
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().code, "invalid_json");
	});
});
