// The public face of a share by slug (spec "Share (link)"): the probe reports the gates without
// data and without a view; the resolve passes the gates (gates.ts), takes one view and reads the
// current values, minting the one-time file tokens of that view.
import { AppError } from "../../http/errors.ts";
import { newId } from "../../lib/crypto.ts";
import type { ProvenIdentity } from "../challenges/service.ts";
import { sharerOf } from "../server/service.ts";
import type { SharesContext } from "./context.ts";
import { type Admitted, admit, type Client, type GateInput, passGates, type ShareReader } from "./gates.ts";
import { runLinkStatus } from "./grant-hooks.ts";
import { type Granted, orderGrants, readGrants, sharedRecord, sharedSections } from "./granted.ts";
import { isWatermarked } from "./lifecycle.ts";
import type { PublicLinkRow } from "./public-queries.ts";
import { mintFileTokens } from "./tokens.ts";

export async function findBySlug(ctx: SharesContext, slug: string): Promise<PublicLinkRow> {
	const [link] = await ctx.q.linkBySlug(ctx.db, { slug });
	if (!link) throw new AppError("link_not_found");
	return link;
}

/** Named fields, not a spread: spreading the row costs the probe about a tenth of its throughput. */
function sharer(link: PublicLinkRow, ctx: SharesContext) {
	const { sharer_name: name, identity, identity_fingerprint, identity_name } = link;
	return sharerOf({ name, identity, identity_fingerprint, identity_name }, ctx.server);
}

/** Reports the gates without data and without consuming a view. */
export async function probe(ctx: SharesContext, slug: string, now: number) {
	const link = await ctx.q.probeLink(slug);
	if (!link) throw new AppError("link_not_found");
	const { status } = await passGates(ctx, "probe", link, {}, now);
	return {
		slug: link.slug,
		label: link.label,
		status,
		requiresPassword: link.password_hash !== null,
		requireHandshake: link.require_handshake === 1,
		watermarked: isWatermarked(link),
		purpose: link.purpose,
		identity: link.identity ?? "",
		sharer: sharer(link, ctx),
		server: ctx.server,
	};
}

/** The watermark line: the stamp text, who it was sent to (the proven identity, else the view), the date. */
export function watermarkLine(stamp: string, reader: ProvenIdentity | undefined, view: number, now: number) {
	const who = reader
		? `${reader.name ? `${reader.name} ` : ""}${reader.fingerprint.slice(0, 16)}`
		: `view ${view}`;
	return `${stamp} | ${who} | ${new Date(now).toISOString().slice(0, 10)}`;
}

export interface ResolveInput extends GateInput {
	/** Accepted for compatibility and ignored: a handshake is proven by the challenge only. */
	handshakeToken?: string | undefined;
}

/**
 * Passes the gates, takes one view, and reads what the share grants now (`POST /api/public/links/{slug}`).
 * An active share with no password and no handshake is read at once (`resolveOpen`: one statement
 * on PostgreSQL, for the reads of one share that arrive together; on SQLite synchronously, in the transaction of its event-loop round's group commit,
 * db/direct.ts). Anything it does not take (gone, paused, spent, expired, gated) goes through the
 * gates one by one, which refuse it with the right code or admit it.
 */
export async function resolve(
	ctx: SharesContext,
	slug: string,
	input: ResolveInput,
	now: number,
	client: Client = {},
) {
	const open = await ctx.q.resolveOpen(slug, { readId: newId(), now });
	if (open) {
		if (open.status === "expired") {
			// This view reached the cap and expired the share with it.
			await runLinkStatus(ctx.hooks, ctx.db, { link: open.id, from: "active", to: "expired" }, now);
		}
		const granted = orderGrants(open.records, open.sections);
		return answer(ctx, open, granted, { reader: undefined, view: open.view_count }, now);
	}
	return resolveLink(ctx, await findBySlug(ctx, slug), input, now, "resolve", client);
}

/**
 * The resolve of a share already found by its slug, through `reader`'s gates and taking its view
 * (the share page and the addressbook read the row first).
 */
export async function resolveLink(
	ctx: SharesContext,
	link: PublicLinkRow,
	input: ResolveInput,
	now: number,
	reader: ShareReader,
	client: Client = {},
) {
	const admitted = await admit(ctx, reader, link, input, now, client);
	return answer(ctx, link, await readGrants(ctx, link), admitted, now);
}

/** What a reader admitted with `view` gets: the granted values, and a file token per file. */
async function answer(
	ctx: SharesContext,
	link: Pick<PublicLinkRow, "id" | "slug" | "label" | "purpose" | "identity" | "stamp">,
	granted: Granted,
	{ reader, view }: Admitted,
	now: number,
) {
	const watermark = isWatermarked(link) ? watermarkLine(link.stamp ?? "", reader, view, now) : undefined;
	const fileIds = granted.records.filter((r) => r.kind === "file").map((r) => r.id);
	const tokens = await mintFileTokens(ctx, fileIds, {
		link: link.id,
		view,
		line: watermark ?? null,
		reader: reader?.fingerprint ?? null,
		now,
	});

	return {
		slug: link.slug,
		label: link.label,
		purpose: link.purpose,
		identity: link.identity ?? "",
		sections: sharedSections(granted),
		records: granted.records.map((r) => sharedRecord(r, tokens.downloads.get(r.id))),
		viewCount: view,
		...(watermark !== undefined ? { watermark } : {}),
		...(tokens.archive ? { archiveToken: tokens.archive } : {}),
	};
}
