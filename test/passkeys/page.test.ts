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

	test("English by default; German from Accept-Language or ?lang=de; ?lang=en wins over the browser", async () => {
		const c = new PasskeyClient(t.app);
		const signin = () => `?mode=signin&challenge=${pkce().challenge}&state=s`;
		const en = await get(c, signin());
		assert.equal(en.statusCode, 200);
		assert.equal(en.headers["content-language"], "en");
		assert.match(String(en.headers.vary), /Accept-Language/i);
		assert.match(en.body, /<html lang="en">/);
		assert.match(en.body, /<main id="passkey" data-lang="en"/);
		assert.match(en.body, /<h1>Sign in to localhost<\/h1>/);
		assert.match(en.body, />Sign in with a passkey<\/button>/);

		for (const res of [
			await c.request("GET", `/passkey${signin()}`, undefined, {
				"accept-language": "fr;q=0.9, de-DE;q=0.8, en;q=0.5",
			}),
			await get(c, `${signin()}&lang=de`),
		]) {
			assert.equal(res.statusCode, 200);
			assert.equal(res.headers["content-language"], "de");
			assert.match(String(res.headers.vary), /Accept-Language/i);
			assert.match(res.body, /<html lang="de">/);
			assert.match(res.body, /<main id="passkey" data-lang="de"/);
			assert.match(res.body, /<h1>Bei localhost anmelden<\/h1>/);
			assert.match(res.body, />Mit Passkey anmelden<\/button>/);
			assert.match(res.body, /<h2 id="result-heading" tabindex="-1">Fertig<\/h2>/);
			assert.match(res.body, /Falls sich die App nicht geöffnet hat, <a id="result-link" href="#">/);
			assert.match(res.body, />Konsole öffnen<\/a>/);
			assert.match(res.body, /Passkeys brauchen JavaScript/);
			assert.doesNotMatch(res.body, /Sign in|passkey saved|Open the console/);
		}

		const override = await c.request("GET", `/passkey${signin()}&lang=en`, undefined, {
			"accept-language": "de-DE,de;q=0.9",
		});
		assert.equal(override.headers["content-language"], "en");
		assert.match(override.body, /<html lang="en">/);
		assert.match(override.body, /Sign in with a passkey/);

		// An unknown lang is not an error: the browser's language decides.
		const unknown = await c.request("GET", `/passkey${signin()}&lang=fr`, undefined, {
			"accept-language": "de",
		});
		assert.equal(unknown.statusCode, 200);
		assert.equal(unknown.headers["content-language"], "de");
	});

	test("the sign-up and ticket forms in German: labels, button and the account named", async () => {
		const c = new PasskeyClient(t.app);
		const issued = await issueOperatorTicket(t.app.store.db, "erste.person@example.org", Date.now());
		const res = await get(c, `?mode=signup&ticket=${issued.ticket}&lang=de`);
		assert.equal(res.statusCode, 200);
		assert.match(res.body, /<h1>Ihr Konto auf localhost anlegen<\/h1>/);
		assert.match(res.body, /Dieser Einmal-Link legt das Konto <strong>erste\.person@example\.org<\/strong>/);
		assert.match(res.body, /<label for="name">Ihr Name \(optional\)<\/label>/);
		assert.match(res.body, />Passkey erstellen<\/button>/);
	});

	test("refusals in German keep their error codes and parameter names", async () => {
		const c = new PasskeyClient(t.app);
		const de = { "accept-language": "de" };
		const off = await c.request("GET", "/passkey?mode=signup", undefined, de);
		assert.equal(off.statusCode, 400);
		assert.equal(off.headers["content-language"], "de");
		assert.match(off.body, /<html lang="de">/);
		assert.match(off.body, /<h1>Registrierungen sind abgeschaltet<\/h1>/);
		assert.match(off.body, /Einmal-Link seines Betreibers/);

		const app = await c.request("GET", "/passkey", undefined, de);
		assert.match(app.body, /<h1>Bitte aus der App öffnen<\/h1>/);

		const mode = await get(c, "?mode=nope&lang=de");
		assert.match(mode.body, /<h1>Ungültiger Link<\/h1>/);
		assert.match(mode.body, /mode muss signin oder signup sein/);

		const spent = await get(c, "?mode=signup&ticket=unknown&lang=de");
		assert.match(spent.body, /<h1>Link abgelaufen<\/h1>/);

		const wrong = await c.request(
			"GET",
			`/passkey?mode=signin&challenge=${pkce().challenge}&state=s`,
			undefined,
			{ host: "127.0.0.1:8080", "accept-language": "de-AT" },
		);
		assert.equal(wrong.statusCode, 400);
		assert.match(wrong.body, /<h1>Falsche Adresse<\/h1>/);
		assert.match(
			wrong.body,
			/Passkeys funktionieren nur unter http:\/\/localhost:8080 \(passkey_origin_invalid\)\./,
		);
		assert.match(wrong.body, />Weiter unter http:\/\/localhost:8080<\/a>/);
	});

	test("the script carries its words in both languages", async () => {
		const c = new PasskeyClient(t.app);
		const js = await c.request("GET", "/assets/passkey.js");
		assert.match(js.body, /Waiting for your passkey…/);
		assert.match(js.body, /Warte auf Ihren Passkey…/);
		assert.match(js.body, /Fehlercode: /);
		assert.match(js.body, /dataset\.lang/);
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
