// Shares and their read log as docs/api.md "Shares" and the `links` and `linkReads` collections
// answer them; the vault's records and sections the form picks from.
import { ApiError, collection } from "../../api.ts";
import type { Wire } from "../../wire.ts";

export type { ShareStatus } from "../../../../src/lib/share-status.ts";

/** A share as the `links` collection answers it. */
export type Share = Wire<"Link">;

export type ReadKind = ShareRead["kind"];

/** One read of a share, as the `linkReads` collection answers it. */
export type ShareRead = Wire<"LinkRead">;

export type VaultRecord = Wire<"VaultRecord">;
export type Section = Wire<"Section">;
export type Identity = Wire<"Identity">;

export const shares = collection<Share>("links");
export const shareReads = collection<ShareRead>("linkReads");
export const records = collection<VaultRecord>("records");
export const sections = collection<Section>("sections");
export const identities = collection<Identity>("identities");

/** The share page people open: `/s/{slug}` on this server's own origin. */
export function shareUrl(slug: string): string {
	return `${window.location.origin}/s/${encodeURIComponent(slug)}`;
}

/** The same share for apps: `POST /api/public/links/{slug}`. */
export function shareApiUrl(slug: string): string {
	return `${window.location.origin}/api/public/links/${encodeURIComponent(slug)}`;
}

/** A `datetime-local` value (the reader's own zone) as the ISO 8601 instant the API takes. */
export function localToIso(value: string): string | null {
	const date = new Date(value);
	return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The member a refusal names ("body.stamp" -> "stamp"), to mark that field. */
export function refusedField(err: unknown): string | null {
	if (!(err instanceof ApiError)) return null;
	const field = err.problem.field;
	return typeof field === "string" ? field.replace(/^body\./, "") : null;
}
