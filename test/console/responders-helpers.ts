// Shared by the responders' console tests (responders-remote.test.ts, responders-signup.test.ts).
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { axeCheck, DESKTOP, describeViolations, PHONE } from "../helpers/browser.ts";

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
