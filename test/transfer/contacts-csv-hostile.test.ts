// Contacts from vCard and entries from CSV, each previewed first and refused naming the card or
// line at fault; and archives no export of ours writes (a name climbing out of its folder, too many
// entries, a zip bomb, not a zip at all) refused with a clear 4xx before anything is written.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import ICAL from "ical.js";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";
import { createSection } from "../shares/helpers.ts";
import { sendImport, vaultOf } from "./helpers.ts";
import { rawZip } from "./zip-bytes.ts";

const VCARDS = [
	"BEGIN:VCARD",
	"VERSION:4.0",
	"FN:Ada Lovelace",
	"N:Lovelace;Ada;;;",
	"EMAIL;TYPE=work:ada@example.org",
	"TEL;TYPE=cell:+44 20 7946 0958",
	"ADR;TYPE=home:;;12 St James's Square;London;;SW1Y 4JH;United Kingdom",
	"ORG:Analytical Engines",
	"BDAY:18151210",
	"X-CUSTOM:left out",
	"END:VCARD",
	"BEGIN:VCARD",
	"VERSION:3.0",
	"FN:Jürgen Groß",
	"EMAIL:j@example.de",
	"END:VCARD",
	"",
].join("\r\n");

describe("vCard and CSV imports", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp();
	});
	after(() => t.close());

	test("vCard: the preview shows a section per contact and its entries; the import makes them", async () => {
		const who = await buildAccount(t.app);
		// The sample is a real vCard: a parser we did not write reads two cards.
		assert.equal(
			new ICAL.Component(ICAL.parse(`${VCARDS.split("END:VCARD")[0]}END:VCARD\r\n`) as never).name,
			"vcard",
		);
		const preview = await sendImport(t.app, who, "vcard", VCARDS, true);
		assert.equal(preview.statusCode, 200, preview.body);
		const report = preview.json();
		assert.deepEqual(
			report.sections.map((s: { key: string; name: string }) => [s.key, s.name]),
			[
				["ada-lovelace", "Ada Lovelace"],
				["jurgen-gross", "Jürgen Groß"],
			],
		);
		assert.equal(report.counts.entries, 8);
		assert.equal(report.counts.skipped, 1);
		assert.equal((await vaultOf(t.app, who)).entries.length, 0);

		const res = await sendImport(t.app, who, "vcard", VCARDS);
		assert.equal(res.statusCode, 200, res.body);
		const vault = await vaultOf(t.app, who);
		const ada = vault.entries.filter((e) => e.section === "ada-lovelace");
		assert.deepEqual(
			ada.map((e) => [e.key, e.name, e.value]),
			[
				["address", "Address (home)", "12 St James's Square, London, SW1Y 4JH, United Kingdom"],
				["birthday", "Birthday", "1815-12-10"],
				["email", "Email (work)", "ada@example.org"],
				["name", "Name", "Ada Lovelace"],
				["org", "Organization", "Analytical Engines"],
				["phone", "Phone (cell)", "+44 20 7946 0958"],
			],
		);
	});

	test("vCard: a card without a name or one that cannot be read is refused by number and line", async () => {
		const who = await buildAccount(t.app);
		const bad = `${VCARDS}BEGIN:VCARD\r\nVERSION:4.0\r\nEMAIL:nobody@example.org\r\nEND:VCARD\r\nBEGIN:VCARD\r\nFN Broken\r\nEND:VCARD\r\n`;
		const preview = await sendImport(t.app, who, "vcard", bad, true);
		assert.equal(preview.statusCode, 200);
		assert.deepEqual(
			preview.json().refusals.map((r: { at: string }) => r.at),
			["card 3 (line 17)", "card 4 (line 21)"],
		);
		const res = await sendImport(t.app, who, "vcard", bad);
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().code, "import_invalid");
		assert.match(res.json().detail, /^card 3 \(line 17\): has no name/);
		assert.equal((await vaultOf(t.app, who)).entries.length, 0);
		const notCard = await sendImport(t.app, who, "vcard", "hello\r\n");
		assert.match(notCard.json().detail, /^line 1: /);
	});

	test("CSV: columns in any order, sections by key or name, hidden; a share's own CSV reads back", async () => {
		const who = await buildAccount(t.app);
		await createSection(t.app, who, "bank");
		const csv =
			'\uFEFFValue,Key,Name,Section,Hidden\r\n"DE89 3704",iban,IBAN,bank,yes\r\n"line one\nline two",note,Note,Travel plans,\r\n\'=1+1,formula,,,false\r\n';
		const preview = await sendImport(t.app, who, "csv", csv, true);
		assert.equal(preview.statusCode, 200, preview.body);
		const report = preview.json();
		assert.deepEqual(report.sections, [{ key: "travel-plans", name: "Travel plans", existing: false }]);
		assert.deepEqual(
			report.entries.map((e: { at: string; key: string }) => [e.at, e.key]),
			[
				["line 2", "iban"],
				["line 4", "note"],
				["line 5", "formula"],
			],
		);
		const res = await sendImport(t.app, who, "csv", csv);
		assert.equal(res.statusCode, 200, res.body);
		const vault = await vaultOf(t.app, who);
		assert.deepEqual(
			vault.entries.map((e) => [e.key, e.name, e.value, e.section, e.hidden]),
			[
				["formula", "formula", "=1+1", null, false],
				["iban", "IBAN", "DE89 3704", "bank", true],
				["note", "Note", "line one\nline two", "travel-plans", false],
			],
		);
		// Semicolons, as spreadsheets in much of Europe write them.
		const semi = await sendImport(t.app, who, "csv", "key;value\ncity;Köln, Altstadt\n", true);
		assert.equal(semi.json().entries[0].key, "city");
	});

	test("CSV: a bad key, an unknown column, an unclosed quote are refused naming the line", async () => {
		const who = await buildAccount(t.app);
		const badKey = await sendImport(t.app, who, "csv", "key,value\nok,1\nNot A Key,2\n");
		assert.equal(badKey.statusCode, 400);
		assert.match(badKey.json().detail, /^line 3: key "Not A Key"/);
		const column = await sendImport(t.app, who, "csv", "key,colour\na,red\n");
		assert.match(column.json().detail, /^line 1: unknown column "colour"/);
		const quote = await sendImport(t.app, who, "csv", 'key,value\na,1\nb,"open\n');
		assert.equal(quote.statusCode, 400);
		assert.match(quote.json().detail, /^line \d+: /);
		const hidden = await sendImport(t.app, who, "csv", "key,value,hidden\na,1,maybe\n");
		assert.match(hidden.json().detail, /^line 2: hidden "maybe"/);
		const long = await sendImport(t.app, who, "csv", `key,value\na,${"x".repeat(120_000)}\n`);
		assert.equal(long.statusCode, 400);
		assert.match(long.json().detail, /^line \d+: /);
		assert.equal((await vaultOf(t.app, who)).entries.length, 0);
	});

	test("an upload over the text cap is refused before it is read", async () => {
		const who = await buildAccount(t.app);
		const res = await sendImport(t.app, who, "csv", Buffer.alloc(9 * 1024 * 1024, 0x61));
		assert.equal(res.statusCode, 413);
		assert.equal(res.json().code, "file_too_large");
	});
});

describe("hostile archives", () => {
	let t: TestApp;
	const doc = JSON.stringify({
		format: "svc-vault-export",
		version: 1,
		exported: new Date().toISOString(),
		server: "x",
		workspace: "w",
		sections: [],
		entries: [],
		templates: [],
	});
	before(async () => {
		t = await makeApp();
	});
	after(() => t.close());

	const refused = async (bytes: Buffer, status: number, code: string, detail: RegExp) => {
		const who = await buildAccount(t.app);
		for (const preview of [true, false]) {
			const res = await sendImport(t.app, who, "archive", bytes, preview);
			assert.equal(res.statusCode, status, res.body);
			assert.equal(res.json().code, code);
			assert.match(res.json().detail, detail);
		}
		assert.equal((await vaultOf(t.app, who)).entries.length, 0);
	};

	test("a name climbing out of its folder", async () => {
		await refused(
			rawZip([
				{ name: "vault.json", data: Buffer.from(doc) },
				{ name: "files/../../etc/passwd", data: Buffer.from("x") },
			]),
			400,
			"import_invalid",
			/invalid relative path/,
		);
		await refused(
			rawZip([{ name: "/abs/vault.json", data: Buffer.from(doc) }]),
			400,
			"import_invalid",
			/absolute path/,
		);
	});

	test("more entries than an export can hold", async () => {
		const many = Array.from({ length: 40_002 }, (_, i) => ({ name: `f${i}`, data: Buffer.alloc(0) }));
		await refused(rawZip(many), 413, "import_too_large", /40002 entries/);
	});

	test("a zip bomb: one deflated entry that expands a thousandfold", async () => {
		await refused(
			rawZip([
				{ name: "vault.json", data: Buffer.from(doc) },
				{ name: "files/a/zeros", data: Buffer.alloc(40 * 1024 * 1024), deflate: true },
			]),
			413,
			"import_too_large",
			/zip bomb/,
		);
	});

	test("not a zip, no vault.json, another format, a file the document does not name", async () => {
		await refused(Buffer.from("plain text, not a zip"), 400, "import_invalid", /not a readable zip/);
		await refused(
			rawZip([{ name: "other.json", data: Buffer.from("{}") }]),
			400,
			"import_invalid",
			/no vault\.json/,
		);
		const who = await buildAccount(t.app);
		const other = rawZip([
			{ name: "vault.json", data: Buffer.from(JSON.stringify({ format: "something", version: 1 })) },
		]);
		const res = await sendImport(t.app, who, "archive", other);
		assert.equal(res.json().detail, '/format: must be "svc-vault-export"');
		const extra = rawZip([
			{ name: "vault.json", data: Buffer.from(doc) },
			{ name: "stowaway.exe", data: Buffer.from("MZ") },
		]);
		const stow = await sendImport(t.app, who, "archive", extra);
		assert.equal(stow.statusCode, 400);
		assert.match(stow.json().detail, /^stowaway\.exe: /);
	});

	test("a request that is not multipart, or has no file part", async () => {
		const who = await buildAccount(t.app);
		const json = await t.app.inject({
			method: "POST",
			url: "/api/vault/import?format=csv",
			headers: who.headers,
			payload: { file: "key,value" },
		});
		assert.equal(json.statusCode, 415);
		const form = new FormData();
		form.append("note", "no file");
		const empty = await t.app.inject({
			method: "POST",
			url: "/api/vault/import?format=csv",
			headers: who.headers,
			payload: form,
		});
		assert.equal(empty.statusCode, 400);
		const format = await sendImport(t.app, who, "pdf" as never, "x");
		assert.equal(format.statusCode, 400);
		assert.equal(format.json().code, "validation_failed");
	});
});
