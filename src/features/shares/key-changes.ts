// Which changes of a share an API key may make (docs/api.md "Making and changing shares", issue
// 35.7). A key never opens the vault, and a share's gates are what keep its values from whoever
// holds the address: a key may tighten a share (add a password where there is none, require a
// handshake, add a watermark, lower a cap, bring an expiry forward, pause, revoke) and change what
// opens nothing (label, ref, the stamp's text), but never loosen one. Removing or replacing a
// password (a key that sets one knows it), dropping the handshake or the watermark, raising or
// removing a cap, and moving or removing an expiry need the owner's session: 403
// `link_gate_session_required`, naming the members in `fields`, and nothing changes.
import type { LinkTable } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";

/** The members of a PATCH that loosen `row`'s gates; `changes` are the checked column values. */
export function loosened(
	row: Pick<
		LinkTable,
		"password_hash" | "require_handshake" | "stamp" | "purpose" | "max_views" | "expires_at"
	>,
	changes: Partial<LinkTable>,
): string[] {
	const out: string[] = [];
	if (changes.password_hash !== undefined && row.password_hash !== null) out.push("password");
	if (changes.require_handshake === 0 && row.require_handshake === 1) out.push("requireHandshake");
	const stamp = changes.stamp !== undefined ? changes.stamp : row.stamp;
	const purpose = changes.purpose ?? row.purpose;
	const watermarked = row.stamp !== null || row.purpose === "application";
	if (watermarked && stamp === null && purpose !== "application") {
		out.push(changes.stamp === null ? "stamp" : "purpose");
	}
	if (
		changes.max_views !== undefined &&
		row.max_views !== null &&
		(changes.max_views === null || changes.max_views > row.max_views)
	) {
		out.push("maxViews");
	}
	if (
		changes.expires_at !== undefined &&
		row.expires_at !== null &&
		(changes.expires_at === null || changes.expires_at > row.expires_at)
	) {
		out.push("expiresAt");
	}
	return out;
}

/** Refuses a key's change that loosens a gate (403 `link_gate_session_required`). */
export function refuseKeyLoosening(row: Parameters<typeof loosened>[0], changes: Partial<LinkTable>): void {
	const fields = loosened(row, changes);
	if (fields.length === 0) return;
	throw new AppError(
		"link_gate_session_required",
		`An API key cannot loosen a share's gates (${fields.join(", ")}): that needs the owner's session`,
		{ extra: { fields } },
	);
}
