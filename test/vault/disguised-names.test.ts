// A sharer cannot disguise a file's extension or a share's label (issue 35.9): bidirectional
// overrides and isolates (U+202E, U+2066...) and C0/C1 controls are stripped from uploaded file
// names and share labels when stored, and never reach `Content-Disposition` (`filename*` included).
// The header is checked for the characters themselves and for their percent-encoded UTF-8.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { contentDisposition, isDisguising, sanitizeFilename } from "../../src/lib/sniff.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, nextIp, uploadFile } from "../shares/helpers.ts";

const RLO = "\u202E";
const ENCODED = /%E2%80%8[EF]|%E2%80%A[A-E]|%E2%81%A[6-9]|%C2%[89]|%D8%9C/i;

let t: TestApp;
let owner: TestAccount;
before(async () => {
	t = await makeApp();
	owner = await buildAccount(t.app);
});
after(() => t.close());

describe("names that disguise what they are", () => {
	test("sanitizeFilename and contentDisposition strip bidi controls and C1 controls", () => {
		assert.equal(sanitizeFilename(`invoice${RLO}fdp.exe`), "invoicefdp.exe");
		assert.equal(sanitizeFilename("a\u2066b\u2069\u0085c\u009b.pdf"), "abc.pdf");
		const header = contentDisposition("attachment", `report${RLO}fdp.exe\u0085`);
		assert.equal(header, `attachment; filename="reportfdp.exe"; filename*=UTF-8''reportfdp.exe`);
	});

	test("an uploaded file keeps no override in its stored name nor in its download's header", async () => {
		const up = await uploadFile(
			t.app,
			owner,
			{ key: "scan" },
			{
				bytes: Buffer.from("%PDF-1.4\n%%EOF\n"),
				name: `invoice${RLO}fdp.exe\u0085`,
			},
		);
		assert.equal(up.file.name, "invoicefdp.exe");
		const token = (
			await t.app.inject({ method: "POST", url: "/api/files/token", headers: owner.headers })
		).json().token;
		const res = await t.app.inject({ method: "GET", url: `/api/files/${up.id}?token=${token}` });
		assert.equal(res.statusCode, 200, res.body);
		const header = String(res.headers["content-disposition"]);
		assert.ok(![...header].some((ch) => isDisguising(ch.codePointAt(0) ?? 0)), header);
		assert.doesNotMatch(header, ENCODED);
	});

	test("a share's label keeps none, nor does the name of its CSV", async () => {
		const record = await createValue(t.app, owner, { key: "email", value: "ann@example.org" });
		const link = await createLink(t.app, owner, { label: `Lease${RLO}vsc.exe\u2067`, records: [record.id] });
		assert.equal(link.label, "Leasevsc.exe");
		const csv = await t.app.inject({
			method: "GET",
			url: `/s/${link.slug}?format=csv`,
			remoteAddress: nextIp(),
		});
		assert.equal(csv.statusCode, 200, csv.body);
		const header = String(csv.headers["content-disposition"]);
		assert.ok(![...header].some((ch) => isDisguising(ch.codePointAt(0) ?? 0)), header);
		assert.doesNotMatch(header, ENCODED);
		// A label stored before the rule (written directly) still never reaches the header.
		await t.app.store.db
			.updateTable("links")
			.set({ label: `Old${RLO}fdp.exe` })
			.where("id", "=", link.id)
			.execute();
		const old = await t.app.inject({
			method: "GET",
			url: `/s/${link.slug}?format=csv`,
			remoteAddress: nextIp(),
		});
		assert.doesNotMatch(String(old.headers["content-disposition"]), ENCODED);
	});
});
