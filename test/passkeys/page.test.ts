import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { issueOperatorTicket } from "../../src/features/passkeys/service.ts";
import { PAGE_CSP } from "../../src/http/security-headers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";
import { pkce } from "../helpers/webauthn.ts";

describe("the /passkey page", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp({ allowSignups: false });
	});
	after(() => t.close());

	const get = (c: PasskeyClient, query: string) => c.request("GET", `/passkey${query}`);

	test("sign-in page: strict CSP, no inline script or style, values only as data attributes", async () => {
		const c = new PasskeyClient(t.app);
		const { challenge } = pkce();
		const res = await get(c, `?mode=signin&challenge=${challenge}&state=st.1~x`);
		assert.equal(res.statusCode, 200);
		assert.match(String(res.headers["content-type"]), /^text\/html/);
		assert.equal(res.headers["content-security-policy"], PAGE_CSP);
		assert.equal(res.headers["cache-control"], "no-store");
		assert.doesNotMatch(res.body, /<script>|<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
		assert.match(res.body, new RegExp(`data-challenge="${challenge}"`));
		assert.match(res.body, /data-state="st\.1~x"/);
		assert.match(res.body, /src="\/assets\/simplewebauthn-browser\.js"/);
		assert.match(res.body, /src="\/assets\/passkey\.js"/);
	});

	test("mode defaults to signin, which needs the app's challenge", async () => {
		const c = new PasskeyClient(t.app);
		const res = await get(c, "");
		assert.equal(res.statusCode, 400);
		assert.match(res.body, /Sign-in starts in the app/);
	});

	test("malformed links are refused on the page without reflecting the input", async () => {
		const c = new PasskeyClient(t.app);
		const evil = encodeURIComponent('"><script>alert(1)</script>');
		for (const query of [
			`?mode=${evil}`,
			`?mode=signin&challenge=${evil}&state=x`,
			`?mode=signin&challenge=${pkce().challenge}&state=${evil}`,
			`?mode=signin&challenge=${pkce().challenge}`,
			`?mode=signup&ticket=${evil}`,
		]) {
			const res = await get(c, query);
			assert.equal(res.statusCode, 400, query);
			assert.doesNotMatch(res.body, /<script>alert/);
			assert.match(res.body, /role="alert"/);
		}
	});

	test("a repeated query parameter is a 400 problem, not a 500", async () => {
		const c = new PasskeyClient(t.app);
		const res = await get(c, "?mode=signin&mode=signup");
		assert.equal(res.statusCode, 400);
		assert.equal(res.json().code, "validation_failed");
	});

	test("signup without a ticket needs ALLOW_SIGNUPS; a ticket page names the account", async () => {
		const c = new PasskeyClient(t.app);
		const off = await get(c, "?mode=signup");
		assert.equal(off.statusCode, 400);
		assert.match(off.body, /Sign-ups are off/);
		const issued = await issueOperatorTicket(t.app.store.db, "first.owner@example.org", Date.now());
		const res = await get(c, `?mode=signup&ticket=${issued.ticket}`);
		assert.equal(res.statusCode, 200);
		assert.match(res.body, /first\.owner@example\.org/);
		assert.match(res.body, new RegExp(`data-ticket="${issued.ticket}"`));
	});

	test("at a loopback IP the page refuses and links to the server's own address", async () => {
		const c = new PasskeyClient(t.app);
		const res = await c.request(
			"GET",
			`/passkey?mode=signin&challenge=${pkce().challenge}&state=s`,
			undefined,
			{
				host: "127.0.0.1:8080",
			},
		);
		assert.equal(res.statusCode, 400);
		assert.match(res.body, /passkey_origin_invalid/);
		assert.match(res.body, /href="http:\/\/localhost:8080\/passkey\?mode=signin&amp;challenge=/);
	});

	test("the scripts and the stylesheet are served from this server", async () => {
		const c = new PasskeyClient(t.app);
		const lib = await c.request("GET", "/assets/simplewebauthn-browser.js");
		assert.equal(lib.statusCode, 200);
		assert.match(String(lib.headers["content-type"]), /^text\/javascript/);
		assert.match(lib.body, /SimpleWebAuthnBrowser/);
		assert.match(lib.body, /@simplewebauthn\/browser@14\./);
		const js = await c.request("GET", "/assets/passkey.js");
		assert.equal(js.statusCode, 200);
		assert.match(js.body, /svc:\/\/auth\?/);
		const css = await c.request("GET", "/assets/passkey.css");
		assert.match(String(css.headers["content-type"]), /^text\/css/);
	});
});
