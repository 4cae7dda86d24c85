// What the addressbook does with the bodies it is sent: every write is 405 with `Allow` before its
// body is read (whatever its type or size), the card inside a REPORT keeps its CRLF line ends when
// an XML parser reads it back, and XML that nests too deep, holds too many references or names an
// element `__proto__` or `constructor` is answered (400 or a normal answer), never 500: for an
// unknown slug as for a real one.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { XMLParser } from "fast-xml-parser";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";
import { nextIp } from "../shares/helpers.ts";
import { type ContactShare, contactShare, dav } from "./helpers.ts";

const NS = 'xmlns:d="DAV:" xmlns:card="urn:ietf:params:xml:ns:carddav"';
const ALLOW = "OPTIONS, GET, HEAD, PROPFIND, REPORT";
const WRITES = ["PUT", "DELETE", "POST", "PATCH", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK"];

/** An XML parser as a client has one: line ends normalized (XML 1.0 §2.11), references read. */
const reader = new XMLParser({
	removeNSPrefix: true,
	ignoreAttributes: false,
	htmlEntities: true,
	trimValues: false,
	parseTagValue: false,
	isArray: (name) => ["response", "propstat"].includes(name),
});

interface Propstat {
	prop: Record<string, unknown>;
	status: string;
}
interface Multistatus {
	multistatus: { response?: { href: string; propstat?: Propstat[] }[] };
}

function propstats(body: string): Propstat[] {
	return (reader.parse(body) as Multistatus).multistatus.response?.flatMap((r) => r.propstat ?? []) ?? [];
}

/** The same with prefixes kept (the book writes `d:` and, for another namespace, `x:`): fast-xml-parser refuses an unprefixed `constructor`. */
const prefixed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "d:propstat" });

function prefixedPropstats(body: string): Propstat[] {
	const doc = prefixed.parse(body) as Record<string, Record<string, Record<string, unknown[]>>>;
	const stats = (doc["d:multistatus"]?.["d:response"]?.["d:propstat"] ?? []) as Record<string, unknown>[];
	return stats.map((s) => ({ prop: s["d:prop"] as Record<string, unknown>, status: String(s["d:status"]) }));
}

const CARD = `BEGIN:VCARD\r\nVERSION:4.0\r\nFN:Bo\r\nEND:VCARD\r\n`;

describe("addressbook bodies", () => {
	let t: TestApp;
	let share: ContactShare;
	before(async () => {
		t = await makeApp({ domain: "share.example" });
		share = await contactShare(t.app, await buildAccount(t.app, { name: "Ann" }));
	});
	after(() => t.close());

	test("every write is 405 with Allow whatever the body's type and size, nothing changed", async () => {
		const bodies: [string, string | Buffer][] = [
			["text/vcard", CARD],
			["text/vcard; charset=utf-8", CARD],
			["text/x-vcard", CARD],
			["application/json", "{not json"],
			["application/octet-stream", Buffer.from([0, 1, 2])],
			["application/xml", "<d:propertyupdate"],
			["multipart/form-data; boundary=x", "--x--"],
			["text/vcard", "NOTE:x\r\n".repeat(150_000)],
		];
		const before = (await dav(t.app, "GET", `/dav/s/${share.slug}/contact.vcf`)).body;
		for (const slug of [share.slug, "no-such-share"]) {
			const urls = [`/dav/s/${slug}/`, `/dav/s/${slug}/contact.vcf`, `/dav/s/${slug}/new-contact.vcf`];
			for (const method of WRITES) {
				for (const url of urls) {
					for (const [type, payload] of bodies) {
						const res = await t.app.inject({
							method: method as "PUT",
							url,
							headers: { "content-type": type },
							payload,
							remoteAddress: nextIp(),
						});
						const what = `${method} ${url} (${type}, ${payload.length} bytes)`;
						assert.equal(res.statusCode, 405, `${what}: ${res.body}`);
						assert.equal(res.headers.allow, ALLOW, what);
						assert.equal(res.json().code, "method_not_allowed", what);
						assert.match(String(res.headers["content-type"]), /^application\/problem\+json/);
					}
					const bare = await t.app.inject({ method: method as "PUT", url, remoteAddress: nextIp() });
					assert.equal(bare.statusCode, 405, `${method} ${url} without a body`);
					assert.equal(bare.headers.allow, ALLOW);
				}
			}
		}
		const after = (await dav(t.app, "GET", `/dav/s/${share.slug}/contact.vcf`)).body;
		assert.equal(after, before, "the card did not change");
	});

	test("REPORT: the card's CRLF line ends survive an XML parser (written as &#13;)", async () => {
		const base = `/dav/s/${share.slug}/`;
		const card = await dav(t.app, "GET", `${base}contact.vcf`);
		assert.equal(card.statusCode, 200);
		assert.match(card.body, /\r\n/);
		for (const body of [
			`<card:addressbook-multiget ${NS}><d:prop><d:getetag/><card:address-data/></d:prop><d:href>${base}contact.vcf</d:href></card:addressbook-multiget>`,
			`<card:addressbook-query ${NS}><d:prop><card:address-data/></d:prop></card:addressbook-query>`,
		]) {
			const res = await dav(t.app, "REPORT", base, { body, headers: { depth: "1" } });
			assert.equal(res.statusCode, 207, res.body);
			const data = propstats(res.body).find((p) => p.status === "HTTP/1.1 200 OK")?.prop["address-data"];
			assert.equal(data, card.body, "the card byte for byte, CRLF kept");
			assert.ok(!res.body.includes("\r"), "no raw CR in the XML: a parser would read it as LF");
		}
	});

	describe("XML that nests deep, holds many references or names __proto__ is never a 500", () => {
		const prop = (inner: string) => `<d:propfind ${NS}><d:prop>${inner}</d:prop></d:propfind>`;
		const nest = (n: number) => `${'<x:a xmlns:x="urn:x">'.repeat(n)}${"</x:a>".repeat(n)}`;
		const refused: [string, string, string][] = [
			["nesting deeper than 100 (101 levels)", "PROPFIND", prop(nest(99))],
			["nesting far deeper (2,000 levels)", "PROPFIND", prop(nest(2000))],
			[
				"nesting deeper than 100 in a REPORT",
				"REPORT",
				`<card:addressbook-query ${NS}>${nest(100)}</card:addressbook-query>`,
			],
			[
				"1,001 predefined entities",
				"PROPFIND",
				prop(`<d:displayname>${"&amp;".repeat(1001)}</d:displayname>`),
			],
			[
				"1,001 character references",
				"PROPFIND",
				prop(`<d:displayname>${"&#65;".repeat(1001)}</d:displayname>`),
			],
			[
				"1,001 references in attributes",
				"REPORT",
				`<card:addressbook-multiget ${NS} x="${"&lt;".repeat(1001)}"/>`,
			],
		];
		for (const [name, method, body] of refused) {
			test(`${name}: 400 bad_request`, async () => {
				for (const slug of [share.slug, "no-such-share"]) {
					const res = await dav(t.app, method, `/dav/s/${slug}/`, { body, headers: { depth: "1" } });
					assert.equal(res.statusCode, 400, `${slug}: ${res.body}`);
					assert.equal(res.json().code, "bad_request");
				}
			});
		}

		test("within the bounds: 100 levels and 1,000 references are read", async () => {
			for (const body of [
				prop(nest(98)),
				prop(`<d:displayname>${"&amp;".repeat(500)}${"&#65;".repeat(500)}</d:displayname>`),
			]) {
				const res = await dav(t.app, "PROPFIND", `/dav/s/${share.slug}/`, { body, headers: { depth: "0" } });
				assert.equal(res.statusCode, 207, res.body);
				const unknown = await dav(t.app, "PROPFIND", "/dav/s/no-such-share/", { body });
				assert.equal(unknown.statusCode, 404, unknown.body);
				assert.equal(unknown.json().code, "link_not_found");
			}
		});

		const names = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty"];
		test("an element or attribute named __proto__, constructor, …: an unknown property (404 propstat)", async () => {
			for (const n of names) {
				for (const inner of [`<${n} xmlns="urn:x"/>`, `<x:${n} xmlns:x="urn:x"/>`, `<${n} xmlns="${n}"/>`]) {
					const body = `<d:propfind ${NS} ${n}="1"><d:prop ${n}="2">${inner}<d:displayname/></d:prop></d:propfind>`;
					const res = await dav(t.app, "PROPFIND", `/dav/s/${share.slug}/`, {
						body,
						headers: { depth: "0" },
					});
					assert.equal(res.statusCode, 207, `${inner}: ${res.body}`);
					const stats = prefixedPropstats(res.body);
					const missing = stats.find((p) => p.status === "HTTP/1.1 404 Not Found")?.prop ?? {};
					assert.ok(Object.hasOwn(missing, `x:${n}`), `${inner} is in the 404 propstat: ${res.body}`);
					const ok = stats.find((p) => p.status === "HTTP/1.1 200 OK")?.prop ?? {};
					assert.equal(ok["d:displayname"], "For the landlord");
					const unknown = await dav(t.app, "PROPFIND", "/dav/s/no-such-share/", { body });
					assert.equal(unknown.statusCode, 404, unknown.body);
				}
			}
		});

		test("as the root element: 400 for PROPFIND, 403 supported-report for REPORT", async () => {
			for (const n of names) {
				for (const slug of [share.slug, "no-such-share"]) {
					const at = `/dav/s/${slug}/`;
					const propfind = await dav(t.app, "PROPFIND", at, { body: `<${n}/>` });
					assert.equal(propfind.statusCode, 400, `${n} ${slug}: ${propfind.body}`);
					assert.equal(propfind.json().code, "bad_request");
					const report = await dav(t.app, "REPORT", at, { body: `<${n} xmlns="DAV:"><${n}/></${n}>` });
					assert.equal(report.statusCode, 403, `${n} ${slug}: ${report.body}`);
					assert.match(report.body, /supported-report/);
				}
			}
		});

		test("a collation or match type named __proto__ or constructor is unsupported (403), not a 500", async () => {
			for (const n of names) {
				for (const [attr, precondition] of [
					["collation", "supported-collation"],
					["match-type", "supported-filter"],
				] as const) {
					const body = `<card:addressbook-query ${NS}><d:prop><d:getetag/></d:prop><card:filter><card:prop-filter name="FN"><card:text-match ${attr}="${n}">Ann</card:text-match></card:prop-filter></card:filter></card:addressbook-query>`;
					const res = await dav(t.app, "REPORT", `/dav/s/${share.slug}/`, { body, headers: { depth: "1" } });
					assert.equal(res.statusCode, 403, `${attr}=${n}: ${res.body}`);
					assert.match(res.body, new RegExp(precondition));
					const unknown = await dav(t.app, "REPORT", "/dav/s/no-such-share/", {
						body,
						headers: { depth: "1" },
					});
					assert.equal(unknown.statusCode, 404, unknown.body);
				}
			}
		});
	});
});
