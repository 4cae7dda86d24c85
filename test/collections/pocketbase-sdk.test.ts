// The PocketBase JavaScript SDK (the `pocketbase` npm package, unchanged) against a real listening
// server: every record-service call that maps onto the collections API, as a developer would make
// it. The auth store holds `Bearer <session token>`, which the SDK sends verbatim; an API key goes
// in its own header through `beforeSend` (docs/api.md, "Using the PocketBase SDK").
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import PocketBase, { ClientResponseError, type RecordModel } from "pocketbase";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";

interface VaultRecord extends RecordModel {
	key: string;
	name: string;
	type: "value" | "file";
	value: string | null;
	hidden: boolean;
	version: number;
	file: { name: string; type: string; size: number; sha256: string } | null;
	created: string;
}

describe("the PocketBase SDK", () => {
	let t: TestApp;
	let a: TestAccount;
	let url: string;
	let pb: PocketBase;
	/** Every URL the SDK asked for, to check what it sent. */
	const sent: string[] = [];

	before(async () => {
		t = await makeApp();
		a = await buildAccount(t.app);
		await t.app.listen({ port: 0, host: "127.0.0.1" });
		const address = t.app.server.address();
		assert.ok(address && typeof address === "object");
		url = `http://127.0.0.1:${address.port}`;
		pb = new PocketBase(url);
		pb.authStore.save(`Bearer ${a.token}`, null);
		// The query is added after beforeSend: record what reaches fetch.
		pb.beforeSend = (to, options) => {
			options.fetch = (input, init) => {
				sent.push(String(input));
				return fetch(input, init);
			};
			return { url: to, options };
		};
	});
	after(() => t.close());

	const records = () => pb.collection("records");
	let iban: VaultRecord;
	let passport: VaultRecord;

	test("create from JSON", async () => {
		iban = await records().create<VaultRecord>({ key: "iban", name: "Bank", value: "DE00 1234" });
		assert.equal(iban.id.length, 20);
		assert.equal(iban.key, "iban");
		assert.equal(iban.name, "Bank");
		assert.equal(iban.type, "value");
		assert.equal(iban.value, "DE00 1234");
		assert.equal(iban.version, 1);
	});

	test("create from FormData with a file", async () => {
		const form = new FormData();
		form.append("key", "passport");
		form.append("hidden", "true");
		const bytes = Buffer.from("%PDF-1.4 passport scan");
		form.append("file", new Blob([new Uint8Array(bytes)], { type: "application/pdf" }), "passport.pdf");
		passport = await records().create<VaultRecord>(form);
		assert.equal(passport.type, "file");
		assert.equal(passport.value, null);
		assert.equal(passport.hidden, true);
		assert.deepEqual(passport.file, {
			name: "passport.pdf",
			type: "application/pdf",
			size: bytes.length,
			sha256: (await import("node:crypto")).createHash("sha256").update(bytes).digest("hex"),
		});
		for (const key of ["email", "phone", "address"]) await records().create({ key, value: `${key} value` });
	});

	test("getList with filter, sort and pb.filter placeholders", async () => {
		const list = await records().getList<VaultRecord>(1, 2, {
			filter: pb.filter("hidden = {:hidden} && key != {:not}", { hidden: false, not: "iban" }),
			sort: "key",
		});
		assert.equal(list.page, 1);
		assert.equal(list.perPage, 2);
		assert.equal(list.totalItems, 3);
		assert.equal(list.totalPages, 2);
		assert.deepEqual(
			list.items.map((r) => r.key),
			["address", "email"],
		);
		// A Date placeholder becomes "2025-01-01 00:00:00.000Z", which date fields take.
		const since = await records().getList<VaultRecord>(1, 30, {
			filter: pb.filter("created >= {:since} && name ~ {:part}", { since: new Date(0), part: "ban" }),
		});
		assert.deepEqual(
			since.items.map((r) => r.id),
			[iban.id],
		);
	});

	test("getList with skipTotal and fields", async () => {
		const list = await records().getList<VaultRecord>(1, 30, {
			sort: "-key",
			skipTotal: true,
			fields: "id,key",
		});
		assert.equal(list.totalItems, -1);
		assert.equal(list.totalPages, -1);
		assert.equal(list.items.length, 5);
		assert.deepEqual(list.items[1], { id: passport.id, key: "passport" });
		assert.ok(sent.at(-1)?.includes("skipTotal=true"));
	});

	test("getFullList: 1000 a page by default, and follows pages", async () => {
		const all = await records().getFullList<VaultRecord>({ sort: "key" });
		assert.deepEqual(
			all.map((r) => r.key),
			["address", "email", "iban", "passport", "phone"],
		);
		assert.match(sent.at(-1) ?? "", /perPage=1000/);
		assert.match(sent.at(-1) ?? "", /skipTotal=1/);
		const before = sent.length;
		const paged = await records().getFullList<VaultRecord>({ batch: 2, sort: "-key", fields: "key" });
		assert.deepEqual(paged, [
			{ key: "phone" },
			{ key: "passport" },
			{ key: "iban" },
			{ key: "email" },
			{ key: "address" },
		]);
		assert.equal(sent.length - before, 3, "three pages of two");
	});

	test("getFirstListItem", async () => {
		const found = await records().getFirstListItem<VaultRecord>(
			pb.filter("key = {:key}", { key: "passport" }),
		);
		assert.equal(found.id, passport.id);
		assert.match(sent.at(-1) ?? "", /skipTotal=1/);
		await assert.rejects(
			records().getFirstListItem(pb.filter("key = {:key}", { key: "nothing" })),
			(err: unknown) => err instanceof ClientResponseError && err.status === 404,
		);
	});

	test("getOne, with and without fields", async () => {
		const one = await records().getOne<VaultRecord>(iban.id);
		assert.deepEqual(one, iban);
		const picked = await records().getOne(iban.id, { fields: "id,value" });
		assert.deepEqual(picked, { id: iban.id, value: "DE00 1234" });
	});

	test("update, JSON, FormData, and an object holding a File", async () => {
		const updated = await records().update<VaultRecord>(iban.id, { value: "DE99 8765" });
		assert.equal(updated.value, "DE99 8765");
		assert.equal(updated.version, 2);
		const renamed = await records().update(iban.id, { name: "Main bank" }, { fields: "name,version" });
		assert.deepEqual(renamed, { name: "Main bank", version: 3 });
		const form = new FormData();
		form.append("file", new Blob([new Uint8Array(Buffer.from("%PDF-1.4 renewed"))]), "renewed.pdf");
		const replaced = await records().update<VaultRecord>(passport.id, form);
		assert.equal(replaced.file?.name, "renewed.pdf");
		assert.equal(replaced.version, 2);
		// The SDK makes the form itself and sends `null` in a `@jsonPayload` part.
		const file = new File([new Uint8Array(Buffer.from("%PDF-1.4 third"))], "third.pdf");
		const third = await records().update<VaultRecord>(passport.id, { section: null, hidden: false, file });
		assert.equal(third.file?.name, "third.pdf");
		assert.equal(third.hidden, false);
		assert.equal(third.version, 3);
	});

	test("refusals arrive as ClientResponseError with our problem body", async () => {
		await assert.rejects(
			records().getList(1, 30, { filter: "nope = 1" }),
			(err: unknown) =>
				err instanceof ClientResponseError && err.status === 400 && err.response.code === "filter_invalid",
		);
		await assert.rejects(
			records().getOne(iban.id, { fields: "expand.section" }),
			(err: unknown) =>
				err instanceof ClientResponseError &&
				err.status === 400 &&
				err.response.field === "querystring.fields",
		);
	});

	test("delete deletes", async () => {
		assert.equal(await records().delete(iban.id), true);
		await assert.rejects(
			records().getOne(iban.id),
			(err: unknown) =>
				err instanceof ClientResponseError && err.status === 404 && err.response.code === "not_found",
		);
		const left = await records().getFullList<VaultRecord>({ fields: "id" });
		assert.ok(!left.some((r) => r.id === iban.id));
		assert.equal(left.length, 4);
	});

	test("an API key through beforeSend, minted through the SDK", async () => {
		// The key's token comes once, in a response header: afterSend can read it.
		let token = "";
		const minting = new PocketBase(url);
		minting.authStore.save(`Bearer ${a.token}`, null);
		minting.afterSend = (response, data) => {
			token = response.headers.get("x-plain-token") ?? token;
			return data;
		};
		await minting.collection("apiKeys").create({ name: "sdk", permissions: ["templates:write"] });
		assert.ok(token.length > 20);

		const tool = new PocketBase(url);
		tool.beforeSend = (to, options) => {
			options.headers = { ...options.headers, "X-API-Key": token };
			return { url: to, options };
		};
		const items = [{ key: "name", label: "Name", type: "text", required: true }];
		const made = await tool.collection("templates").create({ name: "Tenancy", items });
		const listed = await tool.collection("templates").getFullList({ fields: "id,name" });
		assert.deepEqual(listed, [{ id: made.id, name: "Tenancy" }]);
		assert.equal(await tool.collection("templates").delete(made.id), true);
		// The vault stays closed to keys, whatever they carry.
		await assert.rejects(
			tool.collection("records").getList(),
			(err: unknown) =>
				err instanceof ClientResponseError &&
				err.status === 403 &&
				err.response.code === "api_key_scope_missing",
		);
	});
});
