// One look (issue 40.12): the design tokens (web/tokens.css) reach the console, the front page, the
// passkey and sign-in pages and the share page, with a dark scheme beside the light one; the mark
// is one drawing (favicon, console, pages); the console's bundle holds only the icons it names;
// every icon on the server's pages is hidden from assistive technology; nothing inline that the
// pages' CSP would refuse. The browsers' side (axe in both schemes, the dark palette really
// applied) is in accessibility.test.ts and test/formats/browser.test.ts.
// Runs once, not per database: the console's and pages' look (design tokens, the mark); the API under it runs on both in its own files.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { consoleBundle } from "../../src/features/console/bundle.ts";
import { SHARE_PAGE_CSP } from "../../src/features/formats/page-routes.ts";
import { PAGE_CSP } from "../../src/http/security-headers.ts";
import { MARK_ARC } from "../../src/lib/brand.ts";
import { page } from "../formats/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount } from "../helpers/factories.ts";
import { REPO_ROOT } from "../helpers/root.ts";
import { createLink, createValue } from "../shares/helpers.ts";

const ROOT = REPO_ROOT;
const tokens = fs.readFileSync(path.join(ROOT, "web/tokens.css"), "utf8");
const NO_INLINE = /<script>|<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i;

/** Custom properties set in the light :root and again in the dark one. */
function schemes(css: string): { light: Set<string>; dark: Set<string> } {
	const at = css.indexOf("@media (prefers-color-scheme: dark)");
	assert.ok(at > 0, "a dark scheme");
	const names = (s: string) => new Set([...s.matchAll(/(--[a-z0-9-]+):/g)].map((m) => m[1] as string));
	return { light: names(css.slice(0, at)), dark: names(css.slice(at, css.indexOf("}\n}", at))) };
}

/** Every <svg> of a page sits inside an aria-hidden element or is aria-hidden itself. */
function svgsHidden(html: string): string[] {
	const wrong: string[] = [];
	for (const m of html.matchAll(/<svg[^>]*>/g)) {
		const before = html.slice(Math.max(0, (m.index ?? 0) - 60), m.index);
		if (!/aria-hidden="true"/.test(m[0]) && !/aria-hidden="true"[^<]*>$/.test(before)) wrong.push(m[0]);
	}
	return wrong;
}

describe("one look: tokens, mark, icons", () => {
	let t: TestApp;
	before(async () => {
		t = await makeApp();
	});
	after(() => t.close());

	test("web/tokens.css: every colour of the light scheme is set again in the dark one; the scales are there", () => {
		const { light, dark } = schemes(tokens);
		const colours = [...light].filter((n) => !/^--(font|text|leading|weight|space|radius|icon)/.test(n));
		assert.ok(colours.length >= 20, `colours: ${colours.join(" ")}`);
		const lightOnly = colours.filter((n) => !dark.has(n));
		assert.deepEqual(lightOnly, [], `set for light only: ${lightOnly.join(" ")}`);
		for (const scale of ["--space-1", "--space-7", "--text-sm", "--text-2xl", "--radius", "--shadow"]) {
			assert.ok(light.has(scale), scale);
		}
	});

	test("the tokens come first in the console's stylesheet, the front page's, the passkey and sign-in pages' and the share page's", async () => {
		const bundle = await consoleBundle();
		const consoleCss = bundle.manifest.css.map((c) => bundle.files.get(c)?.body.toString() ?? "").join("");
		const frontCss = bundle.files.get(bundle.manifest.front ?? "")?.body.toString() ?? "";
		const passkeyCss = (await t.app.inject({ url: "/assets/passkey.css" })).body;
		const a = await buildAccount(t.app);
		const value = await createValue(t.app, a, { key: "iban", name: "IBAN", value: "DE89" });
		const link = await createLink(t.app, a, { label: "Lease", records: [value.id] });
		const shareHtml = (await page(t.app, link.slug)).body;
		const shareUrl = shareHtml.match(/href="(\/assets\/share-[0-9a-f]+\.css)"/)?.[1];
		assert.ok(shareUrl, "the share page links its stylesheet");
		const shareCss = (await t.app.inject({ url: shareUrl })).body;
		for (const [name, css] of Object.entries({ consoleCss, frontCss, passkeyCss, shareCss })) {
			assert.match(css, /prefers-color-scheme:\s?dark/, `${name}: the dark scheme`);
			assert.match(css, /--space-4:/, `${name}: the spacing scale`);
			assert.match(css, /--text-xl:/, `${name}: the type scale`);
			assert.match(css, /--on-accent:/, `${name}: the colours`);
		}
		assert.ok(passkeyCss.startsWith(tokens), "the passkey page's stylesheet starts with the tokens");
		assert.ok(shareCss.startsWith(tokens), "the share page's stylesheet starts with the tokens");
	});

	test("the mark is one drawing: favicon, console, pages", async () => {
		const favicon = (await t.app.inject({ url: "/favicon.svg" })).body;
		assert.ok(favicon.includes(`d="${MARK_ARC}"`), "favicon.svg");
		const consoleIcons = fs.readFileSync(path.join(ROOT, "web/console/ui/icon.tsx"), "utf8");
		assert.ok(consoleIcons.includes(`"${MARK_ARC}"`), "the console's Mark");
		const front = (await t.app.inject({ url: "/" })).body;
		assert.ok(front.includes(`d="${MARK_ARC}"`), "the front page");
	});

	test("the console's bundle holds the icons it names and no other", async () => {
		const source = fs.readFileSync(path.join(ROOT, "web/console/ui/icon.tsx"), "utf8");
		const named = source
			.match(/import \{([^}]*)\} from "lucide-static"/)?.[1]
			?.split(",")
			.filter((s) => s.trim());
		assert.ok(named && named.length >= 10, "icon.tsx names its icons");
		const bundle = await consoleBundle();
		const all = [...bundle.files.values()].map((f) => f.body.toString()).join("\n");
		const bundled = new Set([...all.matchAll(/class="lucide lucide-([a-z0-9-]+)"/g)].map((m) => m[1]));
		assert.equal(bundled.size, named.length, `bundled: ${[...bundled].join(" ")}`);
		assert.ok(bundled.size < 60, "not the whole set");
	});

	test("every screen in the side navigation has its icon", () => {
		const source = fs.readFileSync(path.join(ROOT, "web/console/ui/icon.tsx"), "utf8");
		const dir = path.join(ROOT, "web/console/screens");
		const definition = (id: string) =>
			["index.ts", "index.tsx"]
				.map((f) => path.join(dir, id, f))
				.filter((file) => fs.existsSync(file))
				.map((file) => fs.readFileSync(file, "utf8"))[0] ?? "";
		const inNav = fs
			.readdirSync(dir)
			.filter((id) => /\bnavLabel:/.test(definition(id)) && !/\bhidden: true/.test(definition(id)))
			// Linked once, in the header, with the bell (shell.tsx).
			.filter((id) => id !== "notifications");
		assert.ok(inNav.length >= 10, `screens in the navigation: ${inNav.join(" ")}`);
		const missing = inNav.filter((id) => !new RegExp(`\\n\\t${id}: [A-Z]`).test(source));
		assert.deepEqual(missing, [], "screens without an icon in web/console/ui/icon.tsx");
	});

	test("the front page, the passkey page (its refusal of a foreign address, here) and the share page: icons hidden, nothing inline, the same CSP", async () => {
		const a = await buildAccount(t.app);
		const value = await createValue(t.app, a, { key: "iban", name: "IBAN", value: "DE89" });
		const link = await createLink(t.app, a, { label: "Lease", records: [value.id] });
		const pages = [
			{ name: "front", res: await t.app.inject({ url: "/" }), csp: PAGE_CSP },
			{ name: "passkey", res: await t.app.inject({ url: "/passkey" }), csp: PAGE_CSP },
			{ name: "share", res: await page(t.app, link.slug), csp: SHARE_PAGE_CSP },
		];
		for (const p of pages) {
			assert.equal(p.res.statusCode, p.name === "passkey" ? 400 : 200, p.name);
			assert.match(String(p.res.headers["content-type"]), /^text\/html/, p.name);
			assert.equal(p.res.headers["content-security-policy"], p.csp, `${p.name}: CSP`);
			assert.doesNotMatch(p.res.body, NO_INLINE, `${p.name}: nothing inline`);
			assert.match(p.res.body, /<svg class="mark"/, `${p.name}: the mark`);
			assert.deepEqual(svgsHidden(p.res.body), [], `${p.name}: every icon hidden`);
		}
		assert.match(
			pages[0]?.res.body ?? "",
			/class="icon" aria-hidden="true"><svg/,
			"the front page has icons",
		);
	});
});
