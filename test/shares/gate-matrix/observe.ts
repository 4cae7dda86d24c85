// What a reader answered, put in the matrix's words (expected.ts, `Answer`): each function reads
// one reader's answer as its client would and names it, so a cell compares two strings and its
// failure says what came back instead.
import crypto from "node:crypto";
import { html } from "../../formats/helpers.ts";
import { pageTexts } from "../../stamping/fixtures.ts";

/** The value every fixture shares under the key `email`, and its date entry (`move_in`). */
export const EMAIL = "ann@matrix.example";
export const MOVE_IN = "2026-12-01";
/** The stamp of the watermarked fixtures. */
export const STAMP = "Matrix stamp";

interface Reply {
	statusCode: number;
	body: string;
	headers: Record<string, unknown>;
}

/** A refusal as `<status> <code>` (problem+json), or what else came back. */
export function refusal(res: Reply): string {
	const type = String(res.headers["content-type"] ?? "");
	if (!type.includes("application/problem+json")) return `${res.statusCode} ${type || "no content type"}`;
	return `${res.statusCode} ${JSON.parse(res.body).code}`;
}

/** The probe: the status a reader meets and the gates it announces, never values. */
export function probeAnswer(res: Reply): string {
	if (res.statusCode !== 200) return refusal(res);
	const p = JSON.parse(res.body) as Record<string, unknown>;
	if (res.body.includes(EMAIL) || "records" in p) return "probe with values";
	if (p.status !== "active") return `status ${p.status}`;
	if (p.requiresPassword === true) return "requiresPassword";
	if (p.requireHandshake === true) return "requireHandshake";
	if (p.watermarked === true) return "watermarked";
	return "served";
}

/** The JSON resolve: the values, stamped (a `watermark` line) or marked hidden. */
export function resolveAnswer(res: Reply): string {
	if (res.statusCode !== 200) return refusal(res);
	const body = JSON.parse(res.body) as {
		records: { key: string; value: string; hidden: boolean }[];
		watermark?: string;
	};
	const email = body.records.find((r) => r.key === "email");
	if (email?.value !== EMAIL) return "200 without the values";
	if (typeof body.watermark === "string" && body.watermark.startsWith(STAMP)) return "served stamped";
	if (email.hidden) return "served marked hidden";
	return "served";
}

const GONE: [string, string][] = [
	["has paused this share", "paused"],
	["has withdrawn this share", "revoked"],
	["This share has expired", "expired"],
	["This share could be opened until", "expired"],
	["every view has been used", "expired"],
	["There is no share at this address", "not_found"],
];

/** The share page as a browser gets it. */
export function pageAnswer(res: Reply): string {
	const type = String(res.headers["content-type"] ?? "");
	if (!type.startsWith("text/html")) return refusal(res);
	const doc = html(res.body);
	const values = res.body.includes(EMAIL);
	if (res.statusCode === 404 && !values) {
		const gone = GONE.find(([text]) => res.body.includes(text));
		return `404 page: ${gone?.[1] ?? "saying nothing"}`;
	}
	if (res.statusCode === 403 && !values && res.body.includes("Open this share in the app")) {
		return "403 open in the app";
	}
	const form = doc.byTag("input").some((i) => doc.attr(i, "type") === "password");
	if (res.statusCode === 200 && form && !values) return "200 password form";
	const alert = doc.all.some((e) => doc.attr(e, "role") === "alert");
	if (res.statusCode === 403 && form && alert && !values) return "403 password form, wrong password";
	if (res.statusCode !== 200 || !values) return `${res.statusCode} page without the values`;
	if (res.body.includes("Files you download are stamped")) return "served stamped";
	const details = doc.byTag("details").some((d) => doc.textOf(d).includes(EMAIL));
	return details ? "served marked hidden" : "served";
}

/**
 * The owner's preview (GET /api/links/{id}/preview): the share page, or for a share that is not
 * active the page its readers meet (`preview: <status>`), always 200 to the owner.
 */
export function previewAnswer(res: Reply): string {
	const type = String(res.headers["content-type"] ?? "");
	if (!type.startsWith("text/html")) return refusal(res);
	if (res.statusCode === 200 && !res.body.includes(EMAIL)) {
		const gone = GONE.find(([text]) => res.body.includes(text));
		if (gone) return `preview: ${gone[1]}`;
	}
	return pageAnswer(res);
}

/** A file's bytes: the original, or a copy stamped with STAMP on its pages. */
export function fileAnswer(bytes: Buffer, original: Buffer): string {
	const sha = (b: Buffer) => crypto.createHash("sha256").update(b).digest("hex");
	if (sha(bytes) === sha(original)) return "served";
	const pages = pageTexts(bytes);
	if (pages.length > 0 && pages.every((p) => p.replace(/\s+/g, " ").includes(STAMP))) return "served stamped";
	return "200 other bytes";
}

export interface GrantItem {
	status: string;
	values?: { key: string; value: string | null }[];
}

/**
 * A grant as its reader gets it: the values while active, else its status alone (the bulk read
 * leaves `values` out, the listing of a request's answers sends it empty).
 */
export function grantAnswer(item: GrantItem | undefined): string {
	if (!item) return "no item";
	const some = (item.values?.length ?? 0) > 0;
	if (item.status === "not_found") return some ? "not_found with values" : "not_found";
	if (item.status !== "active") return `status ${item.status}, ${some ? "with values" : "no values"}`;
	return item.values?.some((v) => v.key === "email" && v.value === EMAIL)
		? "served"
		: "active without the values";
}
