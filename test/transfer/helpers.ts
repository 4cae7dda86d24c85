// Driving the export and import as a client would: the zip fetched whole over app.inject, the
// upload sent as a multipart form, and the vault read back through the collections API.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import type { App } from "../../src/app.ts";
import type { TestAccount } from "../helpers/factories.ts";
import { RECORDS, SECTIONS } from "../shares/helpers.ts";

export const TEMPLATES = "/api/collections/templates/records";
export const sha = (b: Uint8Array) => crypto.createHash("sha256").update(b).digest("hex");

export async function exportZip(app: App, who: TestAccount): Promise<Buffer> {
	const res = await app.inject({ method: "GET", url: "/api/vault/export", headers: who.headers });
	assert.equal(res.statusCode, 200, res.body);
	assert.equal(res.headers["content-type"], "application/zip");
	assert.equal(Number(res.headers["content-length"]), res.rawPayload.length);
	return res.rawPayload;
}

export function sendImport(
	app: App,
	who: { headers: Record<string, string> },
	format: "archive" | "vcard" | "csv",
	bytes: Buffer | string,
	preview = false,
	name = "upload",
) {
	const form = new FormData();
	form.append("file", new Blob([typeof bytes === "string" ? bytes : new Uint8Array(bytes)]), name);
	return app.inject({
		method: "POST",
		url: `/api/vault/import${preview ? "/preview" : ""}?format=${format}`,
		headers: who.headers,
		payload: form,
	});
}

interface Item {
	id: string;
	key: string;
	name: string;
	type: string;
	value: string | null;
	section: string | null;
	hidden: boolean;
	alias: string | null;
	file: { name: string; type: string; size: number; sha256: string } | null;
}

/** The vault as its owner lists it, with ids replaced by what they name, so two vaults compare. */
export async function vaultOf(app: App, who: TestAccount) {
	const get = async <T>(url: string) => {
		const res = await app.inject({ method: "GET", url: `${url}?perPage=500`, headers: who.headers });
		assert.equal(res.statusCode, 200, res.body);
		return (res.json() as { items: T[] }).items;
	};
	const sections = await get<{ id: string; key: string; name: string; ordering: number }>(SECTIONS);
	const records = await get<Item>(RECORDS);
	const templates = await get<{ name: string; items: unknown[] }>(TEMPLATES);
	const sectionKey = new Map(sections.map((s) => [s.id, s.key]));
	const byId = new Map(records.map((r) => [r.id, r]));
	const entries = records
		.map((r) => ({
			key: r.key,
			name: r.name,
			type: r.type,
			value: r.value,
			section: r.section === null ? null : sectionKey.get(r.section),
			hidden: r.hidden,
			alias: r.alias === null ? null : `${byId.get(r.alias)?.key}:${byId.get(r.alias)?.name}`,
			file: r.file,
		}))
		.sort((a, b) => `${a.key}|${a.name}`.localeCompare(`${b.key}|${b.name}`));
	return {
		sections: sections
			.map((s) => ({ key: s.key, name: s.name, ordering: s.ordering }))
			.sort((a, b) => a.key.localeCompare(b.key)),
		entries,
		templates: templates
			.map((t) => ({ name: t.name, items: t.items }))
			.sort((a, b) => a.name.localeCompare(b.name)),
		fileIds: records.filter((r) => r.type === "file").map((r) => ({ id: r.id, name: r.name })),
	};
}

/** A file's bytes as the owner downloads them (a token, then GET /api/files/{id}). */
export async function fileBytes(app: App, who: TestAccount, id: string): Promise<Buffer> {
	const token = await app.inject({ method: "POST", url: "/api/files/token", headers: who.headers });
	const res = await app.inject({ method: "GET", url: `/api/files/${id}?token=${token.json().token}` });
	assert.equal(res.statusCode, 200);
	return res.rawPayload;
}
