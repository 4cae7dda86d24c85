// The read log (docs/api.md "Read log"): every read of a share that returned values is one entry,
// with its time, kind, view and the proven fingerprint (API resolve, file, archive, the share page
// in every format, the addressbook's card); refused reads, 304s, HEAD and PROPFIND leave none;
// nothing of the values or the reader's address is kept; entries go with their share and after
// READ_LOG_DAYS.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createIdentity } from "../../src/features/identity/service.ts";
import { sweepReads } from "../../src/features/shares/reads.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { dav, page, postForm } from "../formats/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import {
	assertCode,
	createLink,
	createValue,
	LINKS,
	patchLink,
	publicGet,
	resolveLink,
	uploadFile,
} from "./helpers.ts";

const READS = "/api/collections/linkReads/records";
const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);

interface Read {
	id: string;
	link: string;
	at: string;
	kind: string;
	view: number;
	record: string | null;
	readerFingerprint: string | null;
}

describe("read log", () => {
	let t: TestApp;
	let a: TestAccount;
	let b: TestAccount;
	const clock = new ManualClock(T0);

	before(async () => {
		t = await makeApp({ readLogDays: 30 }, { clock });
		a = await buildAccount(t.app);
		b = await buildAccount(t.app);
	});
	after(() => t.close());

	async function readsOf(linkId: string, who: { headers: Record<string, string> } = a): Promise<Read[]> {
		const res = await t.app.inject({
			method: "GET",
			url: `${READS}?filter=${encodeURIComponent(`link='${linkId}'`)}&sort=at,view&perPage=100`,
			headers: who.headers,
		});
		assert.equal(res.statusCode, 200, res.body);
		return res.json().items;
	}

	test("each resolve, file and archive read is one entry; refused reads leave none", async () => {
		const secret = "S3cr3t-value-never-logged";
		const rec = await createValue(t.app, a, { key: "iban", value: secret });
		const file = await uploadFile(t.app, a, { key: "doc" }, { bytes: Buffer.from("hello"), name: "a.txt" });
		const link = await createLink(t.app, a, { records: [rec.id, file.id], password: "pw", maxViews: 3 });

		assertCode(await resolveLink(t.app, link.slug), 401, "link_password_required");
		assertCode(await resolveLink(t.app, link.slug, { password: "nope" }), 401, "link_password_invalid");
		assert.deepEqual(await readsOf(link.id), [], "a refused read is not a read");

		clock.advance(1000);
		const first = (await resolveLink(t.app, link.slug, { password: "pw" })).json();
		clock.advance(1000);
		const dl = first.records.find((r: { id: string }) => r.id === file.id).downloadToken as string;
		const got = await publicGet(t.app, `/api/public/links/${link.slug}/files/${file.id}?dl=${dl}`);
		assert.equal(got.statusCode, 200, got.body);
		assertCode(
			await publicGet(t.app, `/api/public/links/${link.slug}/files/${file.id}?dl=${dl}`),
			401,
			"file_download_invalid",
		);
		clock.advance(1000);
		const second = (await resolveLink(t.app, link.slug, { password: "pw" })).json();
		clock.advance(1000);
		const zip = await publicGet(t.app, `/api/public/links/${link.slug}/archive?dl=${second.archiveToken}`);
		assert.equal(zip.statusCode, 200);

		const reads = await readsOf(link.id);
		assert.deepEqual(
			reads.map((r) => [r.kind, r.view, r.record, r.readerFingerprint, r.at]),
			[
				["api", 1, null, null, new Date(T0 + 1000).toISOString()],
				["file", 1, file.id, null, new Date(T0 + 2000).toISOString()],
				["api", 2, null, null, new Date(T0 + 3000).toISOString()],
				["archive", 2, null, null, new Date(T0 + 4000).toISOString()],
			],
		);
		for (const r of reads) {
			assert.deepEqual(Object.keys(r).sort(), [
				"at",
				"id",
				"kind",
				"link",
				"readerFingerprint",
				"record",
				"view",
			]);
		}
		const stored = await t.app.store.db
			.selectFrom("link_reads")
			.selectAll()
			.where("link", "=", link.id)
			.execute();
		assert.ok(!JSON.stringify(stored).includes(secret), "no value in the log");
		assert.ok(!JSON.stringify(stored).includes("198.18."), "no client address in the log");
	});

	test("the share page: one `page` entry per answer with values, in every format and through the password form; a 304 and HEAD leave none", async () => {
		const rec = await createValue(t.app, a, { key: "email", value: "ann@example.org" });
		const link = await createLink(t.app, a, { records: [rec.id] });
		for (const format of ["html", "csv", "vcf", "ics"]) {
			clock.advance(1000);
			const got = await page(t.app, link.slug, { format });
			assert.equal(got.statusCode, 200, `${format}: ${got.body}`);
			const same = await page(t.app, link.slug, {
				format,
				headers: { "if-none-match": String(got.headers.etag) },
			});
			assert.equal(same.statusCode, 304, format);
			assert.equal((await page(t.app, link.slug, { format, method: "HEAD" })).statusCode, 200, format);
		}
		const negotiated = await page(t.app, link.slug, { headers: { accept: "text/vcard" } });
		assert.equal(negotiated.statusCode, 200, negotiated.body);
		assert.deepEqual(
			(await readsOf(link.id)).map((r) => [r.kind, r.view, r.record, r.readerFingerprint]),
			[1, 2, 3, 4, 5].map((view) => ["page", view, null, null]),
		);

		const locked = await createLink(t.app, a, { records: [rec.id], password: "open sesame" });
		assert.equal((await page(t.app, locked.slug)).statusCode, 200, "the password form, no values");
		assert.equal((await postForm(t.app, locked.slug, { password: "guess" })).statusCode, 403);
		const posted = await postForm(t.app, locked.slug, { password: "open sesame", format: "csv" });
		assert.equal(posted.statusCode, 200, posted.body);
		assert.deepEqual(
			(await readsOf(locked.id)).map((r) => [r.kind, r.view]),
			[["page", 1]],
			"only the answer with values is a read",
		);
	});

	test("the addressbook: GET and REPORT of the card are `addressbook` entries; a 304, HEAD, PROPFIND and an etags-only REPORT leave none", async () => {
		const rec = await createValue(t.app, a, { key: "email", value: "ann@example.org" });
		const link = await createLink(t.app, a, { records: [rec.id] });
		const base = `/dav/s/${link.slug}/`;
		const card = `${base}contact.vcf`;
		const ns = 'xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"';
		const multiget = (props: string) =>
			`<card:addressbook-multiget ${ns}><d:prop>${props}</d:prop><d:href>${card}</d:href></card:addressbook-multiget>`;
		const query = `<card:addressbook-query ${ns}><d:prop><d:getetag/></d:prop><card:filter><card:prop-filter name="EMAIL"><card:text-match match-type="contains">nobody@</card:text-match></card:prop-filter></card:filter></card:addressbook-query>`;

		for (const depth of ["0", "1"]) {
			const found = await dav(t.app, "PROPFIND", base, { headers: { depth } });
			assert.equal(found.statusCode, 207, found.body);
		}
		assert.equal((await dav(t.app, "PROPFIND", card, { headers: { depth: "0" } })).statusCode, 207);
		assert.equal((await dav(t.app, "REPORT", base, { body: multiget("<d:getetag/>") })).statusCode, 207);
		assert.equal((await dav(t.app, "OPTIONS", base)).statusCode, 200);
		assert.equal((await dav(t.app, "GET", base)).statusCode, 200, "the book's own GET is a line of text");
		assert.deepEqual(await readsOf(link.id), [], "nothing that answered without the card is a read");

		clock.advance(1000);
		const got = await dav(t.app, "GET", card);
		assert.equal(got.statusCode, 200, got.body);
		const same = await dav(t.app, "GET", card, { headers: { "if-none-match": String(got.headers.etag) } });
		assert.equal(same.statusCode, 304);
		assert.equal((await dav(t.app, "HEAD", card)).statusCode, 200);
		clock.advance(1000);
		const report = await dav(t.app, "REPORT", base, {
			body: multiget("<d:getetag/><card:address-data/>"),
		});
		assert.equal(report.statusCode, 207, report.body);
		assert.match(report.body, /ann@example\.org/);
		clock.advance(1000);
		const filtered = await dav(t.app, "REPORT", base, { body: query, headers: { depth: "1" } });
		assert.equal(filtered.statusCode, 207, filtered.body);
		assert.doesNotMatch(filtered.body, /contact\.vcf/, "no card matched, but its values were tested");

		assert.deepEqual(
			(await readsOf(link.id)).map((r) => [r.kind, r.view, r.record, r.readerFingerprint, r.at]),
			[1, 2, 3].map((view) => [
				"addressbook",
				view,
				null,
				null,
				new Date(clock.now() - (3 - view) * 1000).toISOString(),
			]),
		);
	});

	test("the view that reaches the cap is logged, the refused one after it is not", async () => {
		const rec = await createValue(t.app, a, { key: "cap", value: "v" });
		const link = await createLink(t.app, a, { records: [rec.id], maxViews: 2 });
		const answers = await Promise.all([1, 2, 3, 4].map(() => resolveLink(t.app, link.slug)));
		assert.equal(answers.filter((r) => r.statusCode === 200).length, 2);
		assert.deepEqual(
			(await readsOf(link.id)).map((r) => r.view),
			[1, 2],
		);
	});

	test("a handshake read records the proven fingerprint, also on the files it opens", async () => {
		const device = await deviceKey();
		const identity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ accountId: b.accountId, workspaceId: b.workspaceId, name: "Bob", publicKey: device.publicJwk },
			clock.now(),
		);
		const file = await uploadFile(t.app, a, { key: "hs" }, { bytes: Buffer.from("x"), name: "b.txt" });
		const link = await createLink(t.app, a, { records: [file.id], requireHandshake: true });
		const nonce = (await publicGet(t.app, `/api/challenges/link/${link.slug}`)).json().nonce as string;
		const res = await resolveLink(t.app, link.slug, {
			identityId: identity.id,
			challengeNonce: nonce,
			challengeSignature: await device.sign(nonce),
		});
		assert.equal(res.statusCode, 200, res.body);
		const dl = res.json().records[0].downloadToken as string;
		clock.advance(1000);
		assert.equal(
			(await publicGet(t.app, `/api/public/links/${link.slug}/files/${file.id}?dl=${dl}`)).statusCode,
			200,
		);
		const reads = await readsOf(link.id);
		assert.deepEqual(
			reads.map((r) => [r.kind, r.readerFingerprint]),
			[
				["api", device.fingerprint],
				["file", device.fingerprint],
			],
		);
	});

	test("owners see their own workspace's log only; a key needs link:read; nothing is written through the API", async () => {
		const rec = await createValue(t.app, a, { key: "own", value: "v" });
		const link = await createLink(t.app, a, { records: [rec.id] });
		await resolveLink(t.app, link.slug);
		assert.equal((await readsOf(link.id)).length, 1);
		assert.deepEqual(await readsOf(link.id, b), [], "another workspace sees nothing");
		const [entry] = await readsOf(link.id);
		const foreign = await t.app.inject({ method: "GET", url: `${READS}/${entry?.id}`, headers: b.headers });
		assert.equal(foreign.statusCode, 404, foreign.body);

		assert.equal((await readsOf(link.id, buildApiKey(t.app, a, ["link:read"]))).length, 1);
		const noScope = await t.app.inject({
			method: "GET",
			url: READS,
			headers: buildApiKey(t.app, a, ["record:read"]).headers,
		});
		assertCode(noScope, 403, "api_key_scope_missing");

		for (const method of ["POST", "PATCH", "DELETE"] as const) {
			const url = method === "POST" ? READS : `${READS}/${entry?.id}`;
			const res = await t.app.inject({ method, url, headers: a.headers, payload: {} });
			assertCode(res, 405, "method_not_allowed");
		}
		assert.equal((await readsOf(link.id)).length, 1);
	});

	test("a paused share's refused read leaves nothing; deleting the share deletes its log", async () => {
		const rec = await createValue(t.app, a, { key: "gone", value: "v" });
		const link = await createLink(t.app, a, { records: [rec.id] });
		await resolveLink(t.app, link.slug);
		assert.equal((await patchLink(t.app, a, link.id, { status: "paused" })).statusCode, 200);
		assertCode(await resolveLink(t.app, link.slug), 404, "link_paused");
		assert.equal((await readsOf(link.id)).length, 1);
		const del = await t.app.inject({ method: "DELETE", url: `${LINKS}/${link.id}`, headers: a.headers });
		assert.equal(del.statusCode, 204, del.body);
		const left = await t.app.store.db
			.selectFrom("link_reads")
			.select("id")
			.where("link", "=", link.id)
			.execute();
		assert.deepEqual(left, []);
	});

	test("entries older than READ_LOG_DAYS are swept, younger ones stay", async () => {
		const rec = await createValue(t.app, a, { key: "old", value: "v" });
		const link = await createLink(t.app, a, { records: [rec.id] });
		await resolveLink(t.app, link.slug);
		clock.advance(20 * 86_400_000);
		await resolveLink(t.app, link.slug);
		clock.advance(11 * 86_400_000);
		await sweepReads(t.app.store.db, t.app.config.readLogDays, clock.now());
		// Sessions have lapsed 31 days on; a key reads the log.
		assert.deepEqual(
			(await readsOf(link.id, buildApiKey(t.app, a, ["link:read"]))).map((r) => r.view),
			[2],
		);
	});
});
