// Helpers for share tests: vault records, files and links made through the public API, the way
// the app makes them.
import assert from "node:assert/strict";
import type { KyselyPlugin } from "kysely";
import type { App } from "../../src/app.ts";
import { serverClaim } from "../../src/features/server/claim.ts";
import { type SharesContext, sharesContext } from "../../src/features/shares/context.ts";
import type { TestAccount } from "../helpers/factories.ts";

export const RECORDS = "/api/collections/records/records";
export const SECTIONS = "/api/collections/sections/records";
export const LINKS = "/api/collections/links/records";

export async function createValue(
	app: App,
	who: TestAccount,
	body: { key: string; value?: string; section?: string; hidden?: boolean; alias?: string; name?: string },
): Promise<{ id: string }> {
	const res = await app.inject({ method: "POST", url: RECORDS, headers: who.headers, payload: body });
	assert.equal(res.statusCode, 200, res.body);
	return res.json();
}

export async function uploadFile(
	app: App,
	who: TestAccount,
	fields: Record<string, string>,
	file: { bytes: Buffer | Uint8Array; name: string },
): Promise<{ id: string; file: { name: string; type: string; size: number; sha256: string } }> {
	const f = new FormData();
	for (const [k, v] of Object.entries(fields)) f.append(k, v);
	f.append("file", new Blob([new Uint8Array(file.bytes)]), file.name);
	const res = await app.inject({ method: "POST", url: RECORDS, headers: who.headers, payload: f });
	assert.equal(res.statusCode, 200, res.body);
	return res.json();
}

export async function createSection(
	app: App,
	who: TestAccount,
	key: string,
	ordering = 0,
): Promise<{ id: string }> {
	const res = await app.inject({
		method: "POST",
		url: SECTIONS,
		headers: who.headers,
		payload: { key, name: key, ordering },
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json();
}

export interface LinkItem {
	id: string;
	slug: string;
	status: string;
	viewCount: number;
	[k: string]: unknown;
}

export async function createLink(
	app: App,
	who: TestAccount,
	body: Record<string, unknown>,
): Promise<LinkItem> {
	const res = await app.inject({ method: "POST", url: LINKS, headers: who.headers, payload: body });
	assert.equal(res.statusCode, 200, res.body);
	return res.json();
}

export function patchLink(app: App, who: TestAccount, id: string, body: Record<string, unknown>) {
	return app.inject({ method: "PATCH", url: `${LINKS}/${id}`, headers: who.headers, payload: body });
}

let clients = 0;
/** A fresh client address per public call, so per-client rate limits stay out of tests about other things. */
export function nextIp(): string {
	clients += 1;
	return `198.18.${(clients >> 8) & 255}.${clients & 255}`;
}

export function resolveLink(
	app: App,
	slug: string,
	body?: Record<string, unknown>,
	remoteAddress = nextIp(),
) {
	return app.inject({
		method: "POST",
		url: `/api/public/links/${slug}`,
		remoteAddress,
		...(body ? { payload: body } : {}),
	});
}

export function probeLink(app: App, slug: string, remoteAddress = nextIp()) {
	return app.inject({ method: "GET", url: `/api/public/links/${slug}`, remoteAddress });
}

export function publicGet(app: App, url: string, remoteAddress = nextIp()) {
	return app.inject({ method: "GET", url, remoteAddress });
}

export function assertCode(
	res: { statusCode: number; body: string; headers: Record<string, unknown> },
	status: number,
	code: string,
) {
	assert.equal(res.statusCode, status, res.body);
	assert.match(String(res.headers["content-type"]), /application\/problem\+json/);
	assert.equal(JSON.parse(res.body).code, code, res.body);
}

/**
 * A shares context of `app` whose database handle counts the statements it runs. While `hold()`
 * is in force, each statement's rows wait after the database answered, until `release()`;
 * `read` settles when the first statement was answered.
 */
export function countedShares(app: App): {
	ctx: SharesContext;
	statements: () => number;
	read: Promise<void>;
	hold: () => void;
	release: () => void;
} {
	let statements = 0;
	let held: Promise<void> | undefined;
	let release = () => {};
	let signalRead = () => {};
	const read = new Promise<void>((r) => {
		signalRead = r;
	});
	const plugin: KyselyPlugin = {
		transformQuery: (args) => args.node,
		transformResult: async (args) => {
			statements += 1;
			signalRead();
			if (held !== undefined) await held;
			return args.result;
		},
	};
	const db = app.store.db.withPlugin(plugin);
	const ctx = sharesContext(db, serverClaim(app.config, app.rootKey.fingerprint), app.grantHooks);
	return {
		ctx,
		statements: () => statements,
		read,
		hold: () => {
			held = new Promise((r) => {
				release = r;
			});
		},
		release: () => {
			held = undefined;
			release();
		},
	};
}
