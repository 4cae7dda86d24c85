// The `connections` collection: the owner's side of connected tools. List and view the active
// workspace's connections; delete revokes one (its tokens stop working at once; the shares its
// proposals became stay and no longer name the tool). Connecting happens at
// `POST /api/connections/authorize`, permissions change at `POST /api/connections/{id}/permissions`.
// Sessions only: a tool's consent is a person's act.
import { sql } from "kysely";
import { Type } from "typebox";
import type { ConnectionTable } from "../../db/schema.ts";
import { iso, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import { disconnect, isLive } from "./service.ts";
import { selectConnections } from "./store.ts";

export const Connection = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		clientId: Type.String({ description: "The tool's origin." }),
		clientName: Type.String({ description: "The name the tool gives itself: a claim, not checked." }),
		allowRevoke: Type.Boolean({ description: "The tool may revoke the shares its proposals became." }),
		allowHandOver: Type.Boolean({ description: "The tool may receive the shares its proposals became." }),
		expiresAt: Timestamp("90 days after the owner last connected the tool."),
		state: Type.Union([Type.Literal("connected"), Type.Literal("lapsed")], {
			description: "`connected` until `expiresAt`, then `lapsed` (its tokens answer `connection_expired`).",
		}),
		linkCount: Type.Integer({ description: "Shares that name this tool." }),
		created: Timestamp("When the tool was first connected."),
		updated: Timestamp("Last change (connecting again, permissions)."),
	},
	{ $id: "Connection", description: "A connected tool (`connections` collection)." },
);

type ConnectionRow = ConnectionTable & { link_count: number | string | null };

const rule = (scope: string) => ({ scope, apiKeys: false });

export const connectionsCollection = defineCollection<ConnectionRow, never, never>({
	name: "connections",
	description:
		"Tools connected to the active workspace. Delete revokes a connection: its tokens stop working at once and the shares its proposals became stay, no longer naming the tool. Connect at `POST /api/connections/authorize`; change permissions at `POST /api/connections/{id}/permissions`. Sessions only.",
	schemas: { item: Connection },
	query: {
		id: { type: "text", expr: sql.ref("connections.id"), sort: true },
		clientId: { type: "text", expr: sql.ref("connections.client_id"), sort: true },
		clientName: { type: "text", expr: sql.ref("connections.client_name"), sort: true },
		allowRevoke: { type: "boolean", expr: sql.ref("connections.allow_revoke") },
		allowHandOver: { type: "boolean", expr: sql.ref("connections.allow_hand_over") },
		expiresAt: { type: "date", expr: sql.ref("connections.expires_at"), sort: true },
		created: { type: "date", expr: sql.ref("connections.created"), sort: true },
		updated: { type: "date", expr: sql.ref("connections.updated"), sort: true },
	},
	defaultSort: "-updated",
	access: {
		list: rule("link:read"),
		view: rule("link:read"),
		delete: rule("link:write"),
	},
	refusals: {
		create: "Connect a tool at POST /api/connections/authorize",
		update: "Change permissions at POST /api/connections/{id}/permissions",
	},
	idColumn: "connections.id",
	select: (db, caller) => selectConnections(db, caller.workspaceId),
	toItem: (row, now) => ({
		id: row.id,
		workspace: row.workspace,
		clientId: row.client_id,
		clientName: row.client_name,
		allowRevoke: row.allow_revoke === 1,
		allowHandOver: row.allow_hand_over === 1,
		expiresAt: iso(row.expires_at),
		state: isLive(row, now) ? "connected" : "lapsed",
		linkCount: Number(row.link_count ?? 0),
		created: iso(row.created),
		updated: iso(row.updated),
	}),
	handlers: {
		delete: ({ db }, row) => disconnect(db, row.id),
	},
});
