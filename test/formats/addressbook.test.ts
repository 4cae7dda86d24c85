// `/dav/s/{slug}/`, the read-only CardDAV addressbook (RFC 6352), over raw requests, its answers
// read with fast-xml-parser and ical.js: discovery properties, PROPFIND at depth 0 and 1 without a
// view, the two reports (a view only when they read the card), GET with ETags, writes refused,
// gated and inactive shares absent, and request bodies that try entity expansion.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { XMLParser } from "fast-xml-parser";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, patchLink, RECORDS } from "../shares/helpers.ts";
import { type ContactShare, contactShare, dav, vcard, views } from "./helpers.ts";

const NS =
	'xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav" xmlns:cs="http://calendarserver.org/ns/"';
const xml = new XMLParser({
	removeNSPrefix: true,
	ignoreAttributes: false,
	// Character references are XML (the card's CRs are sent as `&#13;`); this parser reads them so.
	htmlEntities: true,
	isArray: (name) => ["response", "propstat"].includes(name),
});

interface Propstat {
	prop: Record<string, unknown>;
	status: string;
}
interface Response {
	href: string;
	propstat?: Propstat[];
	status?: string;
}

function responses(body: string): Response[] {
	return (xml.parse(body) as { multistatus: { response?: Response[] } }).multistatus.response ?? [];
}

function found(r: Response | undefined): Record<string, unknown> {
	return r?.propstat?.find((p) => p.status === "HTTP/1.1 200 OK")?.prop ?? {};
}

const propfindBody = (props: string) =>
	`<?xml version="1.0"?><d:propfind ${NS}><d:prop>${props}</d:prop></d:propfind>`;

describe("the addressbook", () => {
	let t: TestApp;
	let a: TestAccount;
	let share: ContactShare;
	let base: string;
	before(async () => {
		t = await makeApp({ domain: "share.example" });
		a = await buildAccount(t.app, { name: "Ann" });
		share = await contactShare(t.app, a);
		base = `/dav/s/${share.slug}/`;
	});
	after(() => t.close());

	test("OPTIONS names the DAV classes and the methods", async () => {
		const res = await dav(t.app, "OPTIONS", base);
		assert.equal(res.statusCode, 200);
		assert.match(String(res.headers.dav), /\baddressbook\b/);
		assert.match(String(res.headers.dav), /^1, 3/);
		assert.equal(res.headers.allow, "OPTIONS, GET, HEAD, PROPFIND, REPORT");
	});

	test("PROPFIND depth 0 and 1: the book and its one card with etags, no values, no view", async () => {
		const props =
			"<d:resourcetype/><d:displayname/><cs:getctag/><d:getetag/><d:getcontenttype/><d:current-user-principal/><card:addressbook-home-set/><d:supported-report-set/><d:current-user-privilege-set/><d:sync-token/>";
		const zero = await dav(t.app, "PROPFIND", base, { body: propfindBody(props), headers: { depth: "0" } });
		assert.equal(zero.statusCode, 207, zero.body);
		assert.match(String(zero.headers["content-type"]), /^application\/xml/);
		const [book] = responses(zero.body);
		assert.equal(responses(zero.body).length, 1);
		assert.equal(book?.href, base);
		const p = found(book);
		assert.deepEqual(Object.keys(p.resourcetype as object).sort(), ["addressbook", "collection"]);
		assert.equal(p.displayname, "For the landlord");
		assert.deepEqual(p["current-user-principal"], { href: base });
		assert.deepEqual(p["addressbook-home-set"], { href: base });
		assert.match(JSON.stringify(p["supported-report-set"]), /addressbook-multiget.*addressbook-query/);
		assert.match(JSON.stringify(p["current-user-privilege-set"]), /"read"/);
		const missing = book?.propstat?.find((s) => s.status === "HTTP/1.1 404 Not Found")?.prop ?? {};
		assert.deepEqual(Object.keys(missing).sort(), ["getcontenttype", "getetag", "sync-token"]);

		const one = await dav(t.app, "PROPFIND", base, { body: propfindBody(props), headers: { depth: "1" } });
		const [, card] = responses(one.body);
		assert.equal(responses(one.body).length, 2);
		assert.equal(card?.href, `${base}contact.vcf`);
		const c = found(card);
		assert.equal(c.getcontenttype, "text/vcard; charset=utf-8");
		assert.equal(c.getetag, p.getctag, "the ctag is the card's etag");
		assert.doesNotMatch(one.body, /Ann Example|ann@example\.org/, "no value in a PROPFIND");

		const all = await dav(t.app, "PROPFIND", base, { headers: { depth: "1" } });
		assert.equal(all.statusCode, 207, "no body is allprop");
		assert.equal(responses(all.body).length, 2);
		assert.equal(await views(t.app, share.slug), 0, "PROPFIND takes no view");
	});

	test("GET of the card: the share's vCard with its ETag, a view; If-None-Match 304 without one", async () => {
		const res = await dav(t.app, "GET", `${base}contact.vcf`);
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.headers["content-type"], "text/vcard; charset=utf-8");
		const card = vcard(res.body);
		assert.equal(card.getFirstPropertyValue("fn"), "Ann Example");
		const page = await t.app.inject({ url: `/s/${share.slug}?format=vcf` });
		assert.equal(res.headers.etag, page.headers.etag, "the same card as the share's vCard");
		assert.equal(res.body, page.body);
		const before = await views(t.app, share.slug);
		const same = await dav(t.app, "GET", `${base}contact.vcf`, {
			headers: { "if-none-match": String(res.headers.etag) },
		});
		assert.equal(same.statusCode, 304);
		assert.equal(await views(t.app, share.slug), before);
	});

	test("REPORT addressbook-multiget: with address-data the card and a view; etags only, no view", async () => {
		const body = (props: string, hrefs: string[]) =>
			`<card:addressbook-multiget ${NS}><d:prop>${props}</d:prop>${hrefs.map((h) => `<d:href>${h}</d:href>`).join("")}</card:addressbook-multiget>`;
		const start = await views(t.app, share.slug);
		const etags = await dav(t.app, "REPORT", base, { body: body("<d:getetag/>", [`${base}contact.vcf`]) });
		assert.equal(etags.statusCode, 207, etags.body);
		assert.ok(found(responses(etags.body)[0]).getetag);
		assert.equal(await views(t.app, share.slug), start);

		const full = await dav(t.app, "REPORT", base, {
			body: body("<d:getetag/><card:address-data/>", [
				`https://share.example${base}contact.vcf`,
				`${base}other.vcf`,
			]),
			headers: { depth: "1" },
		});
		const [card, other] = responses(full.body);
		const text = String(found(card)["address-data"]);
		assert.equal(vcard(text).getFirstPropertyValue("email"), "ann@example.org");
		assert.equal(other?.href, `${base}other.vcf`);
		assert.equal(other?.status, "HTTP/1.1 404 Not Found");
		assert.equal(await views(t.app, share.slug), start + 1);

		const narrowed = await dav(t.app, "REPORT", base, {
			body: body('<card:address-data><card:prop name="EMAIL"/></card:address-data>', [`${base}contact.vcf`]),
		});
		const only = vcard(String(found(responses(narrowed.body)[0])["address-data"]));
		assert.equal(only.getFirstPropertyValue("email"), "ann@example.org");
		assert.equal(only.getFirstPropertyValue("fn"), null, "only the properties asked for");
	});

	test("REPORT addressbook-query: the filter is evaluated; a filter on values takes a view", async () => {
		const query = (filter: string, props = "<d:getetag/>") =>
			`<card:addressbook-query ${NS}><d:prop>${props}</d:prop><card:filter${filter}</card:filter></card:addressbook-query>`;
		const one = { depth: "1" };
		let start = await views(t.app, share.slug);
		const fn = await dav(t.app, "REPORT", base, {
			body: query('><card:prop-filter name="FN"/>'),
			headers: one,
		});
		assert.equal(responses(fn.body).length, 1, fn.body);
		assert.equal(await views(t.app, share.slug), start, "FN is on every card: its filter reads nothing");

		const contains = query(
			' test="allof"><card:prop-filter name="EMAIL"><card:text-match match-type="contains">ANN@</card:text-match></card:prop-filter>',
		);
		assert.equal(
			responses((await dav(t.app, "REPORT", base, { body: contains, headers: one })).body).length,
			1,
		);
		assert.equal(await views(t.app, share.slug), start + 1);
		start += 1;
		const negated = query(
			'><card:prop-filter name="EMAIL"><card:text-match negate-condition="yes">example.org</card:text-match></card:prop-filter>',
		);
		assert.equal(
			responses((await dav(t.app, "REPORT", base, { body: negated, headers: one })).body).length,
			0,
		);
		const absent = query(
			'><card:prop-filter name="X-NOPE"><card:is-not-defined/></card:prop-filter>',
			"<card:address-data/>",
		);
		const got = responses((await dav(t.app, "REPORT", base, { body: absent, headers: one })).body);
		assert.equal(vcard(String(found(got[0])["address-data"])).getFirstPropertyValue("fn"), "Ann Example");
		assert.equal(await views(t.app, share.slug), start + 2);
		const depth0 = await dav(t.app, "REPORT", base, { body: query(">", "<card:address-data/>") });
		assert.equal(responses(depth0.body).length, 0, "Depth 0 on the book reaches no card");

		const collation = query(
			'><card:prop-filter name="FN"><card:text-match collation="i;klingon">x</card:text-match></card:prop-filter>',
		);
		const refused = await dav(t.app, "REPORT", base, { body: collation, headers: one });
		assert.equal(refused.statusCode, 403);
		assert.match(refused.body, /supported-collation/);
		const other = await dav(t.app, "REPORT", base, { body: `<d:sync-collection ${NS}/>` });
		assert.equal(other.statusCode, 403);
		assert.match(other.body, /supported-report/);
	});

	test("a record change is a new ctag and card etag", async () => {
		const body = propfindBody("<cs:getctag/>");
		const ctag = () =>
			dav(t.app, "PROPFIND", base, { body, headers: { depth: "0" } }).then(
				(r) => found(responses(r.body)[0]).getctag,
			);
		const first = await ctag();
		await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${share.ids.email}`,
			headers: a.headers,
			payload: { value: "ann@example.net" },
		});
		assert.notEqual(await ctag(), first);
		await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${share.ids.email}`,
			headers: a.headers,
			payload: { value: "ann@example.org" },
		});
	});

	test("every write method is refused", async () => {
		for (const method of [
			"PUT",
			"DELETE",
			"POST",
			"PATCH",
			"PROPPATCH",
			"MKCOL",
			"COPY",
			"MOVE",
			"LOCK",
			"UNLOCK",
		]) {
			for (const url of [base, `${base}contact.vcf`]) {
				const res = await dav(t.app, method, url, { body: "<x/>" });
				assert.equal(res.statusCode, 405, `${method} ${url}`);
				assert.equal(res.headers.allow, "OPTIONS, GET, HEAD, PROPFIND, REPORT");
			}
		}
		const card = await dav(t.app, "GET", `${base}contact.vcf`);
		assert.equal(vcard(card.body).getFirstPropertyValue("email"), "ann@example.org", "nothing changed");
	});

	describe("a share the addressbook does not serve answers 404 to every method", () => {
		const cases: [string, string, Record<string, unknown>, Record<string, unknown> | undefined][] = [
			["with a password", "link_not_found", { password: "pw" }, undefined],
			["needing a proven identity", "link_not_found", { requireHandshake: true }, undefined],
			["paused", "link_paused", {}, { status: "paused" }],
			["revoked", "link_revoked", {}, { status: "revoked" }],
			["expired by its view cap", "link_expired", { maxViews: 1 }, undefined],
		];
		for (const [name, code, body, change] of cases) {
			test(name, async () => {
				const rec = await createValue(t.app, a, { key: "email", value: "hidden@example.org" });
				const link = await createLink(t.app, a, { records: [rec.id], ...body });
				if (change) await patchLink(t.app, a, link.id, change);
				if (body.maxViews) await t.app.inject({ method: "POST", url: `/api/public/links/${link.slug}` });
				const at = `/dav/s/${link.slug}/`;
				const multiget = `<card:addressbook-multiget ${NS}><d:prop><card:address-data/></d:prop><d:href>${at}contact.vcf</d:href></card:addressbook-multiget>`;
				for (const [method, url, payload] of [
					["OPTIONS", at, undefined],
					["PROPFIND", at, undefined],
					["REPORT", at, multiget],
					["GET", `${at}contact.vcf`, undefined],
					["GET", at, undefined],
				] as const) {
					const res = await dav(
						t.app,
						method,
						url,
						payload ? { body: payload, headers: { depth: "1" } } : {},
					);
					assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
					assert.equal(res.json().code, code);
					assert.ok(!res.body.includes("hidden@example.org"));
				}
			});
		}
	});

	test("bodies: a DTD (entity expansion) is refused before parsing; malformed XML and oversized bodies too", async () => {
		const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]><d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&lol2;</d:displayname></d:prop></d:propfind>`;
		const dtd = await dav(t.app, "PROPFIND", base, { body: laughs });
		assert.equal(dtd.statusCode, 400);
		assert.equal(dtd.json().code, "bad_request");
		const external = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:"><d:prop>&x;</d:prop></d:propfind>`;
		assert.equal((await dav(t.app, "PROPFIND", base, { body: external })).statusCode, 400);
		assert.equal(
			(await dav(t.app, "PROPFIND", base, { body: "<d:propfind xmlns:d='DAV:'><d:prop>" })).statusCode,
			400,
		);
		const big = `<d:propfind xmlns:d="DAV:"><d:prop>${"<d:displayname/>".repeat(5000)}</d:prop></d:propfind>`;
		assert.equal((await dav(t.app, "PROPFIND", base, { body: big })).statusCode, 413);
		assert.equal((await dav(t.app, "REPORT", base)).statusCode, 400, "a REPORT needs a body");
		const json = await dav(t.app, "PROPFIND", base, {
			headers: { "content-type": "application/json" },
			body: "{}",
		});
		assert.equal(json.statusCode, 400, "not a propfind");
	});
});
