// The console as the holder's app for credentials, in Chromium, across two servers and a DNS
// server on loopback: attest.test (a server process) offers an attestation; a person of hold.test
// (this process), whose identity key the console made in this browser, accepts it at the console's
// offer screen (svc://a/…), then presents it at the present screen (svc://present?…) to the example
// service (examples/present-service), unticking a claim. The service checks it with
// `POST /api/attestations/verify` and shows `verified`, key-bound, the unticked claim withheld; a
// declined request sends nothing; malformed links are refused naming the part; the revoked
// credential then presents as `revoked`. The page runs under the console's own CSP (axe is served
// from the console's origin, not injected inline). axe-clean in English and German, 1280 and 390 px.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { startPresentService } from "../../examples/present-service/service.mjs";
import { openStore, type Store } from "../../src/db/index.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { makeApp, type TestApp, type TestEnv, testEnv } from "../helpers/app.ts";
import {
	AXE_TAGS,
	type AxeViolation,
	DESKTOP,
	describeViolations,
	freePort,
	launchBrowser,
	PHONE,
	screenReady,
	screenshot,
} from "../helpers/browser.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { type ServerProcess, startServer } from "../helpers/process.ts";

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

type Service = Awaited<ReturnType<typeof startPresentService>>;

describe("the console accepts an offer and presents the credential (two servers, Chromium)", {
	timeout: 600_000,
}, () => {
	let dns: TestDns;
	let attesterEnv: TestEnv;
	let attester: ServerProcess;
	let attesterStore: Store;
	let attesterToken: string;
	let attesterWorkspace: string;
	let t: TestApp;
	let consoleOrigin: string;
	let person: TestAccount;
	let service: Service;
	let browser: Browser;
	let context: BrowserContext;
	let page: Page;
	let attestationId: string;

	before(async () => {
		dns = await startDns();
		const [attestPort, holdPort] = [await freePort(), await freePort()];
		const holdOrigin = `http://127.0.0.1:${holdPort}`;
		// The console runs at localhost (the passkey origin rule); the API is the same process.
		consoleOrigin = `http://localhost:${holdPort}`;
		attesterEnv = testEnv({ domain: "attest.test" });
		attester = await startServer({
			DOMAIN: "attest.test",
			PORT: String(attestPort),
			ALLOW_ATTESTATIONS: "true",
			DATA_DIR: attesterEnv.config.dataDir,
			DATABASE_URL: attesterEnv.config.databaseUrl,
			DATABASE_SCHEMA: attesterEnv.config.databaseSchema,
			DNS_SERVERS: dns.server,
			PEER_OVERRIDES: `hold.test=${holdOrigin}`,
			REDIS_URL: "",
		});
		attesterStore = await openStore(attesterEnv.config);
		const admin = await createAccount(
			attesterStore.db,
			{ email: "registry@attest.test", name: "Registry" },
			Date.now(),
		);
		attesterWorkspace = admin.workspaceId;
		attesterToken = (await createSession(attesterStore.db, admin.accountId, Date.now())).token;
		t = await makeApp({
			domain: "hold.test",
			port: holdPort,
			dnsServers: [dns.server],
			peerOverrides: { "attest.test": attester.url },
			// The example service listens on loopback: hold.test may post presentations there.
			allowPrivateCallbacks: true,
		});
		await t.app.listen({ port: holdPort, host: "127.0.0.1" });
		const attesterFingerprint = (
			(await (await fetch(`${attester.url}/api/server`)).json()) as { fingerprint: string }
		).fingerprint;
		dns.txt.set("_svc.attest.test", [attesterFingerprint]);
		dns.txt.set("_svc.hold.test", [t.app.rootKey.fingerprint]);
		person = await buildAccount(t.app, { name: "Ada" });

		// The example service asks for a membership from attest.test, showing three claims; it asks
		// the attester to verify (which reads its own status list at once).
		service = await startPresentService({
			verifier: attester.url,
			type: "membership",
			issuers: "attest.test",
			claims: "member,club,grade",
		});

		browser = await launchBrowser();
		context = await browser.newContext({ viewport: DESKTOP, locale: "en-US" });
		await context.addInitScript({
			content: `sessionStorage.setItem("svc.session", ${JSON.stringify(person.token)});`,
		});
		// axe from the console's own origin, so the page keeps its CSP (script-src 'self').
		await context.route(`${consoleOrigin}/__axe.js`, (route) =>
			route.fulfill({ status: 200, contentType: "text/javascript", body: axeSource }),
		);
		page = await context.newPage();
	});

	after(async () => {
		await browser?.close();
		await service?.close();
		await t?.close();
		await attester?.stop();
		await attesterStore?.destroy();
		await attesterEnv?.dispose();
		await dns?.close();
	});

	async function offer(claims: Record<string, unknown>, extra: Record<string, unknown> = {}) {
		const res = await fetch(`${attester.url}/api/collections/attestations/records`, {
			method: "POST",
			headers: { authorization: `Bearer ${attesterToken}`, "content-type": "application/json" },
			body: JSON.stringify({
				workspace: attesterWorkspace,
				type: "membership",
				label: "Chess club",
				claims,
				...extra,
			}),
		});
		assert.equal(res.status, 200, await res.clone().text());
		return {
			id: ((await res.json()) as { id: string }).id,
			link: `svc://a/attest.test/${String(res.headers.get("x-attestation-token"))}`,
		};
	}

	async function revoke(id: string) {
		const res = await fetch(`${attester.url}/api/collections/attestations/records/${id}`, {
			method: "PATCH",
			headers: { authorization: `Bearer ${attesterToken}`, "content-type": "application/json" },
			body: JSON.stringify({ status: "revoked" }),
		});
		assert.equal(res.status, 200);
	}

	const at = (screen: "offer" | "present", link: string) =>
		`${consoleOrigin}/app/credentials/${screen}?${new URLSearchParams({ link })}`;

	/** The screen in both languages at both widths: axe-clean, and its screenshots (SCREENSHOTS=1). */
	async function checkScreen(url: string, name: string, ready: (p: Page) => Promise<void>) {
		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				await page.setViewportSize(viewport);
				await page.evaluate(`localStorage.setItem("svc.lang", ${JSON.stringify(lang)})`);
				await page.goto(url);
				await screenReady(page);
				await ready(page);
				await screenshot(page, lang === "en" ? name : `${name}-de`);
				await page.addScriptTag({ url: `${consoleOrigin}/__axe.js` });
				const violations = await page.evaluate<AxeViolation[]>(
					`axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(AXE_TAGS)} } }).then((r) => r.violations)`,
				);
				assert.deepEqual(
					violations,
					[],
					`${name} ${lang} ${viewport.width}px:\n${describeViolations(violations)}`,
				);
			}
		}
		await page.setViewportSize(DESKTOP);
		await page.evaluate(`localStorage.setItem("svc.lang", "en")`);
	}

	test("an identity made in this browser accepts the offer at the console's offer screen", async () => {
		await page.goto(`${consoleOrigin}/app/identities`);
		await screenReady(page, "Identities");
		await page.locator("main .page-actions").getByRole("button", { name: "Create an identity" }).click();
		const dialog = page.getByRole("dialog", { name: "Create an identity" });
		await dialog.getByLabel(/^Name/).fill("Ada Lovelace");
		await dialog.getByRole("button", { name: "Create an identity" }).click();
		const made = page.getByRole("dialog", { name: "Identity created" });
		await made.waitFor({ timeout: 60_000 });
		await made.getByRole("button", { name: "Done" }).click();

		const { id, link } = await offer({ member: true, grade: 3, club: "Chess" });
		attestationId = id;
		await checkScreen(at("offer", link), "credentials-offer", async (p) => {
			await p.locator(".consent-facts").waitFor();
		});
		await page.goto(at("offer", link));
		await screenReady(page, "Accept an attestation offer");
		const facts = String(await page.locator(".consent-facts").textContent());
		assert.match(facts, /Offered byattest\.test \(/);
		assert.match(facts, /membership/);
		assert.match(facts, /member: Yes/);
		assert.match(facts, /grade: 3/);
		assert.match(facts, /club: Chess/);
		assert.equal(await page.getByRole("radio", { name: /Ada Lovelace/ }).isChecked(), true);
		await page.getByRole("button", { name: "Accept" }).click();
		await page.locator("#main .alert").filter({ hasText: "Kept “membership” from attest.test" }).waitFor();

		const held = (await (
			await fetch(`${consoleOrigin}/api/collections/credentials/records`, { headers: person.headers })
		).json()) as { items: { issuer: string; claims: Record<string, unknown> }[] };
		assert.deepEqual(
			held.items.map((c) => [c.issuer, c.claims]),
			[["attest.test", { member: true, grade: 3, club: "Chess" }]],
		);
		await checkScreen(`${consoleOrigin}/app/credentials`, "credentials", async (p) => {
			await p.locator("main tbody tr", { hasText: "attest.test" }).waitFor();
		});
	});

	test("refusals of an offer say what to do next; declined, nothing is accepted", async () => {
		const declined = await offer({ member: true });
		await page.goto(at("offer", declined.link));
		await screenReady(page, "Accept an attestation offer");
		await page.getByRole("button", { name: "Decline" }).click();
		await page.locator("#main .alert").filter({ hasText: "Declined: nothing was accepted." }).waitFor();
		const still = (await (
			await fetch(`${attester.url}/api/collections/attestations/records/${declined.id}`, {
				headers: { authorization: `Bearer ${attesterToken}` },
			})
		).json()) as { status: string; subjectFingerprint: string | null };
		assert.deepEqual([still.status, still.subjectFingerprint], ["offered", null]);

		const withdrawn = await offer({ member: true });
		await revoke(withdrawn.id);
		await page.goto(at("offer", withdrawn.link));
		await screenReady(page);
		const alert = page.locator('[role="alert"][data-code="attestation_offer_revoked"]');
		await alert.waitFor();
		assert.match(String(await alert.textContent()), /The offer was revoked/);
		assert.match(String(await page.locator(".next-step").textContent()), /attest\.test withdrew this offer/);

		// For an identity whose key is elsewhere: said, and nothing to accept with.
		const other = await offer({ member: true }, { subjectFingerprint: "ab".repeat(32) });
		await page.goto(at("offer", other.link));
		await screenReady(page);
		await page
			.getByText(/This offer is for the identity abababababab…ababab, whose key this browser does not hold/)
			.waitFor();
		assert.equal(await page.getByRole("button", { name: "Accept" }).isDisabled(), true);

		// A server nobody can reach (no _svc record, no address): said as such.
		await page.goto(at("offer", `svc://a/nowhere.test/${"A".repeat(43)}`));
		await screenReady(page);
		await page.locator('[role="alert"][data-code="remote_unreachable"]').waitFor({ timeout: 60_000 });
		assert.match(String(await page.locator(".next-step").textContent()), /try again in a while/);
	});

	test("presented to the example service with a claim unticked: verified, key-bound, the claim withheld", async () => {
		const link = service.link();
		await checkScreen(at("present", link), "credentials-present", async (p) => {
			await p.getByRole("checkbox").first().waitFor();
		});
		await page.goto(at("present", link));
		await screenReady(page, "Show a credential");
		const facts = String(await page.locator(".consent-facts").textContent());
		assert.ok(facts.includes(service.origin), facts);
		assert.ok(facts.includes(`${service.origin}/presented`), facts);
		assert.match(facts, /“membership” from attest\.test/);
		// The asked claims start ticked; the person unticks one.
		for (const name of ["member: Yes", "club: Chess", "grade: 3"])
			assert.equal(await page.getByRole("checkbox", { name }).isChecked(), true, name);
		await page.getByRole("checkbox", { name: "club: Chess" }).uncheck();
		await page.getByRole("button", { name: "Show it" }).click();

		// The service's redirect_uri is on its origin, so the console follows it to the verdict.
		await page.waitForURL(`${service.origin}/result?**`);
		if (process.env.SCREENSHOTS === "1")
			await page.screenshot({ path: "docs/screenshots/example-present-service-verdict.png", fullPage: true });
		const verdict = (field: string) => page.locator(`[data-field="${field}"]`).textContent();
		assert.equal(await verdict("state"), "verified");
		assert.equal(await verdict("keyBound"), "yes");
		assert.equal(await verdict("issuer"), "attest.test");
		assert.equal(await verdict("withheld"), "1");
		assert.match(String(await verdict("claims")), /member.*true/);
		assert.match(String(await verdict("claims")), /grade.*3/);
		assert.doesNotMatch(String(await verdict("claims")), /club/);
		const kept = [...service.verdicts.values()].at(-1) as { state: string; keyBound: boolean };
		assert.deepEqual([kept.state, kept.keyBound], ["verified", true]);
	});

	test("declined, nothing is sent; malformed links are refused naming the part, nothing sent", async () => {
		const before = service.verdicts.size;
		await page.goto(at("present", service.link()));
		await screenReady(page, "Show a credential");
		await page.getByRole("button", { name: "Decline" }).click();
		await page.locator("#main .alert").filter({ hasText: "Declined: nothing was sent." }).waitFor();
		assert.equal(service.verdicts.size, before);

		const o = encodeURIComponent(service.origin);
		const r = encodeURIComponent(`${service.origin}/presented`);
		for (const [link, part] of [
			[`svc://present?response_uri=${r}&nonce=n-0123456789`, "client_id"],
			[`svc://present?client_id=${o}&nonce=n-0123456789`, "response_uri"],
			[`svc://present?client_id=${o}&response_uri=${r}`, "nonce"],
			[
				`svc://present?client_id=${o}&response_uri=${encodeURIComponent("https://evil.example/x")}&nonce=n-0123456789`,
				"response_uri",
			],
			[`svc://present?client_id=${o}%2Fpath&response_uri=${r}&nonce=n-0123456789`, "client_id"],
			[`svc://present?client_id=${o}&response_uri=${r}&nonce=short`, "nonce"],
			[`svc://present?client_id=${o}&response_uri=${r}&nonce=n-0123456789&state=a%20b`, "state"],
			[`svc://present?client_id=${o}&response_uri=${r}&nonce=n-0123456789&type=two%20words`, "type"],
			[`svc://present?client_id=${o}&response_uri=${r}&nonce=n-0123456789&issuers=Attest.test`, "issuers"],
			[`svc://present?client_id=${o}&response_uri=${r}&nonce=n-0123456789&claims=a,a`, "claims"],
			[`svc://present?client_id=${o}&response_uri=${r}&nonce=n-0123456789&extra=1`, "extra"],
		] as const) {
			await page.goto(at("present", link));
			await screenReady(page);
			const alert = page.locator(`[role="alert"][data-parameter="${part}"]`);
			await alert.waitFor();
			assert.match(
				String(await alert.textContent()),
				new RegExp(`This link is refused: ${part} .+Nothing was sent\\.`),
				link,
			);
			assert.equal(await page.getByRole("button", { name: "Show it" }).count(), 0, link);
		}
		for (const [link, part] of [
			[`svc://a/Attest.test/${"A".repeat(43)}`, "host"],
			["svc://a/attest.test/short", "token"],
			[`svc://a/attest.test/${"A".repeat(43)}/more`, "link"],
		] as const) {
			await page.goto(at("offer", link));
			await screenReady(page);
			await page.locator(`[role="alert"][data-parameter="${part}"]`).waitFor();
		}
		assert.equal(service.verdicts.size, before, "nothing reached the service");
	});

	test("a return address off the service's origin is not followed (the relay answers it as null)", async () => {
		const rogue = http.createServer((req, res) => {
			req.resume();
			req.on("end", () => {
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ redirect_uri: "https://elsewhere.example/phish" }));
			});
		});
		await new Promise<void>((resolve) => rogue.listen(0, "127.0.0.1", resolve));
		try {
			const origin = `http://127.0.0.1:${(rogue.address() as AddressInfo).port}`;
			const link = `svc://present?client_id=${encodeURIComponent(origin)}&response_uri=${encodeURIComponent(`${origin}/r`)}&nonce=n-rogue-0001&type=membership`;
			await page.goto(at("present", link));
			await screenReady(page, "Show a credential");
			await page.getByRole("button", { name: "Show it" }).click();
			await page
				.locator("#main .alert")
				.filter({ hasText: `Shown to ${origin}, with no claims.` })
				.waitFor();
			assert.ok(page.url().startsWith(consoleOrigin), "the console stayed");
		} finally {
			rogue.close();
		}
	});

	test("once the attester revokes it, the same flow presents it as revoked", async () => {
		await revoke(attestationId);
		await page.goto(at("present", service.link()));
		await screenReady(page, "Show a credential");
		await page.getByRole("button", { name: "Show it" }).click();
		await page.waitForURL(`${service.origin}/result?**`);
		assert.equal(await page.locator('[data-field="state"]').textContent(), "revoked");
		assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Not verified");
	});
});
