// Share archives checked with the real `unzip`, their single-use tokens, the owner's copy, and
// watermarked shares: stamped files and archives, unstampable files left out, never served unmarked.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { ARCHIVE_TOKEN_TTL_MS } from "../../src/features/shares/tokens.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { makeImage, makePdf, pageTexts } from "../stamping/fixtures.ts";
import {
	assertCode,
	createLink,
	createSection,
	LINKS,
	patchLink,
	publicGet,
	resolveLink,
	uploadFile,
} from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

/** Writes the zip, runs `unzip -t` on it, and returns each entry's name and bytes. */
function unzip(zip: Buffer): Map<string, Buffer> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-zip-"));
	try {
		const file = path.join(dir, "a.zip");
		fs.writeFileSync(file, zip);
		const tested = execFileSync("unzip", ["-t", file], { encoding: "utf8" });
		assert.match(tested, /No errors detected/);
		const out = path.join(dir, "out");
		execFileSync("unzip", ["-q", file, "-d", out]);
		const entries = new Map<string, Buffer>();
		for (const name of fs.readdirSync(out)) entries.set(name, fs.readFileSync(path.join(out, name)));
		return entries;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

const sha = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");

describe("share archives", () => {
	let t: TestApp;
	let a: TestAccount;
	let b: TestAccount;
	const clock = new ManualClock(T0);

	before(async () => {
		t = await makeApp({}, { clock });
		a = await buildAccount(t.app);
		b = await buildAccount(t.app);
	});
	after(() => t.close());

	const archive = (slug: string, dl?: string) =>
		publicGet(t.app, `/api/public/links/${slug}/archive${dl === undefined ? "" : `?dl=${dl}`}`);

	test("every granted file, directly or through a section; a repeated name becomes `name (2).ext`", async () => {
		const sec = await createSection(t.app, a, "papers");
		const one = Buffer.from("first contract\n");
		const two = Buffer.from("second contract, same name\n");
		const three = crypto.randomBytes(300_000);
		const f1 = await uploadFile(t.app, a, { key: "c1" }, { bytes: one, name: "contract.pdf" });
		await uploadFile(t.app, a, { key: "c2", section: sec.id }, { bytes: two, name: "contract.pdf" });
		const f3 = await uploadFile(
			t.app,
			a,
			{ key: "blob", section: sec.id },
			{ bytes: three, name: "data.bin" },
		);
		assert.ok(f3);
		const link = await createLink(t.app, a, { label: "Flat: papers", records: [f1.id], sections: [sec.id] });
		const body = (await resolveLink(t.app, link.slug)).json();
		assert.ok(body.archiveToken);

		const res = await archive(link.slug, body.archiveToken);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.headers["content-type"], "application/zip");
		assert.match(String(res.headers["content-disposition"]), /^attachment; filename="Flat papers.zip"/);
		assert.equal(Number(res.headers["content-length"]), res.rawPayload.length);
		const entries = unzip(res.rawPayload);
		assert.deepEqual([...entries.keys()].sort(), ["contract (2).pdf", "contract.pdf", "data.bin"]);
		assert.deepEqual(entries.get("contract.pdf"), one);
		assert.deepEqual(entries.get("contract (2).pdf"), two);
		assert.equal(sha(entries.get("data.bin") as Buffer), sha(three));

		// Single use: spent on first presentation.
		assertCode(await archive(link.slug, body.archiveToken), 401, "file_download_invalid");
	});

	test("the archive token: missing, expired after two minutes, another share's, a download token", async () => {
		const f = await uploadFile(t.app, a, { key: "k" }, { bytes: Buffer.from("x"), name: "x.txt" });
		const link = await createLink(t.app, a, { records: [f.id] });
		const other = await createLink(t.app, a, { records: [f.id] });
		assertCode(await archive(link.slug), 401, "file_download_invalid");

		let body = (await resolveLink(t.app, link.slug)).json();
		clock.advance(ARCHIVE_TOKEN_TTL_MS);
		assertCode(await archive(link.slug, body.archiveToken), 401, "file_download_invalid");

		body = (await resolveLink(t.app, link.slug)).json();
		assertCode(await archive(other.slug, body.archiveToken), 401, "file_download_invalid");
		assertCode(await archive(link.slug, body.records[0].downloadToken), 401, "file_download_invalid");

		body = (await resolveLink(t.app, link.slug)).json();
		clock.advance(ARCHIVE_TOKEN_TTL_MS - 1);
		assert.equal((await archive(link.slug, body.archiveToken)).statusCode, 200);
	});

	test("HEAD on a file or archive address is 405 and spends neither token", async () => {
		const bytes = Buffer.from("head me\n");
		const f = await uploadFile(t.app, a, { key: "h" }, { bytes, name: "h.txt" });
		const link = await createLink(t.app, a, { records: [f.id] });
		const body = (await resolveLink(t.app, link.slug)).json();
		const fileUrl = `/api/public/links/${link.slug}/files/${f.id}?dl=${body.records[0].downloadToken}`;
		const archiveUrl = `/api/public/links/${link.slug}/archive?dl=${body.archiveToken}`;
		for (const url of [fileUrl, archiveUrl]) {
			const head = await t.app.inject({ method: "HEAD", url });
			assert.equal(head.statusCode, 405, url);
			assert.equal(head.headers.allow, "GET");
			assert.equal(head.rawPayload.length, 0);
		}
		const file = await publicGet(t.app, fileUrl);
		assert.equal(file.statusCode, 200, file.body);
		assert.deepEqual(file.rawPayload, bytes);
		assert.equal((await archive(link.slug, body.archiveToken)).statusCode, 200);
		const reads = await t.app.inject({
			method: "GET",
			url: `/api/collections/linkReads/records?filter=${encodeURIComponent(`link='${link.id}'`)}`,
			headers: a.headers,
		});
		assert.equal(reads.statusCode, 200, reads.body);
		const kinds = (reads.json().items as { kind: string }[]).map((r) => r.kind).sort();
		assert.deepEqual(kinds, ["api", "archive", "file"], "the HEADs logged no read");
	});

	test("archive_empty when the share no longer grants a file, or no longer exists", async () => {
		const f = await uploadFile(t.app, a, { key: "k" }, { bytes: Buffer.from("x"), name: "x.txt" });
		const link = await createLink(t.app, a, { records: [f.id] });
		const body = (await resolveLink(t.app, link.slug)).json();
		await patchLink(t.app, a, link.id, { records: [] });
		assertCode(await archive(link.slug, body.archiveToken), 404, "archive_empty");
		assertCode(await archive("no-such-share", "token"), 404, "archive_empty");
		const gone = await createLink(t.app, a, { records: [f.id] });
		const token = (await resolveLink(t.app, gone.slug)).json().archiveToken;
		await t.app.inject({ method: "DELETE", url: `${LINKS}/${gone.id}`, headers: a.headers });
		assertCode(await archive(gone.slug, token), 404, "archive_empty");
	});

	describe("the owner's archive", () => {
		test("claims no view, and only the caller's own share", async () => {
			const f = await uploadFile(t.app, a, { key: "k" }, { bytes: Buffer.from("owner copy"), name: "o.txt" });
			const link = await createLink(t.app, a, { label: "Mine", records: [f.id], maxViews: 1 });
			const res = await t.app.inject({
				method: "GET",
				url: `/api/links/${link.id}/archive`,
				headers: a.headers,
			});
			assert.equal(res.statusCode, 200, res.body);
			assert.deepEqual(unzip(res.rawPayload).get("o.txt"), Buffer.from("owner copy"));
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: a.headers });
			assert.equal(view.json().viewCount, 0);

			assertCode(
				await t.app.inject({ method: "GET", url: `/api/links/${link.id}/archive`, headers: b.headers }),
				404,
				"link_not_found",
			);
			assertCode(
				await t.app.inject({ method: "GET", url: `/api/links/${link.id}/archive` }),
				401,
				"not_authenticated",
			);
			// A key reads no vault file, so there is nothing it may put in the archive.
			const key = buildApiKey(t.app, a, ["link:read"]);
			assertCode(
				await t.app.inject({ method: "GET", url: `/api/links/${link.id}/archive`, headers: key.headers }),
				404,
				"archive_empty",
			);
			const noScope = buildApiKey(t.app, a, ["request:read"]);
			assertCode(
				await t.app.inject({ method: "GET", url: `/api/links/${link.id}/archive`, headers: noScope.headers }),
				403,
				"api_key_scope_missing",
			);
		});

		test("archive_empty for a share without files", async () => {
			const link = await createLink(t.app, a, {});
			assertCode(
				await t.app.inject({ method: "GET", url: `/api/links/${link.id}/archive`, headers: a.headers }),
				404,
				"archive_empty",
			);
		});
	});

	describe("watermarked shares", () => {
		let pdf: Buffer;
		let png: Buffer;
		const text = Buffer.from("cannot be stamped\n");

		before(async () => {
			pdf = await makePdf([{}, { rotate: 90 }]);
			png = await makeImage("png", 400, 300);
		});

		test("files are stamped copies naming the reader; an unstampable file is never served", async () => {
			const fPdf = await uploadFile(t.app, a, { key: "lease" }, { bytes: pdf, name: "lease.pdf" });
			const fTxt = await uploadFile(t.app, a, { key: "notes" }, { bytes: text, name: "notes.txt" });
			const link = await createLink(t.app, a, { records: [fPdf.id, fTxt.id], stamp: "For ACME Rentals" });
			const body = (await resolveLink(t.app, link.slug)).json();
			assert.equal(
				body.watermark,
				`For ACME Rentals | view 1 | ${new Date(clock.now()).toISOString().slice(0, 10)}`,
			);

			const got = await publicGet(
				t.app,
				`/api/public/links/${link.slug}/files/${fPdf.id}?dl=${body.records[0].downloadToken}`,
			);
			assert.equal(got.statusCode, 200, got.body);
			assert.notEqual(sha(got.rawPayload), sha(pdf));
			const pages = pageTexts(got.rawPayload);
			assert.equal(pages.length, 2);
			for (const page of pages) assert.match(page.replace(/\s+/g, " "), /For ACME Rentals \| view 1/);

			const refused = await publicGet(
				t.app,
				`/api/public/links/${link.slug}/files/${fTxt.id}?dl=${body.records[1].downloadToken}`,
			);
			assertCode(refused, 415, "file_not_watermarkable");

			// The vault's original is unchanged.
			const tok = (await t.app.inject({ method: "POST", url: "/api/files/token", headers: a.headers })).json()
				.token;
			const original = await t.app.inject({
				method: "GET",
				url: `/api/files/${fPdf.id}?token=${tok}`,
				headers: a.headers,
			});
			assert.equal(sha(original.rawPayload), sha(pdf));
		});

		test("the archive holds stamped copies and leaves out what cannot be stamped", async () => {
			const fPdf = await uploadFile(t.app, a, { key: "lease" }, { bytes: pdf, name: "lease.pdf" });
			const fPng = await uploadFile(t.app, a, { key: "photo" }, { bytes: png, name: "photo.png" });
			const fTxt = await uploadFile(t.app, a, { key: "notes" }, { bytes: text, name: "notes.txt" });
			const link = await createLink(t.app, a, {
				label: "Application",
				records: [fTxt.id, fPdf.id, fPng.id],
				stamp: "Rental application",
				purpose: "application",
			});
			const body = (await resolveLink(t.app, link.slug)).json();
			const res = await archive(link.slug, body.archiveToken);
			assert.equal(res.statusCode, 200, res.body);
			const entries = unzip(res.rawPayload);
			assert.deepEqual([...entries.keys()].sort(), ["lease.pdf", "photo.png"]);
			assert.match(
				(pageTexts(entries.get("lease.pdf") as Buffer)[0] ?? "").replace(/\s+/g, " "),
				/Rental application/,
			);
			assert.notEqual(sha(entries.get("photo.png") as Buffer), sha(png));

			// The owner's copy is stamped too.
			const own = await t.app.inject({
				method: "GET",
				url: `/api/links/${link.id}/archive`,
				headers: a.headers,
			});
			assert.equal(own.statusCode, 200, own.body);
			const ownEntries = unzip(own.rawPayload);
			assert.deepEqual([...ownEntries.keys()].sort(), ["lease.pdf", "photo.png"]);
			assert.match(
				(pageTexts(ownEntries.get("lease.pdf") as Buffer)[0] ?? "").replace(/\s+/g, " "),
				/owner copy/,
			);
		});

		test("archive_empty when no granted file can be stamped, and no archive read logged", async () => {
			const fTxt = await uploadFile(t.app, a, { key: "notes" }, { bytes: text, name: "notes.txt" });
			const link = await createLink(t.app, a, { records: [fTxt.id], stamp: "Stamped" });
			const body = (await resolveLink(t.app, link.slug)).json();
			assertCode(await archive(link.slug, body.archiveToken), 404, "archive_empty");
			const reads = await t.app.inject({
				method: "GET",
				url: `/api/collections/linkReads/records?filter=${encodeURIComponent(`link='${link.id}'`)}`,
				headers: a.headers,
			});
			assert.equal(reads.statusCode, 200, reads.body);
			const kinds = (reads.json().items as { kind: string }[]).map((r) => r.kind);
			assert.deepEqual(kinds, ["api"], "the resolve's read only: nothing was served");
		});

		test("the stamp preview with a share uses the share's stamp and needs the share to grant the record", async () => {
			const fPdf = await uploadFile(t.app, a, { key: "lease" }, { bytes: pdf, name: "lease.pdf" });
			const other = await uploadFile(t.app, a, { key: "other" }, { bytes: pdf, name: "other.pdf" });
			const link = await createLink(t.app, a, { records: [fPdf.id], stamp: "Share stamp" });
			const ok = await t.app.inject({
				method: "POST",
				url: "/api/stamp-preview",
				headers: a.headers,
				payload: { record: fPdf.id, link: link.id, text: "ignored" },
			});
			assert.equal(ok.statusCode, 200, ok.body);
			const page = (pageTexts(ok.rawPayload)[0] ?? "").replace(/\s+/g, " ");
			assert.match(page, /Share stamp/);
			assert.doesNotMatch(page, /ignored/);
			const notGranted = await t.app.inject({
				method: "POST",
				url: "/api/stamp-preview",
				headers: a.headers,
				payload: { record: other.id, link: link.id },
			});
			assertCode(notGranted, 404, "record_not_found");
			const theirs = await createLink(t.app, b, {});
			const foreign = await t.app.inject({
				method: "POST",
				url: "/api/stamp-preview",
				headers: a.headers,
				payload: { record: fPdf.id, link: theirs.id },
			});
			assertCode(foreign, 404, "link_not_found");
		});
	});
});
