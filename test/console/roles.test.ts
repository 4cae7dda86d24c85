// Roles in the console (docs/console.md "Roles"): the invite dialog says, under the role selector,
// what the chosen role can see and do, changing with the choice and read out politely; an admin is
// offered no owner; the members screen lists every role's. The invitation sent carries the chosen
// role. English and German, at 1280 and 390 px, axe-clean with the dialog open.
// With SCREENSHOTS=1 it writes docs/screenshots/console-members-invite-<desktop|phone>.png.
// Runs once, not per database: a console journey in Chromium; it reaches the database only through the API, whose own files run on both.
import assert from "node:assert/strict";
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
	setSessionToken,
	startServer,
	ticketAccount,
} from "../helpers/browser.ts";

/** What each role can see and do, in the words docs/console.md gives them (first and key lines). */
const SAYS = {
	en: {
		nav: "Members",
		invite: "Invite someone",
		role: "Role",
		labels: { owner: "Owner", admin: "Admin", member: "Member", viewer: "Viewer" },
		lines: {
			owner: ["Sees every entry, hidden ones included", "Renames, hands over and deletes the workspace"],
			admin: ["Sees every entry, hidden ones included", "Invites admins, members and viewers"],
			member: ["Sees every entry except hidden ones", "Cannot hide entries, invite people or change roles"],
			viewer: [
				"Sees every entry except hidden ones",
				"Changes nothing: no entries, shares, requests or templates",
			],
		},
		guide: "What each role can see and do",
	},
	de: {
		nav: "Mitglieder",
		invite: "Jemanden einladen",
		role: "Rolle",
		labels: { owner: "Eigentümer", admin: "Admin", member: "Mitglied", viewer: "Betrachter" },
		lines: {
			owner: ["Sieht alle Einträge, auch verborgene", "übergibt und löscht ihn"],
			admin: ["Sieht alle Einträge, auch verborgene", "Lädt Admins, Mitglieder und Betrachter ein"],
			member: ["Sieht alle Einträge außer verborgenen", "Kann keine Einträge verbergen"],
			viewer: ["Sieht alle Einträge außer verborgenen", "Ändert nichts"],
		},
		guide: "Was jede Rolle sieht und tun kann",
	},
} as const;

type Role = "owner" | "admin" | "member" | "viewer";
const ROLES: Role[] = ["viewer", "member", "admin", "owner"];

describe("roles in the console", { timeout: 900_000 }, () => {
	let server: Server;
	let browser: Browser;
	let owner: string;
	let admin: string;
	let ws: string;

	const inWs = (tok: string, method: string, url: string, body?: unknown) =>
		fetch(`${server.api}${url}`, {
			method,
			headers: {
				authorization: `Bearer ${tok}`,
				"x-workspace": ws,
				...(body === undefined ? {} : { "content-type": "application/json" }),
			},
			...(body === undefined ? {} : { body: JSON.stringify(body) }),
		});

	before(async () => {
		server = await startServer();
		browser = await launchBrowser();
		({ token: owner } = await ticketAccount(server, "olivia@example.org"));
		ws = (
			(await (
				await apiCall(server, owner, "POST", "/api/collections/workspaces/records", { name: "Family" })
			).json()) as { id: string }
		).id;
		const ada = await ticketAccount(server, "ada@example.org");
		admin = ada.token;
		const invited = await inWs(owner, "POST", "/api/collections/invitations/records", {
			email: "ada@example.org",
			role: "admin",
		});
		assert.equal(invited.status, 200, await invited.clone().text());
		const accepted = await apiCall(server, admin, "POST", "/api/invitations/accept", {
			token: invited.headers.get("x-plain-token"),
		});
		assert.equal(accepted.status, 200, await accepted.clone().text());
	});
	after(async () => {
		await browser?.close();
		await server?.close();
	});

	async function openInvite(page: Page, lang: "en" | "de") {
		const say = SAYS[lang];
		await page.evaluate(`sessionStorage.setItem("svc.workspace", ${JSON.stringify(ws)})`);
		await page.goto(`${server.origin}/app/members`);
		await screenReady(page, say.nav);
		await page.getByRole("button", { name: say.invite }).click();
		await page.getByRole("dialog").waitFor();
	}

	/** The summary under the selector, for the role chosen in it. */
	async function summaryFor(page: Page, lang: "en" | "de", role: Role) {
		await page.getByRole("dialog").getByLabel(SAYS[lang].role).selectOption(role);
		const summary = page.locator("#invite-role-summary");
		await page.locator(`#invite-role-summary[data-role="${role}"]`).waitFor();
		return (await summary.innerText()).replace(/\s+/g, " ");
	}

	for (const [lang, viewport, size] of [
		["en", DESKTOP, "desktop"],
		["en", PHONE, "phone"],
		["de", DESKTOP, "desktop"],
		["de", PHONE, "phone"],
	] as const) {
		test(`the invite dialog says what each role can see and do (${lang}, ${size})`, async () => {
			const say = SAYS[lang];
			const device = await Device.create(browser, { viewport, locale: lang === "de" ? "de-DE" : "en-US" });
			try {
				const page = await device.open(`${server.origin}/app/signin`);
				await setSessionToken(page, owner);
				await page.evaluate(`localStorage.setItem("svc.lang", ${JSON.stringify(lang)})`);
				await openInvite(page, lang);
				const select = page.getByRole("dialog").getByLabel(say.role);
				const offered = await select.locator("option").allInnerTexts();
				assert.deepEqual(
					offered,
					ROLES.map((r) => say.labels[r]),
				);
				// The summary is in a polite live region: a screen reader hears the new role's list.
				assert.equal(
					await page.locator("#invite-role-summary").locator("xpath=..").getAttribute("aria-live"),
					"polite",
				);
				const seen = new Map<Role, string>();
				for (const role of ROLES) {
					const text = await summaryFor(page, lang, role);
					for (const line of say.lines[role])
						assert.ok(text.includes(line), `${role}: "${line}" in "${text}"`);
					seen.set(role, text);
				}
				// Each role's list is its own: no two roles read the same.
				assert.equal(new Set(seen.values()).size, ROLES.length);
				// Nothing is cut off or scrolls sideways at this width.
				const overflow = await page.evaluate(
					"document.documentElement.scrollWidth - document.documentElement.clientWidth",
				);
				assert.equal(overflow, 0);
				assert.deepEqual(device.unexpectedErrors(), []);
			} finally {
				await device.close();
			}
		});

		test(`axe-core: the invite dialog with a role chosen (${lang}, ${size})`, async () => {
			const violations = await axeCheck(browser, `${server.origin}/app/members`, {
				token: owner,
				lang,
				viewport,
				prepare: async (p) => {
					await openInvite(p, lang);
					await summaryFor(p, lang, "viewer");
				},
				...(lang === "en" ? { screenshot: "members-invite" } : {}),
			});
			assert.deepEqual(violations, [], describeViolations(violations));
		});
	}

	test("the vault's entry dialog offers Hidden to an admin, not to a member; a viewer gets no New entry", async () => {
		const members = (await (await inWs(owner, "GET", "/api/collections/members/records")).json()) as {
			items: { id: string; email: string }[];
		};
		const adaId = members.items.find((m) => m.email === "ada@example.org")?.id;
		const setAda = async (role: string) => {
			const res = await inWs(owner, "PATCH", `/api/collections/members/records/${adaId}`, { role });
			assert.equal(res.status, 200, await res.text());
		};
		const device = await Device.create(browser);
		try {
			const page = await device.open(`${server.origin}/app/signin`);
			await setSessionToken(page, admin);
			await page.evaluate(`sessionStorage.setItem("svc.workspace", ${JSON.stringify(ws)})`);
			const newEntry = async () => {
				await page.goto(`${server.origin}/app/vault`);
				await screenReady(page, "Vault");
				return page.getByRole("button", { name: "New entry" });
			};
			await (await newEntry()).click();
			await page.getByRole("dialog").getByLabel("Name").first().waitFor();
			assert.equal(await page.getByRole("dialog").getByRole("checkbox", { name: "Hidden" }).count(), 1);

			await setAda("member");
			await (await newEntry()).click();
			await page.getByRole("dialog").getByLabel("Name").first().waitFor();
			assert.equal(await page.getByRole("dialog").getByRole("checkbox", { name: "Hidden" }).count(), 0);

			await setAda("viewer");
			const button = await newEntry();
			await page.getByRole("heading", { name: "Vault" }).waitFor();
			assert.equal(await button.count(), 0);
			assert.deepEqual(device.unexpectedErrors(), []);
		} finally {
			await setAda("admin");
			await device.close();
		}
	});

	test("the invitation carries the role chosen; an admin is offered no owner", async () => {
		const device = await Device.create(browser);
		try {
			const page = await device.open(`${server.origin}/app/signin`);
			await setSessionToken(page, owner);
			await openInvite(page, "en");
			await page.getByRole("dialog").getByLabel("Email").fill("vera@example.org");
			await summaryFor(page, "en", "viewer");
			await page.getByRole("button", { name: "Create invitation" }).click();
			await page.locator("dialog .copy-field-value").waitFor();
			const open = (await (await inWs(owner, "GET", "/api/collections/invitations/records")).json()) as {
				items: { email: string; role: string }[];
			};
			assert.equal(open.items.find((i) => i.email === "vera@example.org")?.role, "viewer");
			await page.getByRole("button", { name: "Done" }).click();
			// The members screen's guide names every role with its list.
			const guide = page.getByRole("region", { name: SAYS.en.guide });
			for (const role of ROLES) await guide.getByText(SAYS.en.labels[role], { exact: true }).waitFor();
			assert.ok((await guide.innerText()).includes(SAYS.en.lines.viewer[1]));

			await setSessionToken(page, admin);
			await openInvite(page, "en");
			const offered = await page.getByRole("dialog").getByLabel("Role").locator("option").allInnerTexts();
			assert.deepEqual(offered, ["Viewer", "Member", "Admin"]);
			assert.deepEqual(device.unexpectedErrors(), []);
		} finally {
			await device.close();
		}
	});
});
