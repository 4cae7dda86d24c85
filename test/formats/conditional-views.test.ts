// ETags and views on `/s/{slug}`: every representation carries an ETag that changes with what the
// share grants and shows; a matching If-None-Match is 304 with no body and takes no view; an
// answer carrying values takes exactly one view, as the API resolve does; HEAD takes none.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { buildApp } from "../../src/app.ts";
import { makeApp, type TestApp, testEnv } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, patchLink, RECORDS, resolveLink, uploadFile } from "../shares/helpers.ts";
import { html, page, views } from "./helpers.ts";

const FORMATS = ["html", "csv", "vcf", "ics"] as const;

describe("ETags and views on the share page", () => {
	let t: TestApp;
	let a: TestAccount;
	before(async () => {
		t = await makeApp({ domain: "share.example" });
		a = await buildAccount(t.app, { name: "Ann" });
	});
	after(() => t.close());

	async function share(body: Record<string, unknown> = {}) {
		const rec = await createValue(t.app, a, { key: "email", value: "ann@example.org" });
		const date = await createValue(t.app, a, { key: "birthday", value: "1990-05-01" });
		const link = await createLink(t.app, a, { label: "Contact", records: [rec.id, date.id], ...body });
		return { slug: link.slug, id: link.id, date: date.id };
	}

	for (const format of FORMATS) {
		test(`${format}: a record change gives a new ETag; the current one answers 304 with no body and no view`, async () => {
			const s = await share();
			const first = await page(t.app, s.slug, { format });
			assert.equal(first.statusCode, 200, first.body);
			const tag = String(first.headers.etag);
			assert.match(tag, format === "html" ? /^W\/"html-en-/ : new RegExp(`^"${format}-`));
			assert.equal(await views(t.app, s.slug), 1);

			const same = await page(t.app, s.slug, { format, headers: { "if-none-match": tag } });
			assert.equal(same.statusCode, 304);
			assert.equal(same.body, "");
			assert.equal(same.headers.etag, tag);
			assert.equal(await views(t.app, s.slug), 1, "a 304 takes no view");

			const patched = await t.app.inject({
				method: "PATCH",
				url: `${RECORDS}/${s.date}`,
				headers: a.headers,
				payload: { value: "1991-05-01" },
			});
			assert.equal(patched.statusCode, 200);
			const changed = await page(t.app, s.slug, { format, headers: { "if-none-match": tag } });
			assert.equal(changed.statusCode, 200, "the old tag no longer matches");
			assert.notEqual(changed.headers.etag, tag);
			assert.ok(changed.body.includes("1991"), "the new value");
			assert.equal(await views(t.app, s.slug), 2, "an answer with values takes one view");
		});
	}

	test("the four representations have four tags; a label change is a new tag for each", async () => {
		const s = await share();
		const tags = new Map<string, string>();
		for (const format of FORMATS)
			tags.set(format, String((await page(t.app, s.slug, { format })).headers.etag));
		assert.equal(new Set(tags.values()).size, 4);
		assert.equal((await patchLink(t.app, a, s.id, { label: "Renamed" })).statusCode, 200);
		for (const format of FORMATS) {
			const res = await page(t.app, s.slug, {
				format,
				headers: { "if-none-match": String(tags.get(format)) },
			});
			assert.equal(res.statusCode, 200, format);
		}
	});

	test("If-None-Match: `*`, a list holding the tag, and the weak form all match", async () => {
		const s = await share();
		const tag = String((await page(t.app, s.slug, { format: "vcf" })).headers.etag);
		for (const header of ["*", `"other", ${tag}`, `W/${tag}`]) {
			const res = await page(t.app, s.slug, { format: "vcf", headers: { "if-none-match": header } });
			assert.equal(res.statusCode, 304, header);
		}
		assert.equal(await views(t.app, s.slug), 1);
	});

	test("the view rule is the API resolve's: one view per answer with values, whichever the format; HEAD takes none", async () => {
		const s = await share();
		assert.equal((await resolveLink(t.app, s.slug)).statusCode, 200);
		for (const format of FORMATS) assert.equal((await page(t.app, s.slug, { format })).statusCode, 200);
		assert.equal(await views(t.app, s.slug), 5);
		const head = await page(t.app, s.slug, { method: "HEAD", format: "vcf" });
		assert.equal(head.statusCode, 200);
		assert.equal(head.body, "");
		assert.ok(String(head.headers.etag).startsWith('"vcf-'));
		assert.equal(await views(t.app, s.slug), 5, "HEAD takes no view");
	});

	test("a share with maxViews read through the page: views left, the last view, then 404 in every format", async () => {
		const s = await share({ maxViews: 3 });
		const one = html((await page(t.app, s.slug)).body);
		assert.ok(one.all.some((e) => one.textOf(e) === "2 left after this one"));
		const tag = String((await page(t.app, s.slug, { format: "csv" })).headers.etag);
		// A 304 on the last view left takes nothing: the view stays for the read that carries values.
		assert.equal(
			(await page(t.app, s.slug, { format: "csv", headers: { "if-none-match": tag } })).statusCode,
			304,
		);
		const last = await page(t.app, s.slug);
		assert.equal(last.statusCode, 200);
		assert.ok(last.body.includes("This was the last view"));
		assert.equal(await views(t.app, s.slug), 3);
		const probe = (await t.app.inject({ url: `/api/public/links/${s.slug}` })).json();
		assert.equal(probe.status, "expired");
		const gone = await page(t.app, s.slug);
		assert.equal(gone.statusCode, 404);
		assert.ok(gone.body.includes("every view has been used"), "the page says the views are used up");
		assert.ok(!gone.body.includes("link_expired"), "never the raw code");
		for (const format of ["csv", "vcf", "ics"]) {
			const res = await page(t.app, s.slug, { format, headers: { "if-none-match": tag } });
			assert.equal(res.statusCode, 404, format);
			assert.equal(res.json().code, "link_expired");
		}
	});

	test("on a capped share the page's tag holds the view count it shows: after another reader's view it is a 200", async () => {
		const s = await share({ maxViews: 10 });
		const tag = String((await page(t.app, s.slug)).headers.etag);
		assert.equal((await page(t.app, s.slug, { headers: { "if-none-match": tag } })).statusCode, 304);
		assert.equal((await resolveLink(t.app, s.slug)).statusCode, 200, "another reader");
		const res = await page(t.app, s.slug, { headers: { "if-none-match": tag } });
		assert.equal(res.statusCode, 200);
		assert.ok(res.body.includes("7 left after this one"));
		// The data formats do not show the count: their tags stay.
		const csvTag = String((await page(t.app, s.slug, { format: "csv" })).headers.etag);
		assert.equal((await resolveLink(t.app, s.slug)).statusCode, 200);
		assert.equal(
			(await page(t.app, s.slug, { format: "csv", headers: { "if-none-match": csvTag } })).statusCode,
			304,
		);
	});

	test("a share without a view cap keeps its page tag across other readers' views", async () => {
		const s = await share();
		const tag = String((await page(t.app, s.slug)).headers.etag);
		await resolveLink(t.app, s.slug);
		assert.equal((await page(t.app, s.slug, { headers: { "if-none-match": tag } })).statusCode, 304);
	});

	test("an answer's caching: revalidated every time; a page with download buttons or save-a-copy links is not kept", async () => {
		const s = await share();
		// The contact share's page offers its formats, each link good once: not kept.
		assert.equal((await page(t.app, s.slug)).headers["cache-control"], "private, no-store");
		assert.equal(
			(await page(t.app, s.slug, { format: "vcf" })).headers["cache-control"],
			"private, no-cache",
		);
		const file = await uploadFile(
			t.app,
			a,
			{ key: "passport" },
			{ bytes: Buffer.from("%PDF-1.4 x"), name: "p.pdf" },
		);
		const withFile = await createLink(t.app, a, { records: [file.id] });
		assert.equal((await page(t.app, withFile.slug)).headers["cache-control"], "private, no-store");
		assert.equal(
			(await page(t.app, withFile.slug, { format: "csv" })).headers["cache-control"],
			"private, no-cache",
		);
	});

	test("two nodes on one database give one share the same tags, so a 304 holds across them", async () => {
		const env = testEnv({ domain: "share.example" });
		const one = await buildApp(env.config);
		const two = await buildApp(env.config);
		try {
			const b = await buildAccount(one);
			const rec = await createValue(one, b, { key: "email", value: "b@example.org" });
			const link = await createLink(one, b, { records: [rec.id] });
			const tag = String((await page(one, link.slug, { format: "vcf" })).headers.etag);
			const there = await page(two, link.slug, { format: "vcf", headers: { "if-none-match": tag } });
			assert.equal(there.statusCode, 304);
		} finally {
			await one.close();
			await two.close();
			await env.dispose();
		}
	});
});
