// Scenario tables for endpoints (pocketbase's ApiScenario): name, method, url, body, expected
// status, expected and not-expected content. Values that depend on set-up are thunks, read when
// the scenario runs.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { App } from "../../src/app.ts";

type Lazy<T> = T | (() => T);

export interface Scenario {
	name: string;
	method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT";
	url: Lazy<string>;
	headers?: Lazy<Record<string, string>>;
	/** A JSON body (serialised), or a raw string with `contentType`. */
	body?: Lazy<unknown>;
	rawBody?: string;
	contentType?: string;
	status: number;
	/** The problem `code` expected on an error. */
	code?: string;
	/** Substrings the response body must contain. */
	contains?: Lazy<string[]>;
	/** Substrings it must not contain. */
	notContains?: Lazy<string[]>;
	/** Further checks on the response. */
	check?: (res: ScenarioResponse) => void | Promise<void>;
}

export interface ScenarioResponse {
	statusCode: number;
	body: string;
	headers: Record<string, unknown>;
	json(): unknown;
}

const read = <T>(v: Lazy<T>): T => (typeof v === "function" ? (v as () => T)() : v);

export async function runScenario(app: App, s: Scenario): Promise<ScenarioResponse> {
	const headers: Record<string, string> = { ...(s.headers === undefined ? {} : read(s.headers)) };
	let payload: string | undefined;
	if (s.rawBody !== undefined) {
		payload = s.rawBody;
		headers["content-type"] = s.contentType ?? "application/json";
	} else if (s.body !== undefined) {
		payload = JSON.stringify(read(s.body));
		headers["content-type"] = "application/json";
	}
	const res = await app.inject({
		method: s.method,
		url: read(s.url),
		headers,
		...(payload === undefined ? {} : { payload }),
	});
	const where = `${s.method} ${read(s.url)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
	assert.equal(res.statusCode, s.status, where);
	if (s.code !== undefined) {
		assert.match(String(res.headers["content-type"]), /^application\/problem\+json/, where);
		assert.equal((res.json() as { code?: string }).code, s.code, where);
	}
	for (const text of s.contains === undefined ? [] : read(s.contains))
		assert.ok(res.body.includes(text), `${where}\nshould contain ${text}`);
	for (const text of s.notContains === undefined ? [] : read(s.notContains)) {
		assert.ok(!res.body.includes(text), `${where}\nshould not contain ${text}`);
	}
	await s.check?.(res);
	return res;
}

/** One node:test per scenario. */
export function scenarios(getApp: () => App, table: Scenario[]): void {
	for (const s of table) test(s.name, async () => void (await runScenario(getApp(), s)));
}
