// A connection's own rules (spec "Connections", "Connection" states): how long it lives, when it
// is live, and what its tool is told of it.
import type { ConnectionTable } from "../../db/schema.ts";

const DAY = 24 * 60 * 60 * 1000;
/** A connection lives 90 days from the owner's last connecting of the tool. */
export const CONNECTION_TTL_MS = 90 * DAY;
/** A code works once, for five minutes; a polled answer is kept five minutes. */
export const GRANT_TTL_MS = 5 * 60 * 1000;

export interface ConnectionPolicy {
	/** `http://localhost` and `http://127.0.0.1` tool origins (the server's DOMAIN is `localhost`). */
	allowLoopback: boolean;
	/** The server's own origin, for share addresses handed to tools. */
	origin: string;
}

export function isLive(connection: Pick<ConnectionTable, "expires_at">, now: number): boolean {
	return connection.expires_at > now;
}

/** What the tool is told of its connection. */
export interface ConnectionSummary {
	id: string;
	clientName: string;
	expiresAt: string;
	allowRevoke: boolean;
	allowHandOver: boolean;
}

export function connectionSummary(connection: ConnectionTable): ConnectionSummary {
	return {
		id: connection.id,
		clientName: connection.client_name,
		expiresAt: new Date(connection.expires_at).toISOString(),
		allowRevoke: connection.allow_revoke === 1,
		allowHandOver: connection.allow_hand_over === 1,
	};
}
