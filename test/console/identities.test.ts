// Identities in the console end to end: the owner creates one in the UI (a P-256 key made by
// WebCrypto, kept in IndexedDB as a non-extractable CryptoKey; only the public key reaches the
// server, whose SPKI SHA-256 is the fingerprint shown); its certificate is shown; the page signs a
// challenge with the stored key and that proves a handshake on a share; revoking in the UI makes its
// published standing `revoked` and removes the key from IndexedDB. axe-core on the list, the create
// dialog, an identity's page and the revoke dialog, in English and German, desktop and phone.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
	apiCall,
	axeCheck,
	DESKTOP,
	Device,
	describeViolations,
	launchBrowser,
	PHONE,
	type Server,
	screenReady,
	screenshot,
	setSessionToken,
	startServer,
	ticketAccount,
} from "../helpers/browser.ts";

interface Identity {
	id: string;
	name: string;
	fingerprint: string;
	publicKey: string;
	certificate: string;
	status: "active" | "revoked";
}

interface StoredEntry {
	fingerprint: string;
	id: string | null;
	isCryptoKey: boolean;
	type: string;
	extractable: boolean;
	algorithm: string;
	curve: string;
	usages: string[];
	publicExtractable: boolean;
}

/** What IndexedDB "svc-keys" holds, read in the page (page code as text: no DOM types here). */
function storedKeys(page: Page): Promise<StoredEntry[]> {
	return page.evaluate<StoredEntry[]>(`new Promise((resolve, reject) => {
		const open = indexedDB.open("svc-keys");
		open.onerror = () => reject(open.error);
		open.onsuccess = () => {
			const get = open.result.transaction("identities").objectStore("identities").getAll();
			get.onerror = () => reject(get.error);
			get.onsuccess = () => {
				open.result.close();
				resolve(get.result.map((e) => ({
					fingerprint: e.fingerprint,
					id: e.id,
					isCryptoKey: e.keyPair.privateKey instanceof CryptoKey,
					type: e.keyPair.privateKey.type,
					extractable: e.keyPair.privateKey.extractable,
					algorithm: e.keyPair.privateKey.algorithm.name,
					curve: e.keyPair.privateKey.algorithm.namedCurve,
					usages: e.keyPair.privateKey.usages,
					publicExtractable: e.keyPair.publicKey.extractable,
				})));
			};
		};
	})`);
}

function spkiSha256(pem: string): string {
	const der = crypto.createPublicKey(pem).export({ type: "spki", format: "der" });
	return crypto.createHash("sha256").update(der).digest("hex");
}

describe("identities in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let token: string;
	let device: Device;
	let page: Page;
	let made: Identity;
	/** An identity made through the API (its key made here in the test), for the checks and screenshots. */
	let showcase: Identity;

	async function json<T>(res: Response | Promise<Response>): Promise<T> {
		const r = await res;
		assert.ok(r.ok, `${r.status} ${r.url} ${r.ok ? "" : await r.clone().text()}`);
		return (await r.json()) as T;
	}

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token } = await ticketAccount(server, "ada@example.org"));
		const { publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
		showcase = await json<Identity>(
			apiCall(server, token, "POST", "/api/collections/identities/records", {
				name: "Payroll office",
				publicKey: publicKey.export({ type: "spki", format: "pem" }),
			}),
		);
		device = await Device.create(browser);
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	test("the owner creates an identity: the key stays in this browser, the certificate is shown", async () => {
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
		await page.goto(`${server.origin}/app/identities`);
		await screenReady(page, "Identities");
		const payroll = page.locator("main tbody tr", { hasText: "Payroll office" });
		await payroll.waitFor();
		assert.match(String(await payroll.textContent()), /Not held here/);

		await page.locator("main .page-actions").getByRole("button", { name: "Create an identity" }).click();
		const dialog = page.getByRole("dialog", { name: "Create an identity" });
		await dialog.waitFor();
		// No name: the field says so.
		await dialog.getByRole("button", { name: "Create an identity" }).click();
		await dialog.locator(".field-error", { hasText: "Enter a name." }).waitFor();
		await dialog.getByLabel(/^Name/).fill("Ada Lovelace");
		await dialog.getByRole("button", { name: "Create an identity" }).click();

		const result = page.getByRole("dialog", { name: "Identity created" });
		await result.waitFor({ timeout: 60_000 });
		await screenshot(page, "identities-created");
		const shown = String(await result.locator(".copy-field-value").first().textContent());
		assert.match(shown, /^[0-9a-f]{64}$/);
		const text = String(await result.textContent());
		assert.match(text, /Subject\s*CN=Ada Lovelace/);
		assert.match(text, /Issuer\s*CN=[^,]+ root, O=svc/);
		assert.match(text, /matches the fingerprint/);
		assert.match(text, /Valid from.*Valid until/s);
		const download = result.getByRole("link", { name: "Download certificate (.pem)" });
		assert.match(String(await download.getAttribute("download")), /^ada-lovelace-[0-9a-f]{8}\.pem$/);
		assert.match(String(await download.getAttribute("href")), /^blob:/);
		await result.getByRole("button", { name: "Done" }).click();
		await result.waitFor({ state: "hidden" });

		// The server holds the public key whose SPKI SHA-256 is the fingerprint shown.
		const list = await json<{ items: Identity[] }>(
			apiCall(server, token, "GET", "/api/collections/identities/records?sort=-created"),
		);
		const saved = list.items.find((i) => i.name === "Ada Lovelace");
		assert.ok(saved, "the identity exists");
		made = saved;
		assert.equal(made.fingerprint, shown);
		assert.equal(spkiSha256(made.publicKey), shown);
		assert.equal(made.status, "active");
		assert.match(made.certificate, /^-----BEGIN CERTIFICATE-----/);
		const cert = new crypto.X509Certificate(made.certificate);
		assert.equal(
			crypto
				.createHash("sha256")
				.update(cert.publicKey.export({ type: "spki", format: "der" }))
				.digest("hex"),
			shown,
		);

		// IndexedDB holds the pair; the private half is a CryptoKey that cannot be exported.
		const stored = await storedKeys(page);
		assert.equal(stored.length, 1);
		const [entry] = stored;
		assert.ok(entry);
		assert.equal(entry.fingerprint, shown);
		assert.equal(entry.id, made.id);
		assert.equal(entry.isCryptoKey, true);
		assert.equal(entry.type, "private");
		assert.equal(entry.extractable, false);
		assert.equal(entry.algorithm, "ECDSA");
		assert.equal(entry.curve, "P-256");
		assert.deepEqual(entry.usages, ["sign"]);

		const row = page.locator("main tbody tr", { hasText: "Ada Lovelace" });
		await row.waitFor();
		const rowText = String(await row.textContent());
		assert.match(rowText, /Key held here/);
		assert.match(rowText, /Active/);
		assert.ok(rowText.includes(`${shown.slice(0, 12)}…${shown.slice(-6)}`), "the fingerprint, shortened");
	});

	test("the page signs a share's challenge with the stored key: the handshake passes", async () => {
		const record = await json<{ id: string }>(
			apiCall(server, token, "POST", "/api/collections/records/records", {
				key: "iban",
				name: "IBAN",
				value: "DE89370400440532013000",
			}),
		);
		const share = await json<{ slug: string }>(
			apiCall(server, token, "POST", "/api/collections/links/records", {
				label: "Handshake only",
				records: [record.id],
				requireHandshake: true,
			}),
		);
		const resolve = (body: unknown) =>
			fetch(`${server.api}/api/public/links/${share.slug}`, {
				method: "POST",
				headers: { "content-type": "application/json" },
				body: JSON.stringify(body),
			});
		const refused = await resolve({});
		assert.equal(refused.status, 401);
		assert.equal(((await refused.json()) as { code: string }).code, "challenge_required");

		await page.getByRole("link", { name: "Ada Lovelace" }).click();
		await screenReady(page, "Ada Lovelace");
		const main = page.locator("main");
		assert.ok(
			String(await main.locator(".copy-field-value").first().textContent()).includes(made.fingerprint),
		);
		// The key is looked up in IndexedDB after the screen is ready ("…" meanwhile): wait for it.
		await main.locator(".identity-held", { hasText: /holds the private key/ }).waitFor({ timeout: 30_000 });
		await main.locator(".identity-standing", { hasText: "Active" }).waitFor({ timeout: 30_000 });

		const { nonce } = await json<{ nonce: string }>(fetch(`${server.api}/api/challenges/link/${share.slug}`));
		await page.getByLabel("Nonce").fill(nonce);
		await page.getByRole("button", { name: "Sign", exact: true }).click();
		const signatureField = main.locator(".copy-field", { hasText: "Signature" });
		await signatureField.waitFor({ timeout: 30_000 });
		const signature = String(await signatureField.locator(".copy-field-value").textContent());
		assert.match(signature, /^[A-Za-z0-9_-]{86}$/, "64 bytes r||s, base64url");
		await screenshot(page, "identities-signed");

		const opened = await resolve({
			identityId: made.id,
			challengeNonce: nonce,
			challengeSignature: signature,
		});
		assert.equal(opened.status, 200, await opened.clone().text());
		const body = (await opened.json()) as { records: { key: string }[] };
		assert.deepEqual(
			body.records.map((r) => r.key),
			["iban"],
		);
	});

	test("revoking in the UI publishes `revoked` and removes the key from IndexedDB", async () => {
		await page.locator("main .page-actions").getByRole("button", { name: "Revoke" }).click();
		const dialog = page.getByRole("dialog", { name: "Revoke this identity?" });
		await dialog.waitFor();
		assert.match(String(await dialog.textContent()), /“Ada Lovelace” stops proving anything/);
		await dialog.getByRole("button", { name: "Cancel" }).click();
		await dialog.waitFor({ state: "hidden" });
		assert.equal((await storedKeys(page)).length, 1, "cancel changes nothing");

		await page.locator("main .page-actions").getByRole("button", { name: "Revoke" }).click();
		await dialog.getByRole("button", { name: "Revoke" }).click();
		const main = page.locator("main");
		await main.locator(".identity-standing", { hasText: "Revoked" }).waitFor({ timeout: 30_000 });
		await main.locator(".identity-held", { hasText: "no longer keeps it" }).waitFor({ timeout: 30_000 });
		assert.equal(await main.locator(".page-actions").count(), 0, "nothing left to revoke");
		assert.equal(await page.getByLabel("Nonce").count(), 0, "nothing left to sign with");
		assert.deepEqual(await storedKeys(page), []);

		const status = await json<{ payload: string }>(
			fetch(`${server.api}/api/identities/${made.fingerprint}/status`),
		);
		const payload = JSON.parse(Buffer.from(status.payload, "base64url").toString("utf8")) as {
			status: string;
		};
		assert.equal(payload.status, "revoked");
		const record = await json<Identity>(
			apiCall(server, token, "GET", `/api/collections/identities/records/${made.id}`),
		);
		assert.equal(record.status, "revoked");

		await page.getByRole("link", { name: "Back to all identities" }).click();
		await screenReady(page, "Identities");
		const row = page.locator("main tbody tr", { hasText: "Ada Lovelace" });
		assert.match(String(await row.textContent()), /Revoked.*Not held here/s);
		assert.equal(await row.getByRole("button").count(), 0);
	});

	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const width = viewport === PHONE ? "phone" : "desktop";
			test(`axe finds no WCAG 2.2 AA violation on the identity screens (${lang}, ${width})`, async () => {
				const screens: { name: string; path: string; prepare?: (p: Page) => Promise<void> }[] = [
					{ name: "identities", path: "/app/identities" },
					{
						name: "identities-create",
						path: "/app/identities",
						prepare: async (p) => {
							await p.locator("main .page-actions .btn-primary").click();
							await p.getByRole("dialog").waitFor();
							await p.locator("dialog input").fill("Ada Lovelace");
						},
					},
					{
						name: "identities-detail",
						path: `/app/identities/${showcase.id}`,
						prepare: async (p) => {
							await p.locator("main .identity-standing").waitFor({ timeout: 30_000 });
							await p.locator("main .identity-facts").nth(2).waitFor({ timeout: 30_000 });
						},
					},
					{
						name: "identities-revoke",
						path: "/app/identities",
						prepare: async (p) => {
							await p.locator("main tbody tr", { hasText: "Payroll office" }).getByRole("button").click();
							await p.getByRole("dialog").waitFor();
						},
					},
				];
				const found: string[] = [];
				for (const s of screens) {
					const violations = await axeCheck(browser, `${server.origin}${s.path}`, {
						lang,
						viewport,
						token,
						...(s.prepare ? { prepare: s.prepare } : {}),
						...(lang === "en" ? { screenshot: s.name } : {}),
					});
					if (violations.length > 0) found.push(`${s.name}:\n${describeViolations(violations)}`);
				}
				assert.deepEqual(found, [], found.join("\n\n"));
			});
		}
	}

	// After the screenshots, which show the list without it.
	test("revoking from the list asks first, gives the focus back on Cancel, then shows Revoked", async () => {
		const { publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
		const desk = await json<Identity>(
			apiCall(server, token, "POST", "/api/collections/identities/records", {
				name: "Front desk",
				publicKey: publicKey.export({ type: "spki", format: "pem" }),
			}),
		);
		await page.goto(`${server.origin}/app/identities`);
		await screenReady(page, "Identities");
		const row = page.locator("main tbody tr", { hasText: "Front desk" });
		const revoke = row.getByRole("button", { name: "Revoke Front desk" });
		await revoke.click();
		const dialog = page.getByRole("dialog", { name: "Revoke this identity?" });
		await dialog.waitFor();
		assert.match(String(await dialog.textContent()), /“Front desk” stops proving anything/);
		await dialog.getByRole("button", { name: "Cancel" }).click();
		await dialog.waitFor({ state: "hidden" });
		assert.equal(
			await page.evaluate<string | null>(`document.activeElement.getAttribute("aria-label")`),
			"Revoke Front desk",
		);

		await revoke.click();
		await dialog.getByRole("button", { name: "Revoke" }).click();
		await page
			.getByText("Identity revoked and its key removed from this browser")
			.waitFor({ state: "attached" });
		await row.locator(".badge", { hasText: "Revoked" }).waitFor({ timeout: 30_000 });
		assert.equal(await row.getByRole("button").count(), 0, "nothing left to revoke");
		assert.equal(await page.getByRole("alert").count(), 0);
		const record = await json<Identity>(
			apiCall(server, token, "GET", `/api/collections/identities/records/${desk.id}`),
		);
		assert.equal(record.status, "revoked");
	});

	test("no console errors on the way (a CSP violation would be one)", () => {
		assert.deepEqual(device.unexpectedErrors(), []);
	});
});
