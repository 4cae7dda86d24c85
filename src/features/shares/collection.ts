// The `links` collection: the owner's shares. Create names records and/or sections; PATCH changes
// the gates and moves the status along the transition table (pause, resume, revoke). The slug and
// status are the server's; the password is write-only (only its scrypt hash is kept).
//
// API keys (with `links:read`/`links:write`) may list, view, pause, resume and revoke shares, but a
// key never opens the vault: it never sees a slug (which would read the values), cannot name
// records or sections in a share, and cannot loosen a share's gates (key-changes.ts).
import { sql } from "kysely";
import { Type } from "typebox";
import type { LinkTable } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { seesHidden } from "../../http/permissions.ts";
import { hashPassword } from "../../lib/password.ts";
import { stripDisguising } from "../../lib/sniff.ts";
import { invalidField, iso, isoOrNull, Nullable, parseExpiry, Timestamp } from "../collections/fields.ts";
import { defineCollection, type OperationContext } from "../collections/registry.ts";
import { connectionForShare } from "../connections/service.ts";
import { checkIdentityOwnership } from "../identity/service.ts";
import { type GrantHooks, runLinkDeleted } from "./grant-hooks.ts";
import { refuseHiddenGrants, refuseHiddenShare } from "./hidden.ts";
import { refuseKeyLoosening } from "./key-changes.ts";
import {
	assertHandOverable,
	changeLinkStatus,
	createLink,
	effectiveStatus,
	expireLink,
	isWatermarked,
	type LinkStatus,
} from "./lifecycle.ts";
import { publicQueries } from "./public-queries.ts";
import type { LinkRow } from "./store.ts";
import * as store from "./store.ts";

const STATUSES = ["active", "paused", "revoked", "expired"] as const;
const MAX_GRANTS = 500;

export const Link = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		slug: Nullable(
			Type.String(),
			"The capability (256 bits, base64url): the share's address is `/s/{slug}` and its API `/api/public/links/{slug}`. Null for API key callers (a key never opens the vault), and for members and viewers when the share holds a hidden record (it would read it).",
		),
		label: Type.String({ description: "0 to 200 characters." }),
		status: Type.Union(
			STATUSES.map((s) => Type.Literal(s)),
			{ description: "`active`, `paused`, `revoked` or `expired`; see the transition table in docs/api.md." },
		),
		records: Type.Array(Type.String(), {
			description:
				"Ids of the records the share names, in order; for members and viewers without the hidden ones.",
		}),
		sections: Type.Array(Type.String(), {
			description: "Ids of the sections the share names; it grants every record they hold now.",
		}),
		requiresPassword: Type.Boolean({
			description: "Set when a password gates it; the password is never returned.",
		}),
		viewCount: Type.Integer({ description: "Resolves so far." }),
		maxViews: Nullable(Type.Integer(), "View cap; null for none."),
		expiresAt: Nullable(Timestamp("The share expires at this instant."), "Null for none."),
		requireHandshake: Type.Boolean({ description: "A proven identity (signed challenge) is required." }),
		watermarked: Type.Boolean({ description: "Files are served as stamped copies." }),
		stamp: Nullable(Type.String(), "The watermark stamp text; null for an unwatermarked share."),
		purpose: Type.String({ description: "`application` (always watermarked) or empty." }),
		ref: Nullable(Type.String(), "The owner's own reference, up to 200 characters."),
		identity: Nullable(Type.String(), "Id of an identity of the workspace the share is made under."),
		handedOver: Type.Boolean({
			description: "Set when the share was created for a connected tool and handed over to it.",
		}),
		connection: Nullable(
			Type.String(),
			"The connected tool (`connections` id) whose proposal the share became; null for none or once that connection is deleted.",
		),
		signInClient: Nullable(Type.String(), "The OpenID Connect client (origin) a sign-in grant was made for."),
		created: Timestamp("Creation time."),
		updated: Timestamp("Time of the last change."),
	},
	{ $id: "Link", description: "A share (`links` collection)." },
);

const Ids = (what: string) =>
	Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
		maxItems: MAX_GRANTS,
		uniqueItems: true,
		description: `Ids of ${what} of the workspace, at most ${MAX_GRANTS}.`,
	});

const writable = {
	label: Type.String({ maxLength: 200 }),
	records: Ids("records"),
	sections: Ids("sections"),
	password: Nullable(
		Type.String({ minLength: 1, maxLength: 200 }),
		"Sets the password (stored as an scrypt hash); null removes it.",
	),
	maxViews: Nullable(
		Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
		"View cap; null for none. Set at or below `viewCount` on a live share, the cap is reached: the share expires.",
	),
	expiresAt: Nullable(
		Type.String({ maxLength: 64 }),
		"ISO 8601 date-time in the future; null for none. A past instant is refused: pause or revoke to end a share now.",
	),
	requireHandshake: Type.Boolean(),
	stamp: Nullable(
		Type.String({ maxLength: 400 }),
		"Watermark stamp text: one line of 1 to 120 characters after trimming (`watermark_text_invalid`); null for none.",
	),
	purpose: Type.Union([Type.Literal(""), Type.Literal("application")], {
		description: "`application` needs a `stamp` (always watermarked).",
	}),
	ref: Nullable(Type.String({ maxLength: 200 })),
	identity: Nullable(Type.String({ maxLength: 64 })),
};

const LinkCreate = Type.Object(
	{
		label: Type.Optional(writable.label),
		records: Type.Optional(writable.records),
		sections: Type.Optional(writable.sections),
		password: Type.Optional(writable.password),
		maxViews: Type.Optional(writable.maxViews),
		expiresAt: Type.Optional(writable.expiresAt),
		requireHandshake: Type.Optional(writable.requireHandshake),
		stamp: Type.Optional(writable.stamp),
		purpose: Type.Optional(writable.purpose),
		ref: Type.Optional(writable.ref),
		identity: Type.Optional(writable.identity),
		connection: Type.Optional(
			Type.String({
				maxLength: 64,
				description:
					"Create only. A live connection of the workspace (`connections` id): the share is the one a tool's proposal became, and that tool reads its status (and revokes it with `allowRevoke`). Unknown: 400 `validation_failed`; lapsed: 409 `connection_not_connected`.",
			}),
		),
		handedOver: Type.Optional(
			Type.Boolean({
				description:
					"Create only, needs `connection`. The tool receives the share's address: 403 `link_hand_over_not_allowed` when the connection lacks `allowHandOver` or the share holds a hidden record or a file.",
			}),
		),
	},
	{ additionalProperties: false },
);

const { connection: _connection, handedOver: _handedOver, ...updatable } = LinkCreate.properties;

const LinkUpdate = Type.Object(
	{
		...updatable,
		status: Type.Optional(
			Type.Union([Type.Literal("active"), Type.Literal("paused"), Type.Literal("revoked")], {
				description: "`paused` pauses, `active` resumes, `revoked` revokes for good.",
			}),
		),
	},
	{ additionalProperties: false },
);

interface LinkInput {
	label?: string;
	records?: string[];
	sections?: string[];
	password?: string | null;
	maxViews?: number | null;
	expiresAt?: string | null;
	requireHandshake?: boolean;
	stamp?: string | null;
	purpose?: "" | "application";
	ref?: string | null;
	identity?: string | null;
	status?: "active" | "paused" | "revoked";
	connection?: string;
	handedOver?: boolean;
}

/** One line of 1 to 120 characters once trimmed (spec "Limits": stamp text). */
export function stampText(value: string): string {
	const text = value.trim();
	if (text.length < 1 || text.length > 120 || /[\r\n\u2028\u2029]/.test(text)) {
		throw new AppError("watermark_text_invalid", "The stamp is one line of 1 to 120 characters", {
			extra: { field: "body.stamp" },
		});
	}
	return text;
}

/** The records and sections named must be the workspace's; a key may not name any. */
async function checkGrants(ctx: OperationContext, input: LinkInput) {
	const named = (input.records?.length ?? 0) + (input.sections?.length ?? 0);
	if (named > 0 && ctx.caller.kind === "apiKey") {
		throw new AppError(
			"api_key_scope_missing",
			"Naming vault records in a share needs the vault, which keys never open",
			{
				extra: { scope: "record:read" },
			},
		);
	}
	for (const [field, table] of [
		["records", "records"],
		["sections", "sections"],
	] as const) {
		const ids = input[field];
		if (ids && (await store.countOwned(ctx.db, table, ctx.caller.workspaceId, ids)) !== ids.length) {
			throw invalidField(field, `must name ${table} of this workspace`);
		}
	}
	await refuseHiddenGrants(ctx, input);
}

/** The column changes an input asks for, checked; `current` is the row for an update. */
async function columns(
	ctx: OperationContext,
	input: LinkInput,
	current?: LinkTable,
): Promise<Partial<LinkTable>> {
	const out: Partial<LinkTable> = {};
	if (input.label !== undefined) out.label = stripDisguising(input.label).trim();
	if (input.password !== undefined)
		out.password_hash = input.password === null ? null : await hashPassword(input.password);
	if (input.maxViews !== undefined) out.max_views = input.maxViews;
	if (input.expiresAt !== undefined)
		out.expires_at = input.expiresAt === null ? null : parseExpiry(input.expiresAt, ctx.now);
	if (input.requireHandshake !== undefined) out.require_handshake = input.requireHandshake ? 1 : 0;
	if (input.stamp !== undefined) out.stamp = input.stamp === null ? null : stampText(input.stamp);
	if (input.purpose !== undefined) out.purpose = input.purpose;
	if (input.ref !== undefined) out.ref = input.ref;
	if (input.identity !== undefined) {
		if (input.identity !== null) await checkIdentityOwnership(ctx.db, ctx.caller, input.identity);
		out.identity = input.identity;
	}
	const purpose = out.purpose ?? current?.purpose ?? "";
	const stamp = out.stamp !== undefined ? out.stamp : (current?.stamp ?? null);
	if (purpose === "application" && stamp === null) {
		throw invalidField("stamp", "is required for purpose `application` (always watermarked)");
	}
	return out;
}

/** The tool a new share is made for (`connection`) and whether it is handed over to it. */
async function toolOf(
	ctx: OperationContext,
	input: LinkInput,
): Promise<Pick<LinkTable, "connection" | "handed_over">> {
	if (input.connection === undefined) {
		if (input.handedOver) throw invalidField("handedOver", "needs `connection`: the tool it is handed to");
		return { connection: null, handed_over: 0 };
	}
	const handOver = input.handedOver === true;
	const connection = await connectionForShare(
		ctx.db,
		ctx.caller.workspaceId,
		input.connection,
		handOver,
		ctx.now,
	);
	return { connection: connection.id, handed_over: handOver ? 1 : 0 };
}

function actorOf(caller: AccountCaller) {
	return { kind: "owner" as const, accountId: caller.accountId };
}

const rule = (scope: string) => ({ scope, apiKeys: true });

/** What watches shares and records (grant events), called inside each change's transaction. */
export interface LinkDeps {
	grantHooks: GrantHooks;
}

export const linksCollection = defineCollection<LinkRow, LinkInput, LinkInput, LinkDeps>({
	name: "links",
	description:
		"Shares of the active workspace. A share grants the records it names and every record of the sections it names, read live at each resolve. API keys may list, view and change the status of shares but never see a slug or name records, and never loosen a share's gates: removing or replacing a password, dropping `requireHandshake` or the watermark (`stamp`, `purpose`), raising or removing `maxViews`, moving `expiresAt` later or removing it need the owner's session (403 `link_gate_session_required`, naming `fields`).",
	schemas: { item: Link, create: LinkCreate, update: LinkUpdate },
	query: {
		id: { type: "text", expr: sql.ref("links.id"), sort: true },
		label: { type: "text", expr: sql.ref("links.label"), sort: true },
		status: { type: "text", expr: sql.ref("links.status"), sort: true },
		viewCount: { type: "integer", expr: sql.ref("links.view_count"), sort: true },
		maxViews: { type: "integer", expr: sql.ref("links.max_views"), nullable: true, sort: true },
		expiresAt: { type: "date", expr: sql.ref("links.expires_at"), nullable: true, sort: true },
		requireHandshake: { type: "boolean", expr: sql.ref("links.require_handshake") },
		purpose: { type: "text", expr: sql.ref("links.purpose") },
		ref: { type: "text", expr: sql.ref("links.ref"), nullable: true },
		identity: { type: "text", expr: sql.ref("links.identity"), nullable: true },
		handedOver: { type: "boolean", expr: sql.ref("links.handed_over") },
		connection: { type: "text", expr: sql.ref("links.connection"), nullable: true },
		created: { type: "date", expr: sql.ref("links.created"), sort: true },
		updated: { type: "date", expr: sql.ref("links.updated"), sort: true },
	},
	defaultSort: "-created",
	access: {
		list: rule("link:read"),
		view: rule("link:read"),
		// `link:*` covers it; an answer-only account holds `link:read` and `link:write` alone.
		create: rule("link:create"),
		update: rule("link:write"),
		delete: rule("link:write"),
	},
	idColumn: "links.id",
	select: (db, caller) => {
		const base = store.selectLinks(db, caller.workspaceId);
		// Members and viewers never meet hidden entries, in a share neither (store.withGrants).
		const q = seesHidden(caller) ? base : base.select(sql<number>`1`.as("withhold_hidden"));
		// A key never sees a slug: holding one reads the vault values the share grants.
		return caller.kind === "apiKey" ? q.select(sql<string>`''`.as("slug")) : q;
	},
	complete: store.withGrants,
	toItem: (row, now) => ({
		id: row.id,
		workspace: row.workspace,
		slug: row.slug === "" ? null : row.slug,
		label: row.label,
		// Reported as a reader would meet it: past its expiry an active share is expired.
		status: effectiveStatus(row, now),
		records: row.records ? row.records.split(",") : [],
		sections: row.sections ? row.sections.split(",") : [],
		requiresPassword: row.password_hash !== null,
		viewCount: row.view_count,
		maxViews: row.max_views,
		expiresAt: isoOrNull(row.expires_at),
		requireHandshake: row.require_handshake === 1,
		watermarked: isWatermarked(row),
		stamp: row.stamp,
		purpose: row.purpose,
		ref: row.ref,
		identity: row.identity,
		handedOver: row.handed_over === 1,
		connection: row.connection,
		signInClient: row.sign_in_client,
		created: iso(row.created),
		updated: iso(row.updated),
	}),
	handlers: {
		create: async (ctx, input) => {
			await checkGrants(ctx, input);
			const changes = await columns(ctx, input);
			const tool = await toolOf(ctx, input);
			const id = await ctx.db.transaction().execute(async (trx) => {
				const created = await createLink(
					trx,
					{ ...changes, ...tool, workspace: ctx.caller.workspaceId, created_by: ctx.caller.accountId },
					{ records: input.records ?? [], sections: input.sections ?? [] },
					ctx.now,
				);
				// A share holding a hidden record or a file is never handed to a tool.
				if (tool.handed_over === 1) await assertHandOverable(trx, created);
				return created;
			});
			return { id };
		},
		update: async (ctx, row, input) => {
			await refuseHiddenShare(ctx, row);
			await checkGrants(ctx, input);
			const changes = await columns(ctx, input, row);
			if (ctx.caller.kind === "apiKey") refuseKeyLoosening(row, changes);
			const { status, ...rest } = input;
			const changesFields = Object.keys(rest).length > 0;
			await ctx.db.transaction().execute(async (trx) => {
				if (changesFields) {
					await store.updateLink(trx, row.id, { ...changes, updated: ctx.now });
					await store.replaceGrants(trx, row.id, input.records, input.sections);
					if (row.handed_over === 1) await assertHandOverable(trx, row.id);
				}
				if (status !== undefined) {
					await changeLinkStatus(
						trx,
						row,
						status as LinkStatus,
						actorOf(ctx.caller),
						ctx.now,
						ctx.grantHooks,
					);
				}
				// A cap lowered to the views already taken, or a share resumed at its cap, is reached
				// now: the share expires in this change, as the read taking the last view would expire it.
				if (input.maxViews !== undefined || status === "active") {
					await expireLink(publicQueries(ctx.db), trx, ctx.grantHooks, row.id, ctx.now);
				}
			});
		},
		delete: async (ctx, row) => {
			await refuseHiddenShare(ctx, row);
			await ctx.db.transaction().execute(async (trx) => {
				await runLinkDeleted(ctx.grantHooks, trx, row.id, ctx.now);
				await store.deleteLink(trx, row.id);
			});
		},
	},
});
