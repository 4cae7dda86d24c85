// What a connected tool may do with its token (spec "Connections"): open its connection, read the
// status of the shares its proposals became (with an address only when handed over), and revoke
// them when the owner allowed it.
import type { Kysely } from "kysely";
import type { ConnectionTable, Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import type { GrantHooks } from "../shares/service.ts";
import { effectiveStatus, holdingHiddenOrFile, revokeForTool, toolLinks } from "../shares/service.ts";
import { type ConnectionPolicy, isLive } from "./connection.ts";
import * as store from "./store.ts";

/** The connection a tool's token opens: `connection_unauthorized`, or `connection_expired` once lapsed. */
export async function connectionFor(
	db: Kysely<Database>,
	header: string | string[] | undefined,
	now: number,
): Promise<ConnectionTable> {
	const token = typeof header === "string" ? header.trim() : "";
	if (token === "") {
		throw new AppError("connection_unauthorized", "Send the connection token in X-Svc-Connection");
	}
	const connection = await store.connectionByToken(db, sha256Hex(token));
	if (!connection) throw new AppError("connection_unauthorized", "No connection has this token");
	if (!isLive(connection, now)) {
		throw new AppError(
			"connection_expired",
			"The connection has lapsed; connect the tool again from the app",
		);
	}
	return connection;
}

export interface ToolLink {
	id: string;
	ref: string | null;
	label: string;
	status: string;
	viewCount: number;
	maxViews: number | null;
	expiresAt: string | null;
	created: string;
	handedOver: boolean;
	url?: string;
}

/**
 * A share as its tool sees it: the address only when handed over, active, hand-over allowed, and
 * holding no hidden record or file at this moment (`withheld`).
 */
export function toolLink(
	link: Awaited<ReturnType<typeof toolLinks>>[number],
	connection: ConnectionTable,
	policy: Pick<ConnectionPolicy, "origin">,
	now: number,
	withheld: ReadonlySet<string>,
): ToolLink {
	const status = effectiveStatus(link, now);
	const out: ToolLink = {
		id: link.id,
		ref: link.ref,
		label: link.label,
		status,
		viewCount: link.view_count,
		maxViews: link.max_views,
		expiresAt: link.expires_at === null ? null : new Date(link.expires_at).toISOString(),
		created: new Date(link.created).toISOString(),
		handedOver: link.handed_over === 1,
	};
	if (
		link.handed_over === 1 &&
		status === "active" &&
		connection.allow_hand_over === 1 &&
		!withheld.has(link.id)
	) {
		out.url = `${policy.origin}/s/${link.slug}`;
	}
	return out;
}

/** `GET /api/connection`: the connection with the shares its tool's proposals became, newest first. */
export async function describe(
	db: Kysely<Database>,
	connection: ConnectionTable,
	policy: Pick<ConnectionPolicy, "origin">,
	now: number,
) {
	const links = await toolLinks(db, connection.id);
	const withheld = await holdingHiddenOrFile(
		db,
		links.filter((l) => l.handed_over === 1).map((l) => l.id),
	);
	return {
		id: connection.id,
		clientId: connection.client_id,
		clientName: connection.client_name,
		expiresAt: new Date(connection.expires_at).toISOString(),
		allowRevoke: connection.allow_revoke === 1,
		allowHandOver: connection.allow_hand_over === 1,
		links: links.map((l) => toolLink(l, connection, policy, now, withheld)),
	};
}

/** `POST /api/connection/links/{id}/revoke`: only with `allowRevoke`; revoking again succeeds. */
export async function revokeLink(
	db: Kysely<Database>,
	connection: ConnectionTable,
	linkId: string,
	hooks: GrantHooks,
	policy: Pick<ConnectionPolicy, "origin">,
	now: number,
): Promise<ToolLink> {
	if (connection.allow_revoke !== 1) {
		throw new AppError(
			"connection_revoke_not_allowed",
			"The owner has not allowed this tool to revoke shares",
		);
	}
	const link = await revokeForTool(
		db,
		connection.id,
		linkId,
		{ name: connection.client_name, origin: connection.client_id },
		now,
		hooks,
	);
	// Revoked now, so no address either way: nothing is withheld that would show.
	return toolLink(link, connection, policy, now, new Set());
}
