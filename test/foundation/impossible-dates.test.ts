// Impossible dates are refused with 400, never rolled over (issue 35.9): `2030-02-30T00:00:00Z`
// as a share's, an API key's or a request's expiry, and in a filter.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, LINKS } from "../shares/helpers.ts";

let t: TestApp;
let owner: TestAccount;
before(async () => {
	t = await makeApp();
	owner = await buildAccount(t.app);
});
after(() => t.close());

const send = (method: "POST" | "PATCH" | "GET", url: string, payload?: object) =>
	t.app.inject({ method, url, headers: owner.headers, ...(payload ? { payload } : {}) });

describe("an expiry on a day that does not exist", () => {
	test("a share: created or changed, 400 validation_failed naming expiresAt; nothing changes", async () => {
		const made = await send("POST", LINKS, { label: "x", expiresAt: "2030-02-30T00:00:00Z" });
		assert.equal(made.statusCode, 400, made.body);
		assert.equal(made.json().code, "validation_failed");
		assert.equal(made.json().field, "body.expiresAt");
		const link = await createLink(t.app, owner, { label: "y", expiresAt: "2030-02-28T00:00:00Z" });
		for (const expiresAt of ["2030-02-30T00:00:00Z", "2030-04-31T12:00:00Z", "2030-01-01T24:00:00Z"]) {
			const res = await send("PATCH", `${LINKS}/${link.id}`, { expiresAt });
			assert.equal(res.statusCode, 400, `${expiresAt}: ${res.body}`);
			assert.equal(res.json().field, "body.expiresAt");
		}
		const kept = await send("GET", `${LINKS}/${link.id}`);
		assert.equal(kept.json().expiresAt, "2030-02-28T00:00:00.000Z");
		const leap = await send("PATCH", `${LINKS}/${link.id}`, { expiresAt: "2032-02-29T00:00:00Z" });
		assert.equal(leap.statusCode, 200, leap.body);
	});

	test("an API key and a request", async () => {
		const key = await send("POST", "/api/collections/apiKeys/records", {
			name: "script",
			permissions: ["links:read"],
			expiresAt: "2030-02-30T00:00:00Z",
		});
		assert.equal(key.statusCode, 400, key.body);
		assert.equal(key.json().field, "body.expiresAt");
		const request = await send("POST", "/api/collections/requests/records", {
			label: "r",
			items: [{ key: "name", label: "Name", type: "text", required: true }],
			expiresAt: "2031-02-29T10:00:00Z",
		});
		assert.equal(request.statusCode, 400, request.body);
		assert.equal(request.json().field, "body.expiresAt");
	});

	test("a filter: 400 filter_invalid", async () => {
		for (const date of ["2030-02-30", "2030-02-30T10:00:00Z"]) {
			const res = await send("GET", `${LINKS}?filter=${encodeURIComponent(`created > "${date}"`)}`);
			assert.equal(res.statusCode, 400, res.body);
			assert.equal(res.json().code, "filter_invalid");
		}
		const ok = await send("GET", `${LINKS}?filter=${encodeURIComponent('created > "2028-02-29"')}`);
		assert.equal(ok.statusCode, 200, ok.body);
	});
});
