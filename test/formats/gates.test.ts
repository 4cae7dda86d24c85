// The share's gates through `/s/{slug}`, in the resolve's order with the resolve's codes: a
// password through the page's plain form or HTTP Basic (also for a 304), a handshake share that
// sends the reader to the app, and paused, revoked, expired and unknown shares answering 404 in
// every format. The page's download buttons are the resolve's one-time tokens.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, nextIp, patchLink, uploadFile } from "../shares/helpers.ts";
import { csv, html, page, postForm, views } from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 24, 12);
const SECRET = "DE89 3704 0044 0532 0130 00";

const basic = (password: string) => `Basic ${Buffer.from(`anyone:${password}`).toString("base64")}`;

describe("gates of the share page", () => {
	let t: TestApp;
	let a: TestAccount;
	const clock = new ManualClock(T0);
	before(async () => {
		t = await makeApp({ domain: "share.example" }, { clock });
		a = await buildAccount(t.app, { name: "Ann" });
	});
	after(() => t.close());

	async function share(body: Record<string, unknown> = {}) {
		const rec = await createValue(t.app, a, { key: "iban", name: "IBAN", value: SECRET });
		const link = await createLink(t.app, a, { label: "Rent", records: [rec.id], ...body });
		return { slug: link.slug, id: link.id };
	}

	describe("a share with a password", () => {
		test("the page asks with a plain form and shows nothing else; no view is taken", async () => {
			const s = await share({ password: "open sesame" });
			const res = await page(t.app, s.slug);
			assert.equal(res.statusCode, 200);
			assert.ok(!res.body.includes(SECRET));
			assert.equal(res.headers["cache-control"], "no-store");
			const doc = html(res.body);
			const form = doc.byTag("form")[0];
			assert.ok(form, "a form");
			assert.equal(doc.attr(form, "method"), "post");
			assert.equal(doc.attr(form, "action"), `/s/${s.slug}`);
			const input = doc.first("input", (i) => doc.attr(i, "type") === "password");
			const label = doc.byTag("label").find((l) => doc.attr(l, "for") === doc.attr(input, "id"));
			assert.ok(label, "the password field has a label");
			assert.equal(doc.byTag("script").length, 0);
			assert.equal(await views(t.app, s.slug), 0);
		});

		test("the form, posted as a browser posts it: a wrong password shows it again; the right one shows the values", async () => {
			const s = await share({ password: "open sesame" });
			const doc = html((await page(t.app, s.slug)).body);
			const action = doc.must(doc.first("form"), "action");
			// The page asks only for the password: the formats are offered once it is open.
			const names = [...doc.byTag("input"), ...doc.byTag("select")].map((e) => doc.attr(e, "name"));
			assert.deepEqual(names, ["password"]);

			const wrong = await postForm(t.app, action.slice("/s/".length), { password: "guess", format: "html" });
			assert.equal(wrong.statusCode, 403);
			assert.ok(!wrong.body.includes(SECRET));
			const refused = html(wrong.body);
			const alert = refused.first("p", (e) => refused.attr(e, "role") === "alert");
			assert.equal(refused.textOf(alert), "The password is wrong.");
			assert.equal(await views(t.app, s.slug), 0, "a refused gate takes no view");

			const empty = await postForm(t.app, s.slug, { password: "" });
			assert.equal(empty.statusCode, 200);
			assert.ok(empty.body.includes("Enter the password."));

			const right = await postForm(t.app, s.slug, { password: "open sesame", format: "html" });
			assert.equal(right.statusCode, 200);
			assert.equal(html(right.body).entries().get("IBAN"), SECRET);
			assert.equal(await views(t.app, s.slug), 1);

			const asCsv = await postForm(t.app, s.slug, { password: "open sesame", format: "csv" });
			assert.equal(asCsv.statusCode, 200);
			assert.equal(csv(asCsv.body)[1]?.[3], SECRET);
			assert.equal(await views(t.app, s.slug), 2);
		});

		test("the data formats ask for HTTP Basic; a 304 needs the password too", async () => {
			const s = await share({ password: "open sesame" });
			const none = await page(t.app, s.slug, { format: "vcf" });
			assert.equal(none.statusCode, 401);
			assert.equal(none.json().code, "link_password_required");
			assert.match(String(none.headers["www-authenticate"]), /^Basic realm="share"/);
			const wrong = await page(t.app, s.slug, { format: "vcf", headers: { authorization: basic("guess") } });
			assert.equal(wrong.json().code, "link_password_invalid");
			const right = await page(t.app, s.slug, {
				format: "vcf",
				headers: { authorization: basic("open sesame") },
			});
			assert.equal(right.statusCode, 200);
			assert.ok(right.body.includes(SECRET));
			const tag = String(right.headers.etag);
			const same = await page(t.app, s.slug, {
				format: "vcf",
				headers: { authorization: basic("open sesame"), "if-none-match": tag },
			});
			assert.equal(same.statusCode, 304);
			const noPassword = await page(t.app, s.slug, { format: "vcf", headers: { "if-none-match": tag } });
			assert.equal(noPassword.statusCode, 401, "no 304 without the password");
			assert.equal(noPassword.json().code, "link_password_required");
			assert.equal(await views(t.app, s.slug), 1);
		});
	});

	test("a client that does not ask for HTML by name gets the gates' codes for the page too", async () => {
		const s = await share({ password: "open sesame" });
		const curl = { accept: "*/*" };
		const none = await page(t.app, s.slug, { headers: curl });
		assert.equal(none.statusCode, 401);
		assert.equal(none.json().code, "link_password_required");
		assert.match(String(none.headers["www-authenticate"]), /^Basic/);
		const opened = await page(t.app, s.slug, { headers: { ...curl, authorization: basic("open sesame") } });
		assert.equal(opened.statusCode, 200);
		assert.equal(html(opened.body).entries().get("IBAN"), SECRET);
		const gone = await page(t.app, "no-such-share", { headers: curl });
		assert.equal(gone.json().code, "link_not_found");
	});

	test("a share needing a proven identity: the page sends the reader to the app; the formats say challenge_required", async () => {
		const s = await share({ requireHandshake: true, password: "also" });
		const res = await page(t.app, s.slug);
		assert.equal(res.statusCode, 403);
		assert.ok(!res.body.includes(SECRET));
		assert.ok(res.body.includes("Open this share in the app"));
		assert.equal(
			html(res.body).byTag("form").length,
			0,
			"no password asked: the page could not pass the handshake",
		);
		const data = await page(t.app, s.slug, { format: "csv", headers: { authorization: basic("also") } });
		assert.equal(data.statusCode, 401);
		assert.equal(data.json().code, "challenge_required");
		assert.equal(await views(t.app, s.slug), 0);
	});

	describe("paused, revoked, expired and unknown shares answer 404 in every format", () => {
		// The page says what happened in words, never the API's code (issue 39.6).
		const cases: [string, string, string, (s: { id: string }) => Promise<void>][] = [
			[
				"paused",
				"link_paused",
				"Diese Freigabe ist pausiert",
				async (s) => void (await patchLink(t.app, a, s.id, { status: "paused" })),
			],
			[
				"revoked",
				"link_revoked",
				"Diese Freigabe wurde zurückgezogen",
				async (s) => void (await patchLink(t.app, a, s.id, { status: "revoked" })),
			],
			[
				"expired by time",
				"link_expired",
				"Diese Freigabe ist abgelaufen",
				async () => clock.advance(2 * 3600_000),
			],
		];
		for (const [name, code, heading, make] of cases) {
			test(name, async () => {
				const s = await share({ expiresAt: new Date(clock.now() + 3600_000).toISOString(), password: "pw" });
				const tag = "*";
				await make(s);
				const res = await page(t.app, s.slug, { headers: { "accept-language": "de" } });
				assert.equal(res.statusCode, 404);
				assert.match(String(res.headers["content-type"]), /text\/html/);
				assert.equal(html(res.body).textOf(html(res.body).first("h1")), heading);
				assert.ok(!res.body.includes(code), "no raw code on the page");
				for (const format of ["csv", "vcf", "ics"]) {
					const data = await page(t.app, s.slug, {
						format,
						headers: { authorization: basic("pw"), "if-none-match": tag },
					});
					assert.equal(data.statusCode, 404, format);
					assert.equal(data.json().code, code);
				}
				const posted = await postForm(t.app, s.slug, { password: "pw" });
				assert.equal(posted.statusCode, 404);
			});
		}

		test("unknown", async () => {
			const res = await page(t.app, "no-such-share");
			assert.equal(res.statusCode, 404);
			assert.ok(res.body.includes("There is no share at this address."));
			const data = await page(t.app, "no-such-share", { format: "ics" });
			assert.equal(data.json().code, "link_not_found");
		});
	});

	test("a download button is the resolve's one-time token on the public download endpoint", async () => {
		const bytes = Buffer.from("%PDF-1.4 the lease");
		const file = await uploadFile(t.app, a, { key: "lease" }, { bytes, name: "lease.pdf" });
		const other = await uploadFile(
			t.app,
			a,
			{ key: "id" },
			{ bytes: Buffer.from("%PDF-1.4 id"), name: "id.pdf" },
		);
		const link = await createLink(t.app, a, { records: [file.id, other.id] });
		const doc = html((await page(t.app, link.slug)).body);
		const buttons = doc.byTag("a").filter((l) => doc.attr(l, "class") === "button");
		const [button] = buttons;
		assert.ok(button);
		const href = doc.must(button, "href");
		assert.match(href, new RegExp(`^/api/public/links/${link.slug}/files/${file.id}\\?dl=`));
		const got = await t.app.inject({ url: href, remoteAddress: nextIp() });
		assert.equal(got.statusCode, 200);
		assert.ok(got.rawPayload.equals(bytes));
		assert.equal((await t.app.inject({ url: href, remoteAddress: nextIp() })).statusCode, 401, "once");
		const last = buttons.at(-1);
		assert.ok(last);
		const zip = doc.must(last, "href");
		assert.match(zip, /\/archive\?dl=/);
		assert.equal((await t.app.inject({ url: zip, remoteAddress: nextIp() })).statusCode, 200);
	});
});
