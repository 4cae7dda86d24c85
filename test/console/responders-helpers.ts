// Shared by the responders' console tests (responders-remote.test.ts, responders-signup.test.ts).
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import {
	AXE_TAGS,
	type AxeViolation,
	axeCheck,
	DESKTOP,
	describeViolations,
	PHONE,
} from "../helpers/browser.ts";

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export async function json<T>(res: Response | Promise<Response>): Promise<T> {
	const r = await res;
	const text = await r.text();
	assert.ok(r.ok, `${r.status} ${r.url}: ${text}`);
	return JSON.parse(text) as T;
}

export async function axeAll(browser: Browser, url: string, name: string, token?: string) {
	for (const lang of ["en", "de"] as const) {
		for (const viewport of [DESKTOP, PHONE]) {
			const violations = await axeCheck(browser, url, {
				lang,
				viewport,
				...(token ? { token } : {}),
				screenshot: `${name}-${lang}`,
			});
			assert.deepEqual(
				violations,
				[],
				`${name} ${lang} ${viewport.width}px:\n${describeViolations(violations)}`,
			);
		}
	}
}

/** axe-core on the page as it stands (its Device made with `bypassCSP: true`): no violation. */
export async function axeHere(page: Page, what: string): Promise<void> {
	await page.addScriptTag({ content: axeSource });
	const violations = await page.evaluate<AxeViolation[]>(
		`axe.run(document, { runOnly: { type: "tag", values: ${JSON.stringify(AXE_TAGS)} } }).then((r) => r.violations)`,
	);
	assert.deepEqual(violations, [], `${what}:\n${describeViolations(violations)}`);
}

/** Each language at each width, as the walks of issue 39 go. */
export const WALKS = (["en", "de"] as const).flatMap((lang) =>
	(
		[
			["desktop", DESKTOP],
			["phone", PHONE],
		] as const
	).map(([size, viewport]) => ({ lang, size, viewport })),
);
