// An export imported into an empty workspace gives back the same entries, sections, aliases,
// templates and files, byte for byte (issue 40.13); the archive passes `unzip -t` (Info-ZIP, a tool
// we did not write); a damaged document is refused naming its JSON pointer and writes nothing; and
// a key, a guest or another workspace never reach the vault this way.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { createSection, createValue, uploadFile } from "../shares/helpers.ts";
import { exportZip, fileBytes, sendImport, sha, TEMPLATES, vaultOf } from "./helpers.ts";
import { rawZip } from "./zip-bytes.ts";

const run = promisify(execFile);
// A PNG's signature leads so the type is sniffed; the rest is random, so it cannot be compressed.
const png = Buffer.concat([Buffer.from("89504e470d0a1a0a", "hex"), crypto.randomBytes(300_000)]);
const pdf = Buffer.from("%PDF-1.4\n% a small document\n%%EOF\n");

describe("vault export and import", () => {
	let t: TestApp;
	let owner: TestAccount;
	let zip: Buffer;

	before(async () => {
		t = await makeApp();
		owner = await buildAccount(t.app);
		const { app } = t;
		const people = await createSection(app, owner, "people", 2);
		await createSection(app, owner, "money", 1);
		const email = await createValue(app, owner, {
			key: "email",
			name: "Work email",
			value: "ada@example.org",
			section: people.id,
		});
		await createValue(app, owner, { key: "email", name: "Same email", alias: email.id });
		await createValue(app, owner, {
			key: "iban",
			name: "IBAN",
			value: "DE89 3704 0044 0532 0130 00",
			hidden: true,
		});
		await createValue(app, owner, {
			key: "note",
			name: "Lines",
			value: 'first\nsecond, "quoted"; ünïcödé ✓',
		});
		await uploadFile(
			app,
			owner,
			{ key: "passport", section: people.id },
			{ bytes: png, name: "passport scan.png" },
		);
		await uploadFile(app, owner, { key: "contract", name: "Contract" }, { bytes: pdf, name: "contract.pdf" });
		const tpl = await app.inject({
			method: "POST",
			url: TEMPLATES,
			headers: owner.headers,
			payload: {
				name: "Onboarding",
				items: [
					{ key: "name", label: "Name", type: "text", required: true },
					{
						key: "dob",
						label: "Date of birth",
						type: "date",
						required: false,
						description: "As on the passport",
					},
				],
			},
		});
		assert.equal(tpl.statusCode, 200, tpl.body);
		zip = await exportZip(app, owner);
	});
	after(() => t.close());

	test("the archive passes unzip -t and holds vault.json and each file beside it", async () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-export-"));
		try {
			const file = path.join(dir, "vault.zip");
			fs.writeFileSync(file, zip);
			const { stdout } = await run("unzip", ["-t", file]);
			assert.match(stdout, /No errors detected/);
			const doc = JSON.parse((await run("unzip", ["-p", file, "vault.json"], { maxBuffer: 1 << 24 })).stdout);
			assert.equal(doc.format, "svc-vault-export");
			assert.equal(doc.version, 1);
			assert.equal(doc.entries.length, 6);
			const passport = doc.entries.find((e: { key: string }) => e.key === "passport");
			assert.match(passport.file.path, /^files\/[a-z0-9]+\/passport scan\.png$/);
			const bytes = (
				await run("unzip", ["-p", file, passport.file.path], { encoding: "buffer", maxBuffer: 1 << 24 })
			).stdout;
			assert.equal(sha(bytes), sha(png));
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	});

	test("a preview into an empty workspace lists everything and writes nothing", async () => {
		const other = await buildAccount(t.app);
		const res = await sendImport(t.app, other, "archive", zip, true);
		assert.equal(res.statusCode, 200, res.body);
		const report = res.json();
		assert.equal(report.preview, true);
		assert.deepEqual(report.counts, {
			sections: 2,
			entries: 6,
			files: 2,
			bytes: png.length + pdf.length,
			templates: 1,
			skipped: 0,
		});
		assert.deepEqual(report.refusals, []);
		assert.equal((await vaultOf(t.app, other)).entries.length, 0);
	});

	test("imported into an empty workspace, the vault comes back the same, files byte for byte", async () => {
		const other = await buildAccount(t.app);
		const res = await sendImport(t.app, other, "archive", zip);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().preview, false);
		const before = await vaultOf(t.app, owner);
		const after = await vaultOf(t.app, other);
		assert.deepEqual(after.sections, before.sections);
		assert.deepEqual(after.entries, before.entries);
		assert.deepEqual(after.templates, before.templates);
		for (const f of after.fileIds) {
			const bytes = await fileBytes(t.app, other, f.id);
			assert.equal(sha(bytes), sha(f.name === "Contract" ? pdf : png), f.name);
		}
		// And the copy exports to the same document, ids and times aside.
		const again = await exportZip(t.app, other);
		assert.equal(again.length, zip.length);
	});

	test("a document that breaks a rule is refused naming its JSON pointer, and nothing is written", async () => {
		const other = await buildAccount(t.app);
		const doc = {
			format: "svc-vault-export",
			version: 1,
			exported: new Date().toISOString(),
			server: "x",
			workspace: "w",
			sections: [],
			entries: [
				{
					id: "a",
					key: "ok",
					name: "Fine",
					type: "value",
					value: "1",
					section: null,
					hidden: false,
					alias: null,
					file: null,
				},
				{
					id: "b",
					key: "Bad Key",
					name: "Bad",
					type: "value",
					value: "2",
					section: null,
					hidden: false,
					alias: null,
					file: null,
				},
			],
			templates: [],
		};
		const bad = rawZip([{ name: "vault.json", data: Buffer.from(JSON.stringify(doc)) }]);
		const preview = await sendImport(t.app, other, "archive", bad, true);
		assert.equal(preview.statusCode, 200, preview.body);
		assert.equal(preview.json().refusals[0].at, "/entries/1/key");
		const res = await sendImport(t.app, other, "archive", bad);
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().code, "import_invalid");
		assert.match(res.json().detail, /^\/entries\/1\/key: /);
		assert.equal((await vaultOf(t.app, other)).entries.length, 0);

		// An alias onto an alias, and a section nobody made: the vault's own rules, by pointer.
		doc.entries = [
			{
				id: "a",
				key: "ok",
				name: "Fine",
				type: "value",
				value: "1",
				section: null,
				hidden: false,
				alias: null,
				file: null,
			},
			{
				id: "b",
				key: "b",
				name: "B",
				type: "value",
				value: "",
				section: null,
				hidden: false,
				alias: "a",
				file: null,
			},
			{
				id: "c",
				key: "c",
				name: "C",
				type: "value",
				value: "",
				section: "nowhere",
				hidden: false,
				alias: "b",
				file: null,
			},
		] as never;
		const chain = await sendImport(
			t.app,
			other,
			"archive",
			rawZip([{ name: "vault.json", data: Buffer.from(JSON.stringify(doc)) }]),
		);
		assert.equal(chain.statusCode, 400);
		assert.deepEqual(
			chain.json().refusals.map((r: { at: string }) => r.at),
			["/entries/2", "/entries/2"],
		);
		assert.equal((await vaultOf(t.app, other)).entries.length, 0);
	});

	test("a file whose bytes do not match the document is refused and leaves no blob behind", async () => {
		const other = await buildAccount(t.app);
		const doc = {
			format: "svc-vault-export",
			version: 1,
			exported: new Date().toISOString(),
			server: "x",
			workspace: "w",
			sections: [],
			entries: [
				{
					id: "f",
					key: "f",
					name: "F",
					type: "file",
					value: null,
					section: null,
					hidden: false,
					alias: null,
					file: {
						path: "files/f/a.bin",
						name: "a.bin",
						type: "application/octet-stream",
						size: 4,
						sha256: sha(Buffer.from("abcd")),
					},
				},
			],
			templates: [],
		};
		const blobsBefore = await countBlobs(t);
		const forged = rawZip([
			{ name: "vault.json", data: Buffer.from(JSON.stringify(doc)) },
			{ name: "files/f/a.bin", data: Buffer.from("abce") },
		]);
		const res = await sendImport(t.app, other, "archive", forged);
		assert.equal(res.statusCode, 400, res.body);
		assert.equal(res.json().refusals[0].at, "/entries/0/file/sha256");
		assert.equal(await countBlobs(t), blobsBefore);
		assert.equal((await vaultOf(t.app, other)).entries.length, 0);
	});

	test("an API key never exports or imports; a guest is not authenticated", async () => {
		const key = buildApiKey(t.app, owner);
		const exp = await t.app.inject({ method: "GET", url: "/api/vault/export", headers: key.headers });
		assert.equal(exp.statusCode, 403);
		assert.equal(exp.json().code, "api_key_scope_missing");
		assert.equal(exp.json().scope, "record:read");
		const imp = await sendImport(t.app, key, "csv", "key,value\na,1\n");
		assert.equal(imp.statusCode, 403);
		assert.equal(imp.json().scope, "record:write");
		const guest = await t.app.inject({ method: "GET", url: "/api/vault/export" });
		assert.equal(guest.statusCode, 401);
		const guestImport = await sendImport(t.app, { headers: {} }, "csv", "key,value\na,1\n");
		assert.equal(guestImport.statusCode, 401);
	});

	test("another workspace's vault is not in the export", async () => {
		const stranger = await buildAccount(t.app);
		const theirs = await exportZip(t.app, stranger);
		assert.ok(!theirs.includes(Buffer.from("ada@example.org")));
	});
});

async function countBlobs(t: TestApp): Promise<number> {
	let n = 0;
	for await (const _ of t.app.blobs.list()) n++;
	return n;
}
