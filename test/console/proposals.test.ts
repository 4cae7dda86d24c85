// A tool's proposal (`svc://p`) answered in the console, end to end in Chromium: the tool is a page
// on its own loopback origin (http://127.0.0.1:<port>) that makes its PKCE pair; the owner pastes
// its link, sees the check code, the entries matched by key and what the tool may do, and
// consents; the browser returns to the tool with `status=created&link=`, the tool redeems the code
// and reads its share's status. Also: a declined proposal, a key the vault lacks, a malformed link
// naming the parameter at fault, a connection without allowHandOver, and the owner's permission
// change on the Connections screen. axe-core in English and German at desktop and phone width.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { checkCode } from "../../src/lib/app-links.ts";
import { startToolServer, type ToolServer } from "../connections/tool-server.ts";
import {
	apiCall,
	axeCheck,
	DESKTOP,
	Device,
	describeViolations,
	freePort,
	launchBrowser,
	PHONE,
	type Server,
	screenReady,
	setSessionToken,
	startServer,
	ticketAccount,
} from "../helpers/browser.ts";

/** Percent-encoded with %20 for a space, as the spec writes app links. */
function appLink(kind: "p" | "connect", params: Record<string, string>): string {
	return `svc://${kind}?${Object.entries(params)
		.map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
		.join("&")}`;
}

interface ToolLink {
	id: string;
	ref: string | null;
	label: string;
	status: string;
	handedOver: boolean;
	url?: string;
}

describe("a tool's proposal in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let tool: ToolServer;
	let token: string;
	let device: Device;
	let page: Page;
	/** The tool's connection token, from its first accepted proposal. */
	let toolToken: string;
	const records: Record<string, string> = {};

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		tool = await startToolServer("127.0.0.1", await freePort(), server.api);
		({ token } = await ticketAccount(server, "owner@example.org"));
		for (const [key, name, value, hidden] of [
			["email", "Email", "ann@example.org", false],
			["phone", "Phone", "+49 30 1234567", false],
			["iban", "Bank account", "DE89370400440532013000", true],
		] as const) {
			const res = await apiCall(server, token, "POST", "/api/collections/records/records", {
				key,
				name,
				value,
				hidden,
			});
			assert.equal(res.status, 200, await res.clone().text());
			records[key] = ((await res.json()) as { id: string }).id;
		}
		device = await Device.create(browser);
		page = await device.open(`${server.origin}/app/signin`);
		await setSessionToken(page, token);
	});
	after(async () => {
		await device?.close();
		await browser?.close();
		await tool?.close();
		await server?.close();
	});

	/** The tool's page makes its verifier (kept in its localStorage) and shows its challenge. */
	async function toolStarts(): Promise<{ challenge: string; checkCode: string }> {
		const toolPage = await device.context.newPage();
		await toolPage.goto(tool.origin);
		const started = await toolPage.evaluate(() =>
			(
				globalThis as unknown as { tool: { start(): Promise<{ challenge: string; checkCode: string }> } }
			).tool.start(),
		);
		await toolPage.close();
		return started;
	}

	function proposal(challenge: string, state: string, extra: Record<string, string> = {}): string {
		return appLink("p", {
			label: "Flat application",
			keys: "email,phone",
			from: "Flat finder",
			client: tool.origin,
			redirect: `${tool.origin}/back`,
			state,
			challenge,
			...extra,
		});
	}

	async function openLink(link: string): Promise<void> {
		await page.goto(`${server.origin}/app/connections`);
		await screenReady(page, "Connections");
		await page.getByRole("button", { name: "Open an app link" }).click();
		await page.getByRole("textbox", { name: "App link" }).fill(link);
		await page.getByRole("button", { name: "Continue" }).click();
	}

	/** Where the console sent the browser back to the tool, as the query it carried. */
	async function backAtTool(): Promise<URLSearchParams> {
		await page.waitForURL((url) => url.origin === tool.origin && url.pathname === "/back");
		return new URL(page.url()).searchParams;
	}

	/** The tool's own page redeemed the code it was given; its token. */
	async function redeemedToken(): Promise<string> {
		const redeemed = await page.evaluate(
			() =>
				(globalThis as unknown as { redeemed: Promise<{ status: number; body: { token: string } }> })
					.redeemed,
		);
		assert.equal(redeemed.status, 200, JSON.stringify(redeemed));
		return redeemed.body.token;
	}

	/** What the tool's backend reads at GET /api/connection with its token. */
	async function toolSees(): Promise<{ allowHandOver: boolean; allowRevoke: boolean; links: ToolLink[] }> {
		const res = await fetch(`${server.api}/api/connection`, { headers: { "x-svc-connection": toolToken } });
		assert.equal(res.status, 200);
		return (await res.json()) as { allowHandOver: boolean; allowRevoke: boolean; links: ToolLink[] };
	}

	async function shareCount(): Promise<number> {
		const res = await apiCall(server, token, "GET", "/api/collections/links/records");
		return ((await res.json()) as { items: unknown[] }).items.length;
	}

	test("a malformed link is refused naming the parameter at fault, and nothing is made", async () => {
		await openLink(appLink("p", { label: "Flat", keys: "Email" }));
		await page.getByText("This link is refused: keys each key must match").waitFor();
		await page.getByRole("button", { name: "Cancel" }).click();
		await openLink(appLink("p", { label: "Flat", keys: "email", purpose: "application" }));
		await page.getByText("This link is refused: purpose `application` requires `stamp`").waitFor();
		await page.getByRole("button", { name: "Cancel" }).click();

		// Opened directly (as the app would hand it over), the consent refuses it the same way.
		const bad = appLink("p", { label: "Flat", keys: "email", client: tool.origin, state: "s1" });
		await page.goto(`${server.origin}/app/connections/connect?${new URLSearchParams({ link: bad })}`);
		await page.getByRole("alert").getByText("This link is refused: state needs `redirect`").waitFor();
		assert.equal(await page.getByRole("button", { name: "Create the share" }).count(), 0);
		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				const refused = await axeCheck(
					browser,
					`${server.origin}/app/connections/connect?${new URLSearchParams({ link: bad })}`,
					{ token, lang, viewport },
				);
				assert.deepEqual(refused, [], describeViolations(refused));
			}
		}
		assert.equal(await shareCount(), 0);
	});

	test("accepted the first time: the tool is connected, gets the share's address and reads its status", async () => {
		const { challenge, checkCode: shown } = await toolStarts();
		assert.equal(shown, await checkCode(challenge));
		const link = proposal(challenge, "p1", {
			days: "30",
			ref: "application-17",
			stamp: "For Flat finder",
			purpose: "application",
			links_reason: "To send the share to the landlord",
		});

		// The first-time consents (a proposal, and a plain connect), checked before anything connects.
		const connectLink = appLink("connect", {
			client: tool.origin,
			name: "Flat finder",
			redirect: `${tool.origin}/back`,
			state: "c1",
			challenge,
		});
		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				for (const [text, shot] of [
					[link, "connections-proposal"],
					[connectLink, "connections-consent"],
				] as const) {
					const found = await axeCheck(
						browser,
						`${server.origin}/app/connections/connect?${new URLSearchParams({ link: text })}`,
						{ token, lang, viewport, ...(lang === "en" ? { screenshot: shot } : {}) },
					);
					assert.deepEqual(found, [], describeViolations(found));
				}
			}
		}

		await openLink(link);
		await page.getByRole("heading", { name: "A tool proposes a share" }).waitFor();
		await page.getByText(shown, { exact: true }).waitFor();
		await page.getByText(tool.origin, { exact: true }).waitFor();
		await page.getByText("Calls itself “Flat finder”").waitFor();
		await page.getByText("Expires in 30 days").waitFor();
		await page.getByText("The tool says why: “To send the share to the landlord”").waitFor();
		const entries = page.locator(".consent-facts li");
		assert.deepEqual(await entries.allTextContents(), ["Email email", "Phone phone"]);
		await page.getByText("The tool will read the share's status, not its address.").waitFor();
		await page.getByLabel("Allow it to receive the shares its proposals became").check();
		await page.getByLabel("Allow it to revoke the shares its proposals became").check();
		await page.getByText("The tool will receive the share's address.").waitFor();
		await page.getByRole("button", { name: "Create the share" }).click();

		const back = await backAtTool();
		assert.equal(back.get("state"), "p1");
		assert.equal(back.get("status"), "created");
		assert.equal(back.get("server"), server.origin);
		const linkId = back.get("link");
		assert.ok(linkId);
		toolToken = await redeemedToken();

		const seen = await toolSees();
		assert.equal(seen.allowHandOver, true);
		assert.equal(seen.allowRevoke, true);
		assert.equal(seen.links.length, 1);
		const [mine] = seen.links;
		assert.equal(mine?.id, linkId);
		assert.equal(mine?.status, "active");
		assert.equal(mine?.ref, "application-17");
		assert.equal(mine?.handedOver, true);
		assert.match(mine?.url ?? "", new RegExp(`^${server.origin}/s/`));

		// The share the owner holds: the entries in the proposal's order, its terms, the tool named.
		const res = await apiCall(server, token, "GET", `/api/collections/links/records/${linkId}`);
		const share = (await res.json()) as {
			records: string[];
			connection: string;
			handedOver: boolean;
			stamp: string;
			purpose: string;
			expiresAt: string;
		};
		assert.deepEqual(share.records, [records.email, records.phone]);
		assert.equal(share.handedOver, true);
		assert.equal(share.stamp, "For Flat finder");
		assert.equal(share.purpose, "application");
		const days = (Date.parse(share.expiresAt) - Date.now()) / 86_400_000;
		assert.ok(days > 29.9 && days <= 30, String(days));
		// What the tool reads at its share's address is the share itself.
		const read = await fetch(`${server.api}/api/public/links/${mine?.url?.split("/s/")[1]}`);
		assert.equal(((await read.json()) as { label: string }).label, "Flat application");
	});

	test("declined: the tool is told, and nothing is shared", async () => {
		const before = await shareCount();
		const { challenge } = await toolStarts();
		await openLink(proposal(challenge, "p2"));
		await page.getByRole("heading", { name: "A tool proposes a share" }).waitFor();
		// Already connected: the permissions stand as given, and a change would apply to the connection.
		await page
			.getByRole("group", { name: "What the tool may do" })
			.getByText("Already connected: a change applies to the connection.")
			.waitFor();
		assert.equal(
			await page.getByLabel("Allow it to receive the shares its proposals became").isChecked(),
			true,
		);
		await page.getByRole("button", { name: "Decline" }).click();
		const back = await backAtTool();
		assert.deepEqual(Object.fromEntries(back), { state: "p2", server: server.origin, status: "declined" });
		assert.equal(await shareCount(), before);
	});

	test("a key the vault lacks is shown and left out; a proposal of only such keys cannot be made", async () => {
		const { challenge } = await toolStarts();
		const only = proposal(challenge, "p3", { keys: "passport" });
		await openLink(only);
		await page.getByText("Not in this workspace: passport").waitFor();
		await page.getByText("None of the entries it asks for is in this workspace.").waitFor();
		assert.equal(await page.getByRole("button", { name: "Create the share" }).isDisabled(), true);

		const link = proposal(challenge, "p3", { keys: "passport,email" });
		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				const found = await axeCheck(
					browser,
					`${server.origin}/app/connections/connect?${new URLSearchParams({ link })}`,
					{ token, lang, viewport, ...(lang === "en" ? { screenshot: "connections-proposal-missing" } : {}) },
				);
				assert.deepEqual(found, [], describeViolations(found));
			}
		}
		await openLink(link);
		await page.getByText("Not in this workspace: passport").waitFor();
		await page.getByRole("button", { name: "Create the share" }).click();
		const back = await backAtTool();
		assert.equal(back.get("status"), "created");
		const linkId = back.get("link");
		// An answer for a connected tool is a code too; the tool's page redeemed it.
		await redeemedToken();
		const res = await apiCall(server, token, "GET", `/api/collections/links/records/${linkId}`);
		assert.deepEqual(((await res.json()) as { records: string[] }).records, [records.email]);
	});

	test("the owner changes a tool's permissions; without allowHandOver a proposal reaches the tool as status only", async () => {
		await page.goto(`${server.origin}/app/connections`);
		await screenReady(page, "Connections");
		const row = page.locator("main tbody tr", { hasText: "Flat finder" });
		await row.getByText("May receive its shares").waitFor();
		for (const lang of ["en", "de"] as const) {
			for (const viewport of [DESKTOP, PHONE]) {
				const found = await axeCheck(browser, `${server.origin}/app/connections`, {
					token,
					lang,
					viewport,
					...(lang === "en" ? { screenshot: "connections-permissions" } : {}),
					prepare: async (p) => {
						await p.locator("main tbody tr button").first().click();
						await p.locator("dialog[open] input[type=checkbox]").first().waitFor();
					},
				});
				assert.deepEqual(found, [], describeViolations(found));
			}
		}

		await row.getByRole("button", { name: "Change permissions for Flat finder" }).click();
		const dialog = page.getByRole("dialog", { name: "Permissions of Flat finder" });
		await dialog.getByLabel("Allow it to receive the shares its proposals became").uncheck();
		await dialog.getByRole("button", { name: "Save" }).click();
		await dialog.waitFor({ state: "hidden" });
		await row.getByText("May revoke its shares").waitFor();
		await row.getByText("May receive its shares").waitFor({ state: "detached" });
		let seen = await toolSees();
		assert.equal(seen.allowHandOver, false);
		assert.equal(seen.allowRevoke, true);
		assert.ok(
			seen.links.every((l) => l.url === undefined),
			"withdrawing hand-over hides every address",
		);

		// A proposal from the tool now: the consent says it reads the status only, and so it is.
		const { challenge } = await toolStarts();
		await openLink(proposal(challenge, "p4", { label: "Second flat" }));
		await page.getByText("The tool will read the share's status, not its address.").waitFor();
		assert.equal(
			await page.getByLabel("Allow it to receive the shares its proposals became").isChecked(),
			false,
		);
		await page.getByRole("button", { name: "Create the share" }).click();
		const back = await backAtTool();
		const linkId = back.get("link");
		await redeemedToken();
		seen = await toolSees();
		const second = seen.links.find((l) => l.id === linkId);
		assert.equal(second?.label, "Second flat");
		assert.equal(second?.status, "active");
		assert.equal(second?.handedOver, false);
		assert.equal(second?.url, undefined);

		// Hand-over given back: the first share's address is the tool's again; the second never was.
		await page.goto(`${server.origin}/app/connections`);
		await screenReady(page, "Connections");
		await row.getByRole("button", { name: "Change permissions for Flat finder" }).click();
		await dialog.getByLabel("Allow it to receive the shares its proposals became").check();
		await dialog.getByRole("button", { name: "Save" }).click();
		await row.getByText("May receive its shares").waitFor();
		seen = await toolSees();
		assert.equal(seen.links.filter((l) => l.url !== undefined).length, 2, JSON.stringify(seen.links));

		// A hidden entry is never handed over, even with hand-over allowed: the consent says so.
		const again = await toolStarts();
		await openLink(proposal(again.challenge, "p5", { label: "Rent", keys: "iban" }));
		await page.getByText("Not handed to the tool: it holds hidden entries or files.").waitFor();
		await page.getByRole("button", { name: "Create the share" }).click();
		const hidden = (await backAtTool()).get("link");
		await redeemedToken();
		seen = await toolSees();
		const rent = seen.links.find((l) => l.id === hidden);
		assert.equal(rent?.handedOver, false);
		assert.equal(rent?.url, undefined);
		assert.deepEqual(device.unexpectedErrors(), []);
	});
});
