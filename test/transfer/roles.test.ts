// The vault export and import follow the roles (docs/api.md "Roles: who sees and does what"): a
// member's export has no hidden entry and no alias of one, as if they did not exist, while the
// owner's has them; only owners and admins may import entries marked hidden.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { exportZip, sendImport } from "./helpers.ts";

describe("vault export and import by role", () => {
	let t: TestApp;
	let owner: TestAccount;
	let member: { headers: Record<string, string> } & TestAccount;

	before(async () => {
		t = await makeApp();
		owner = await buildAccount(t.app, { name: "Owner" });
		const person = await buildAccount(t.app, { name: "Member" });
		await addMember(t.app, owner.workspaceId, person.accountId, "member");
		member = { ...person, headers: { ...person.headers, "x-workspace": owner.workspaceId } };
		const post = async (payload: Record<string, unknown>) => {
			const res = await t.app.inject({
				method: "POST",
				url: "/api/collections/records/records",
				headers: owner.headers,
				payload,
			});
			assert.equal(res.statusCode, 200, res.body);
			return res.json() as { id: string };
		};
		const pin = await post({ key: "bank_pin", value: "SECRET-PIN-4711", hidden: true });
		await post({ key: "pin_alias", alias: pin.id });
		await post({ key: "city", value: "OPEN-CITY-Lyon" });
	});
	after(() => t.close());

	test("the owner's export holds hidden entries; a member's has neither them nor their aliases", async () => {
		const mine = (await exportZip(t.app, owner)).toString("latin1");
		assert.ok(
			mine.includes("SECRET-PIN-4711") && mine.includes("pin_alias") && mine.includes("OPEN-CITY-Lyon"),
		);
		const theirs = (await exportZip(t.app, member)).toString("latin1");
		assert.ok(theirs.includes("OPEN-CITY-Lyon"), "the member exports what a member sees");
		assert.ok(!theirs.includes("SECRET-PIN-4711"), "no hidden value");
		assert.ok(!theirs.includes("bank_pin") && !theirs.includes("pin_alias"), "no hidden key, no alias of it");
	});

	test("a member may not import entries marked hidden; nothing is written", async () => {
		const csv = "key,value,hidden\nsafe_code,9999,true\n";
		const refused = await sendImport(t.app, member, "csv", csv);
		assert.equal(refused.statusCode, 403, refused.body);
		const listed = await t.app.inject({
			method: "GET",
			url: "/api/collections/records/records?filter=key%3D%27safe_code%27",
			headers: owner.headers,
		});
		assert.equal(listed.json().totalItems, 0);
		const allowed = await sendImport(t.app, owner, "csv", csv);
		assert.equal(allowed.statusCode, 200, allowed.body);
	});

	test("a browser's own download: a file token opens the export as its account's role now", async () => {
		const mint = async (headers: Record<string, string>) => {
			const res = await t.app.inject({ method: "POST", url: "/api/files/token", headers });
			assert.equal(res.statusCode, 200, res.body);
			return (res.json() as { token: string }).token;
		};
		const download = (token: string) =>
			t.app.inject({ method: "GET", url: `/api/vault/export?token=${encodeURIComponent(token)}` });

		const mine = await download(await mint(owner.headers));
		assert.equal(mine.statusCode, 200, mine.body);
		assert.equal(mine.headers["content-type"], "application/zip");
		assert.match(
			String(mine.headers["content-disposition"]),
			/attachment; filename="vault-\d{4}-\d{2}-\d{2}\.zip"/,
		);
		assert.ok(mine.rawPayload.toString("latin1").includes("SECRET-PIN-4711"));

		const memberToken = await mint(member.headers);
		const theirs = await download(memberToken);
		assert.equal(theirs.statusCode, 200, theirs.body);
		assert.ok(!theirs.rawPayload.toString("latin1").includes("SECRET-PIN-4711"), "the member's role holds");

		// The role at download time counts: promoted to admin, the same token now sees hidden entries.
		await t.app.store.db
			.updateTable("members")
			.set({ role: "admin" })
			.where("account", "=", member.accountId)
			.where("workspace", "=", owner.workspaceId)
			.execute();
		const promoted = await download(memberToken);
		assert.ok(promoted.rawPayload.toString("latin1").includes("SECRET-PIN-4711"));
		// Out of the workspace, the token opens nothing.
		await t.app.store.db
			.deleteFrom("members")
			.where("account", "=", member.accountId)
			.where("workspace", "=", owner.workspaceId)
			.execute();
		const gone = await download(memberToken);
		assert.equal(gone.statusCode, 401, gone.body);
		assert.equal(gone.json().code, "file_download_invalid");

		const unknown = await download("not-a-token");
		assert.equal(unknown.statusCode, 401);
		assert.equal(unknown.json().code, "file_download_invalid");
		const key = buildApiKey(t.app, owner);
		const keyed = await download(await mint(key.headers));
		assert.equal(keyed.statusCode, 403, keyed.body);
		assert.equal(keyed.json().code, "api_key_scope_missing");
		const bare = await t.app.inject({ method: "GET", url: "/api/vault/export" });
		assert.equal(bare.statusCode, 401);
	});
});
