// The front page and the console's files over HTTP: status, headers (CSP, caching), what the front
// page states, the SPA fallback, and the first load's compressed script within 150 KB.
// Runs once, not per database: the front page and the console's static files over HTTP, which read no database.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import zlib from "node:zlib";
import { PAGE_CSP } from "../../src/http/security-headers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";

const NO_INLINE = /<script>|<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i;

describe("front page and console files", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp({ allowSignups: false });
	});
	after(() => t.close());

	test("GET / says what this server is, with its domain and fingerprint, under a strict CSP", async () => {
		const res = await t.app.inject({ url: "/" });
		assert.equal(res.statusCode, 200);
		assert.match(String(res.headers["content-type"]), /^text\/html/);
		assert.equal(res.headers["content-security-policy"], PAGE_CSP);
		assert.doesNotMatch(res.body, NO_INLINE);
		assert.match(res.body, /<html lang="en">/);
		assert.ok(res.body.includes(t.app.rootKey.fingerprint), "the root key fingerprint is shown");
		assert.match(res.body, /_svc\.localhost TXT/);
		assert.match(res.body, /href="\/app\/signin"/);
		assert.doesNotMatch(res.body, /href="\/app\/signup"/, "no sign-up link while sign-ups are off");
		assert.match(res.body, /one-time link/);
		assert.match(res.body, /href="\/api\/openapi\.json"/);
		const css = res.body.match(/href="(\/app\/assets\/front-[^"]+\.css)"/)?.[1];
		assert.ok(css, "the front page links its stylesheet");
		assert.equal((await t.app.inject({ url: css })).statusCode, 200);
	});

	test("GET /favicon.ico and /favicon.svg answer the server's icon, which the pages link", async () => {
		for (const url of ["/favicon.ico", "/favicon.svg"]) {
			const res = await t.app.inject({ url });
			assert.equal(res.statusCode, 200, url);
			assert.equal(res.headers["content-type"], "image/svg+xml");
			assert.match(res.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
			assert.match(String(res.headers["cache-control"]), /max-age=86400/);
		}
		for (const url of ["/", "/app"]) {
			const page = await t.app.inject({ url });
			assert.match(page.body, /<link rel="icon" href="\/favicon\.svg" type="image\/svg\+xml">/, url);
		}
	});

	test("German from Accept-Language, and from ?lang=de", async () => {
		const de = await t.app.inject({
			url: "/",
			headers: { "accept-language": "fr;q=0.9, de-AT;q=0.8, en;q=0.5" },
		});
		assert.match(de.body, /<html lang="de">/);
		assert.match(de.body, /Anmelden/);
		const en = await t.app.inject({ url: "/", headers: { "accept-language": "en-GB, de;q=0.9" } });
		assert.match(en.body, /<html lang="en">/);
		const forced = await t.app.inject({ url: "/?lang=de" });
		assert.match(forced.body, /Lebendige Freigaben/);
	});

	test("with sign-ups on, the front page offers them", async () => {
		const open = await makeApp({ allowSignups: true });
		try {
			const res = await open.app.inject({ url: "/" });
			assert.match(res.body, /href="\/app\/signup"/);
			const app = await open.app.inject({ url: "/app" });
			assert.match(app.body, /data-signups="true"/);
		} finally {
			await open.close();
		}
	});

	test("every /app path answers the console page, not cached, strict CSP, scripts from this origin", async () => {
		for (const url of ["/app", "/app/", "/app/keys", "/app/deep/path?x=1"]) {
			const res = await t.app.inject({ url });
			assert.equal(res.statusCode, 200, url);
			assert.equal(res.headers["cache-control"], "no-cache", url);
			assert.equal(res.headers["content-security-policy"], PAGE_CSP, url);
			assert.doesNotMatch(res.body, NO_INLINE, url);
			assert.match(res.body, /<script type="module" src="\/app\/assets\/main-[A-Z0-9]+\.js"><\/script>/);
			assert.match(res.body, /data-domain="localhost"/);
			assert.match(res.body, /data-signups="false"/);
		}
	});

	test("hashed files are cached as immutable and served gzipped when asked; unknown names are 404", async () => {
		const html = (await t.app.inject({ url: "/app" })).body;
		const files = [...html.matchAll(/\/app\/assets\/([^"]+)"/g)].map((m) => m[1]);
		assert.ok(files.length >= 2, "a script and a stylesheet at least");
		for (const file of files) {
			const res = await t.app.inject({
				url: `/app/assets/${file}`,
				headers: { "accept-encoding": "gzip, br" },
			});
			assert.equal(res.statusCode, 200, file);
			assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
			assert.match(
				String(res.headers["content-type"]),
				file?.endsWith(".css") ? /^text\/css/ : /^text\/javascript/,
			);
			assert.equal(res.headers.vary, "accept-encoding");
			const plain = await t.app.inject({ url: `/app/assets/${file}` });
			assert.equal(plain.headers["content-encoding"], undefined);
			if (res.headers["content-encoding"] === "gzip")
				assert.deepEqual(zlib.gunzipSync(res.rawPayload), plain.rawPayload);
		}
		for (const url of ["/app/assets/nope-ABC.js", "/app/assets/..%2Fpackage.json", "/app/assets/a%00.js"]) {
			const res = await t.app.inject({ url });
			assert.equal(res.statusCode, 404, url);
			assert.equal(res.json().code, "not_found");
		}
	});

	test("the first load (entry and the chunks it imports) is under 150 KB of compressed script", async () => {
		const html = (await t.app.inject({ url: "/app" })).body;
		const scripts = [...html.matchAll(/(?:src|href)="\/app\/assets\/([^"]+\.js)"/g)].map((m) => m[1]);
		let total = 0;
		for (const file of scripts) {
			const res = await t.app.inject({ url: `/app/assets/${file}` });
			total += zlib.gzipSync(res.rawPayload, { level: 9 }).length;
		}
		assert.ok(scripts.length >= 1);
		assert.ok(total < 150 * 1024, `first load: ${total} bytes gzipped`);
	});

	test("the OpenAPI document names the front page and the console", async () => {
		const doc = (await t.app.inject({ url: "/api/openapi.json" })).json();
		assert.ok(doc.paths["/"]?.get?.summary);
		assert.ok(doc.paths["/app"]?.get?.summary);
	});
});
