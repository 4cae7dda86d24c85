// The vault export and import follow the roles (docs/api.md "Roles: who sees and does what"): a
// member's export has no hidden entry and no alias of one, as if they did not exist, while the
// owner's has them; only owners and admins may import entries marked hidden.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";
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
});
