// Hidden vault entries against every role (docs/api.md "Roles: who sees and does what"): owners and
// admins see and change them; for members and viewers a hidden record, an alias of one and a hidden
// file do not exist (absent from lists, filters, searches and counts; a view is 404 with the body of
// an unknown id), a share naming one lists without it and keeps its slug, and nothing they send
// names, hides, shares or moves one. Expectations come from the docs, never from what was answered.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type Role, seesHidden, writes } from "./role-table.ts";

const C = "/api/collections";
const ROLES: Role[] = ["owner", "admin", "member", "viewer"];

let t: TestApp;
before(async () => {
	t = await makeApp();
});
after(() => t.close());

type Method = "GET" | "POST" | "PATCH" | "DELETE";

async function send(who: TestAccount, ws: string, method: Method, url: string, payload?: unknown) {
	const res = await t.app.inject({
		method,
		url,
		headers: { ...who.headers, "x-workspace": ws },
		...(payload === undefined ? {} : { payload: payload as object }),
	});
	return { status: res.statusCode, body: res.body, headers: res.headers, json: () => res.json() };
}

async function made(who: TestAccount, ws: string, collection: string, body: unknown): Promise<string> {
	const res = await send(who, ws, "POST", `${C}/${collection}/records`, body);
	assert.equal(res.status, 200, res.body);
	return res.json().id as string;
}

function fileForm(fields: Record<string, string>, bytes: string, name: string) {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) f.append(k, v);
	f.append("file", new Blob([new TextEncoder().encode(bytes)], { type: "text/plain" }), name);
	return f;
}

interface Vault {
	ws: string;
	owner: TestAccount;
	actor: TestAccount;
	visible: string;
	hidden: string;
	alias: string;
	hiddenFile: string;
	section: string;
	plainSection: string;
	mixedShare: string;
	plainShare: string;
}

/** A workspace whose owner keeps a visible, a hidden and an aliased entry, a hidden file and shares. */
async function vault(role: Role): Promise<Vault> {
	const owner = await buildAccount(t.app, { name: "Owner" });
	const ws = await made(owner, owner.workspaceId, "workspaces", { name: `Hidden ${role}` });
	let actor = owner;
	if (role !== "owner") {
		actor = await buildAccount(t.app, { name: `Actor ${role}` });
		await addMember(t.app, ws, actor.accountId, role);
	}
	const section = await made(owner, ws, "sections", { key: "bank", name: "Bank" });
	const plainSection = await made(owner, ws, "sections", { key: "home", name: "Home" });
	const visible = await made(owner, ws, "records", { key: "city", value: "Bern", section: plainSection });
	const hidden = await made(owner, ws, "records", {
		key: "iban",
		value: "secret-CH93",
		hidden: true,
		section,
	});
	const alias = await made(owner, ws, "records", { key: "iban_copy", alias: hidden });
	const up = await t.app.inject({
		method: "POST",
		url: `${C}/records/records`,
		headers: { ...owner.headers, "x-workspace": ws },
		payload: fileForm({ key: "passport", hidden: "true" }, "secret-scan", "passport.txt"),
	});
	assert.equal(up.statusCode, 200, up.body);
	const hiddenFile = up.json().id as string;
	const mixedShare = await made(owner, ws, "links", { label: "Mixed", records: [visible, hidden] });
	const plainShare = await made(owner, ws, "links", { label: "Plain", records: [visible] });
	return {
		ws,
		owner,
		actor,
		visible,
		hidden,
		alias,
		hiddenFile,
		section,
		plainSection,
		mixedShare,
		plainShare,
	};
}

/** What a refusal of an id the caller may not see must look like: exactly an unknown id's answer. */
async function unknownAnswer(v: Vault, collection: string) {
	return send(v.actor, v.ws, "GET", `${C}/${collection}/records/does-not-exist`);
}

const forbidden = (res: { status: number; json: () => { code: string; scope?: string } }, scope: string) => {
	assert.equal(res.status, 403);
	assert.equal(res.json().code, "forbidden");
	assert.equal(res.json().scope, scope);
};

for (const role of ROLES) {
	const sees = seesHidden(role);
	describe(`${role}: hidden entries`, () => {
		let v: Vault;
		before(async () => {
			v = await vault(role);
		});

		test(sees ? "lists, counts, filters and searches them" : "never meets them in a list", async () => {
			const list = await send(v.actor, v.ws, "GET", `${C}/records/records?perPage=100`);
			assert.equal(list.status, 200, list.body);
			const ids = (list.json().items as { id: string }[]).map((r) => r.id).sort();
			const want = (sees ? [v.visible, v.hidden, v.alias, v.hiddenFile] : [v.visible]).sort();
			assert.deepEqual(ids, want);
			assert.equal(list.json().totalItems, want.length);
			assert.equal(list.body.includes("secret-CH93"), sees);

			const filtered = await send(
				v.actor,
				v.ws,
				"GET",
				`${C}/records/records?filter=${encodeURIComponent("hidden = true")}`,
			);
			assert.equal(filtered.json().totalItems, sees ? 2 : 0);
			const searched = await send(
				v.actor,
				v.ws,
				"GET",
				`${C}/records/records?filter=${encodeURIComponent('value ~ "secret"')}`,
			);
			assert.equal(searched.json().totalItems, sees ? 2 : 0, searched.body);
			const byKey = await send(
				v.actor,
				v.ws,
				"GET",
				`${C}/records/records?filter=${encodeURIComponent('key = "iban"')}`,
			);
			assert.equal(byKey.json().totalItems, sees ? 1 : 0);
		});

		test(sees ? "views them" : "a view is 404, the same as an unknown id", async () => {
			const unknown = await unknownAnswer(v, "records");
			assert.equal(unknown.status, 404);
			for (const id of [v.hidden, v.alias, v.hiddenFile]) {
				const res = await send(v.actor, v.ws, "GET", `${C}/records/records/${id}`);
				if (sees) assert.equal(res.status, 200, res.body);
				else
					assert.deepEqual(
						{ status: res.status, body: res.body },
						{ status: unknown.status, body: unknown.body },
					);
			}
		});

		test("changing a hidden record: owner and admin; 404 for a member; a viewer changes nothing", async () => {
			const res = await send(v.actor, v.ws, "PATCH", `${C}/records/records/${v.hidden}`, {
				value: "changed",
			});
			if (sees) assert.equal(res.status, 200, res.body);
			else if (writes(role)) assert.equal(res.status, 404, res.body);
			else forbidden(res, "record:write");
			const after = await send(v.owner, v.ws, "GET", `${C}/records/records/${v.hidden}`);
			assert.equal(after.json().value, sees ? "changed" : "secret-CH93");
		});

		test("hiding an entry is for owners and admins", async () => {
			const res = await send(v.actor, v.ws, "POST", `${C}/records/records`, {
				key: "pin",
				value: "1234",
				hidden: true,
			});
			if (sees) assert.equal(res.status, 200, res.body);
			else forbidden(res, writes(role) ? "hidden:write" : "record:write");
			const mine = await send(v.actor, v.ws, "POST", `${C}/records/records`, { key: "note", value: "n" });
			assert.equal(mine.status, writes(role) ? 200 : 403, mine.body);
			if (mine.status === 200) {
				const hide = await send(v.actor, v.ws, "PATCH", `${C}/records/records/${mine.json().id}`, {
					hidden: true,
				});
				if (sees) assert.equal(hide.status, 200, hide.body);
				else forbidden(hide, "hidden:write");
			}
		});

		test("an alias of a hidden record reads as an unknown target", async () => {
			const res = await send(v.actor, v.ws, "POST", `${C}/records/records`, { key: "peek", alias: v.hidden });
			if (sees) assert.equal(res.status, 200, res.body);
			else if (writes(role)) {
				assert.equal(res.status, 400, res.body);
				const unknown = await send(v.actor, v.ws, "POST", `${C}/records/records`, {
					key: "peek",
					alias: "nope",
				});
				assert.deepEqual(res.json(), unknown.json());
			} else forbidden(res, "record:write");
		});

		test(sees ? "downloads a hidden file" : "a hidden file is 404", async () => {
			const minted = await send(v.actor, v.ws, "POST", "/api/files/token");
			assert.equal(minted.status, 200, minted.body);
			const token = minted.json().token as string;
			const res = await t.app.inject({ method: "GET", url: `/api/files/${v.hiddenFile}?token=${token}` });
			assert.equal(res.statusCode, sees ? 200 : 404, res.body);
			assert.equal(res.body.includes("secret-scan"), sees);
			const preview = await send(v.actor, v.ws, "POST", "/api/stamp-preview", {
				record: v.hiddenFile,
				text: "copy",
			});
			if (!sees) assert.equal(preview.status, 404, preview.body);
		});

		test(
			sees
				? "a share lists its hidden record and its slug"
				: "a share leaves the hidden record out and keeps its slug",
			async () => {
				const list = await send(v.actor, v.ws, "GET", `${C}/links/records?perPage=100`);
				assert.equal(list.status, 200, list.body);
				const byId = new Map(
					(list.json().items as { id: string; records: string[]; slug: string | null }[]).map((l) => [
						l.id,
						l,
					]),
				);
				const mixed = byId.get(v.mixedShare);
				const plain = byId.get(v.plainShare);
				assert.deepEqual(mixed?.records, sees ? [v.visible, v.hidden] : [v.visible]);
				assert.equal(mixed?.slug === null, !sees);
				assert.notEqual(plain?.slug, null);
				const one = await send(v.actor, v.ws, "GET", `${C}/links/records/${v.mixedShare}`);
				assert.deepEqual(one.json().records, mixed?.records);
				assert.equal(one.json().slug === null, !sees);
			},
		);

		test("sharing a hidden record or a section holding one: owner and admin only", async () => {
			const byRecord = await send(v.actor, v.ws, "POST", `${C}/links/records`, { records: [v.hidden] });
			const bySection = await send(v.actor, v.ws, "POST", `${C}/links/records`, { sections: [v.section] });
			const plain = await send(v.actor, v.ws, "POST", `${C}/links/records`, { sections: [v.plainSection] });
			if (sees) {
				for (const res of [byRecord, bySection, plain]) assert.equal(res.status, 200, res.body);
			} else if (writes(role)) {
				const unknown = await send(v.actor, v.ws, "POST", `${C}/links/records`, { records: ["nope"] });
				assert.deepEqual(
					{ status: byRecord.status, body: byRecord.json() },
					{ status: 400, body: unknown.json() },
				);
				forbidden(bySection, "hidden:write");
				assert.equal(plain.status, 200, plain.body);
			} else {
				for (const res of [byRecord, bySection, plain]) forbidden(res, "link:write");
			}
		});

		test("changing or deleting a share that holds a hidden record: owner and admin only", async () => {
			const label = await send(v.actor, v.ws, "PATCH", `${C}/links/records/${v.mixedShare}`, {
				label: "Renamed",
			});
			const plain = await send(v.actor, v.ws, "PATCH", `${C}/links/records/${v.plainShare}`, {
				label: "Renamed",
			});
			if (sees) {
				assert.equal(label.status, 200, label.body);
				assert.equal(plain.status, 200, plain.body);
			} else {
				forbidden(label, writes(role) ? "hidden:write" : "link:write");
				if (writes(role)) assert.equal(plain.status, 200, plain.body);
				else forbidden(plain, "link:write");
				const del = await send(v.actor, v.ws, "DELETE", `${C}/links/records/${v.mixedShare}`);
				forbidden(del, writes(role) ? "hidden:write" : "link:write");
				const still = await send(v.owner, v.ws, "GET", `${C}/links/records/${v.mixedShare}`);
				assert.equal(still.json().label, "Mixed");
			}
		});

		test("deleting a section holding a hidden record: owner and admin only", async () => {
			const res = await send(v.actor, v.ws, "DELETE", `${C}/sections/records/${v.section}`);
			if (sees) assert.equal(res.status, 204, res.body);
			else forbidden(res, writes(role) ? "hidden:write" : "section:write");
			const held = await send(v.owner, v.ws, "GET", `${C}/records/records/${v.hidden}`);
			assert.equal(held.json().section, sees ? null : v.section);
		});

		test("an API key meets hidden entries as its creator's role does", async () => {
			const key = await send(v.actor, v.ws, "POST", `${C}/apiKeys/records`, {
				name: "k",
				permissions: ["links:read"],
			});
			assert.equal(key.status, 200, key.body);
			const res = await t.app.inject({
				method: "GET",
				url: `${C}/links/records/${v.mixedShare}`,
				headers: { "x-api-key": key.headers["x-plain-token"] as string },
			});
			assert.equal(res.statusCode, 200, res.body);
			assert.equal(res.json().records.includes(v.hidden), sees);
			const hiddenKey = await send(v.actor, v.ws, "POST", `${C}/apiKeys/records`, {
				name: "k",
				permissions: ["vault:hidden"],
			});
			assert.equal(hiddenKey.status, 400);
			assert.equal(hiddenKey.json().code, "api_key_vault_scope");
			const above = await send(v.actor, v.ws, "POST", `${C}/apiKeys/records`, {
				name: "k",
				permissions: ["links:write"],
			});
			assert.equal(above.status, writes(role) ? 200 : 403, above.body);
		});
	});
}

describe("a role change counts from the next request", () => {
	test("an admin demoted to member stops seeing hidden entries, a viewer promoted starts writing", async () => {
		const v = await vault("admin");
		const memberId = (
			await t.app.store.db
				.selectFrom("members")
				.select("id")
				.where("workspace", "=", v.ws)
				.where("account", "=", v.actor.accountId)
				.executeTakeFirstOrThrow()
		).id;
		const key = await send(v.actor, v.ws, "POST", `${C}/apiKeys/records`, {
			name: "k",
			permissions: ["links:write"],
		});
		const apiKey = key.headers["x-plain-token"] as string;
		const byKey = () =>
			t.app.inject({
				method: "GET",
				url: `${C}/links/records/${v.mixedShare}`,
				headers: { "x-api-key": apiKey },
			});
		assert.equal((await send(v.actor, v.ws, "GET", `${C}/records/records/${v.hidden}`)).status, 200);
		assert.ok((await byKey()).json().records.includes(v.hidden));

		const demote = await send(v.owner, v.ws, "PATCH", `${C}/members/records/${memberId}`, { role: "member" });
		assert.equal(demote.status, 200, demote.body);
		assert.equal((await send(v.actor, v.ws, "GET", `${C}/records/records/${v.hidden}`)).status, 404);
		assert.ok(!(await byKey()).json().records.includes(v.hidden));

		const toViewer = await send(v.owner, v.ws, "PATCH", `${C}/members/records/${memberId}`, {
			role: "viewer",
		});
		assert.equal(toViewer.status, 200, toViewer.body);
		const write = await send(v.actor, v.ws, "POST", `${C}/records/records`, { key: "x", value: "y" });
		forbidden(write, "record:write");
		const keyWrite = await t.app.inject({
			method: "PATCH",
			url: `${C}/links/records/${v.plainShare}`,
			headers: { "x-api-key": apiKey },
			payload: { status: "paused" },
		});
		assert.equal(keyWrite.statusCode, 403, keyWrite.body);
		assert.equal(keyWrite.json().code, "api_key_scope_missing");

		const back = await send(v.owner, v.ws, "PATCH", `${C}/members/records/${memberId}`, { role: "admin" });
		assert.equal(back.status, 200, back.body);
		assert.equal((await send(v.actor, v.ws, "GET", `${C}/records/records/${v.hidden}`)).status, 200);
	});

	test("an entry hidden by the owner is gone for a member at once", async () => {
		const v = await vault("member");
		assert.equal((await send(v.actor, v.ws, "GET", `${C}/records/records/${v.visible}`)).status, 200);
		const hide = await send(v.owner, v.ws, "PATCH", `${C}/records/records/${v.visible}`, { hidden: true });
		assert.equal(hide.status, 200, hide.body);
		assert.equal((await send(v.actor, v.ws, "GET", `${C}/records/records/${v.visible}`)).status, 404);
		const share = await send(v.actor, v.ws, "GET", `${C}/links/records/${v.plainShare}`);
		assert.deepEqual(share.json().records, []);
		assert.equal(share.json().slug, null);
	});
});
