// A share's statuses and the transition table (spec "Link (share) status"), written once for the
// server (shares/lifecycle.ts) and the console's share screens, which offer only what it allows. It
// runs in Node and in browsers and imports nothing.

export type ShareStatus = "active" | "paused" | "revoked" | "expired";
export const SHARE_STATUSES: readonly ShareStatus[] = ["active", "paused", "revoked", "expired"];

/**
 * What each status may be set to: active <-> paused; active or paused -> revoked (one-way; revoking
 * again succeeds and changes nothing); expired is final except that it may still be revoked. A
 * share expires by itself, never by request.
 */
export const SHARE_TRANSITIONS: Readonly<Record<ShareStatus, readonly ShareStatus[]>> = {
	active: ["active", "paused", "revoked"],
	paused: ["paused", "active", "revoked"],
	revoked: ["revoked"],
	expired: ["expired", "revoked"],
};

/** The changes a status offers, as an owner asks for them: the table's other targets, in its order. */
export function shareChanges(status: ShareStatus): Exclude<ShareStatus, "expired">[] {
	return SHARE_TRANSITIONS[status].filter(
		(to): to is Exclude<ShareStatus, "expired"> => to !== status && to !== "expired",
	);
}
