// A read of a share through its page, its formats or its addressbook (spec "Shares": `/s/{slug}`,
// `/dav/s/{slug}/`), with the view rule of docs/api.md "Share page and formats": an answer that
// carries values is a resolve (the shares feature's own, with the reader's gates as the shares
// feature lists them, its one atomic view and its file tokens); a conditional or HEAD answer
// passes the same gates short of the view and is decided on the ETag of what the share grants
// now, read without taking a view.
import type { FormatTokenKind } from "../../db/schema.ts";
import {
	type Client,
	type GateInput,
	openFormat,
	type PublicLinkRow,
	passGates,
	readGrants,
	resolveLink,
	type ShareReader,
	type SharesContext,
	sharedRecord,
	sharedSections,
	type TokenRead,
} from "../shares/service.ts";
import { type ShareModel, shareModel } from "./model.ts";
import { templateTypes } from "./store.ts";

/** A shares context with the key of the formats' ETags (derived from the root key, the same on every node). */
export interface FormatsContext extends SharesContext {
	etagKey: Buffer;
}

/**
 * The share as it stands, read without a view and without its gates: for an ETag, for the answer
 * of a token whose gates `openFormat` passed (its view was the page's), and for the owner's preview
 * once the shares feature admitted it (`ownerPreview`); never for another reader's answer.
 */
export async function current(ctx: FormatsContext, link: PublicLinkRow, now: number): Promise<ShareModel> {
	const [granted, types] = await Promise.all([readGrants(ctx, link), templateTypes(ctx.db, link, now)]);
	const shared = {
		label: link.label,
		sections: sharedSections(granted),
		records: granted.records.map((r) => sharedRecord(r)),
		viewCount: link.view_count,
	};
	return shareModel(link, shared, types, ctx.server, ctx.etagKey);
}

/** A resolve through `reader`'s gates (its view, file tokens) as the share model. */
export async function readWithView(
	ctx: FormatsContext,
	link: PublicLinkRow,
	input: GateInput,
	now: number,
	reader: ShareReader,
	client: Client = {},
): Promise<ShareModel> {
	const [resolved, types] = await Promise.all([
		resolveLink(ctx, link, input, now, reader, client),
		templateTypes(ctx.db, link, now),
	]);
	return shareModel(link, resolved, types, ctx.server, ctx.etagKey);
}

/**
 * A data format downloaded from the opened share page with its one-time token: spent, bound to
 * this share and format, through the formatToken reader's gates; the values as they stand now,
 * under the page's view (no view taken). The read is the caller's to log when it answers.
 */
export async function readByToken(
	ctx: FormatsContext,
	slug: string,
	kind: FormatTokenKind,
	token: string,
	now: number,
): Promise<{ model: ShareModel; read: TokenRead }> {
	const { link, read } = await openFormat(ctx, slug, kind, token, now);
	return { model: await current(ctx, link, now), read };
}

/** Values (a view was taken), unchanged (304: the tag matched), or headers (HEAD) without a view. */
export interface Read {
	kind: "values" | "unchanged" | "headers";
	model: ShareModel;
}

export interface ReadRequest {
	input: GateInput;
	/** Tags of `If-None-Match` (already parsed); undefined without the header. */
	ifNoneMatch: string[] | undefined;
	/** A HEAD request: headers only, no view. */
	head: boolean;
	/** The ETag the answer will carry, from the model (format and language decide it too). */
	etag(model: ShareModel): string;
	/** Whose gates it passes (shares' READER_GATES), and who asks (a browser cannot prove an identity). */
	reader: ShareReader;
	client: Client;
}

/** Reads a share for one answer: values with a view, or unchanged/headers without one. */
export async function readShare(
	ctx: FormatsContext,
	link: PublicLinkRow,
	req: ReadRequest,
	now: number,
): Promise<Read> {
	if (req.head || req.ifNoneMatch !== undefined) {
		// Read first, gates next: a value never leaves before the gates pass, and a stale tag goes
		// on to the resolve below without paying for the password gate twice.
		const model = await current(ctx, link, now);
		const tag = req.etag(model);
		if (req.head || matches(req.ifNoneMatch ?? [], tag)) {
			await passGates(ctx, req.reader, link, req.input, now, req.client);
			return { kind: req.head && !matches(req.ifNoneMatch ?? [], tag) ? "headers" : "unchanged", model };
		}
	}
	return { kind: "values", model: await readWithView(ctx, link, req.input, now, req.reader, req.client) };
}

/** `If-None-Match` as a list of opaque tags (weak comparison, RFC 9110 §13.1.2), `*` included. */
export function parseIfNoneMatch(header: string | string[] | undefined): string[] | undefined {
	if (header === undefined) return undefined;
	const text = Array.isArray(header) ? header.join(",") : header;
	return text
		.split(",")
		.map((t) => t.trim().replace(/^W\//, ""))
		.filter(Boolean);
}

function matches(tags: readonly string[], etag: string): boolean {
	const opaque = etag.replace(/^W\//, "");
	return tags.some((t) => t === "*" || t === opaque);
}
