// Connected tools (spec "Connections", "Connection" states): the owner authorizes a tool, the tool
// redeems the answer (a one-time code, or by polling with its verifier) for a token, reads the
// status of the shares its proposals became, revokes them when allowed, and disconnects.
import crypto from "node:crypto";
import type { Kysely } from "kysely";
import type { ConnectionTable, Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { AppLinkError, parseToolOrigin } from "../../lib/app-links.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { invalidField } from "../collections/fields.ts";
import { verifierMatches } from "../passkeys/checks.ts";
import type { GrantHooks } from "../shares/grant-hooks.ts";
import { effectiveStatus } from "../shares/lifecycle.ts";
import { holdingHiddenOrFile, revokeForTool, toolLinks } from "../shares/service.ts";
import * as store from "./store.ts";

const DAY = 24 * 60 * 60 * 1000;
/** A connection lives 90 days from the owner's last connecting of the tool. */
export const CONNECTION_TTL_MS = 90 * DAY;
/** A code works once, for five minutes; a polled answer is kept five minutes. */
export const GRANT_TTL_MS = 5 * 60 * 1000;

const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export interface ConnectionPolicy {
	/** `http://localhost` and `http://127.0.0.1` tool origins (the server's DOMAIN is `localhost`). */
	allowLoopback: boolean;
	/** The server's own origin, for share addresses handed to tools. */
	origin: string;
}

export interface AuthorizeInput {
	clientId: string;
	clientName?: string;
	redirectUri: string;
	allowRevoke?: boolean;
	allowHandOver?: boolean;
	challenge: string;
	reuse?: boolean;
	poll?: boolean;
}

export function isLive(connection: Pick<ConnectionTable, "expires_at">, now: number): boolean {
	return connection.expires_at > now;
}

/** The tool's origin as `client` takes it, else `connection_client_invalid`. */
export function checkClient(value: string, policy: Pick<ConnectionPolicy, "allowLoopback">): string {
	try {
		return parseToolOrigin(value, { allowLoopback: policy.allowLoopback }, "clientId");
	} catch (err) {
		if (err instanceof AppLinkError) {
			throw new AppError("connection_client_invalid", `clientId ${err.message}`, {
				extra: { field: "body.clientId" },
			});
		}
		throw err;
	}
}

function checkRedirect(value: string, clientId: string): string {
	let url: URL | undefined;
	try {
		url = new URL(value);
	} catch {
		url = undefined;
	}
	if (!url || url.origin !== clientId || url.username !== "" || url.password !== "" || url.hash !== "") {
		throw new AppError(
			"connection_redirect_invalid",
			`redirectUri must be an absolute address on ${clientId}, without credentials or fragment`,
			{ extra: { field: "body.redirectUri" } },
		);
	}
	return value;
}

function checkChallenge(value: string): string {
	if (!S256_CHALLENGE.test(value)) {
		throw new AppError(
			"connection_challenge_invalid",
			"challenge must be a PKCE S256 challenge (43 base64url)",
			{
				extra: { field: "body.challenge" },
			},
		);
	}
	return value;
}

function checkName(value: string): string {
	const name = value.trim();
	// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
	if (name === "" || Array.from(name).length > 40 || /[\u0000-\u001f\u007f-\u009f]/.test(name)) {
		throw invalidField("clientName", "must be one line of 1 to 40 characters");
	}
	return name;
}

/**
 * `POST /api/connections/authorize`, in order: the tool's origin, its return address, the challenge;
 * then (with `reuse`) the live connection as it is, or else the connection found or created for the
 * origin and renewed for 90 days (a lapsed one's tokens deleted, never revived); then the answer.
 */
export async function authorize(
	db: Kysely<Database>,
	caller: AccountCaller,
	input: AuthorizeInput,
	policy: ConnectionPolicy,
	now: number,
): Promise<{ code: string; connectionId: string }> {
	const clientId = checkClient(input.clientId, policy);
	const redirectUri = checkRedirect(input.redirectUri, clientId);
	const challenge = checkChallenge(input.challenge);
	const name = input.reuse || input.clientName === undefined ? undefined : checkName(input.clientName);

	return db.transaction().execute(async (trx) => {
		let connectionId: string;
		if (input.reuse) {
			// No new consent: name, permissions and expiry stay as they are.
			const found = await store.findByClient(trx, caller.workspaceId, clientId);
			if (!found || !isLive(found, now)) {
				throw new AppError("connection_not_connected", `${clientId} has no live connection to reuse`);
			}
			connectionId = found.id;
		} else {
			const expires = now + CONNECTION_TTL_MS;
			const created = await store.insertIfAbsent(trx, {
				id: newId(),
				workspace: caller.workspaceId,
				client_id: clientId,
				client_name: name ?? "",
				allow_revoke: input.allowRevoke ? 1 : 0,
				allow_hand_over: input.allowHandOver ? 1 : 0,
				expires_at: expires,
				created_by: caller.accountId,
				created: now,
				updated: now,
			});
			const row = await store.findByClient(trx, caller.workspaceId, clientId);
			if (!row) throw new AppError("conflict", "The connection changed meanwhile; try again");
			if (created && name === undefined)
				throw invalidField("clientName", "is required to connect a new tool");
			if (!created) {
				// Permissions left out keep their values; the name given replaces the old claim.
				// The member who consents last holds the connection: it ends if they leave the workspace.
				const changes: Partial<ConnectionTable> = {
					expires_at: expires,
					created_by: caller.accountId,
					updated: now,
				};
				if (name !== undefined) changes.client_name = name;
				if (input.allowRevoke !== undefined) changes.allow_revoke = input.allowRevoke ? 1 : 0;
				if (input.allowHandOver !== undefined) changes.allow_hand_over = input.allowHandOver ? 1 : 0;
				// A lapsed connection comes back with none of its old tokens.
				if (await store.renewIfLapsed(trx, row.id, changes, now)) await store.deleteTokens(trx, row.id);
				else await store.updateConnection(trx, row.id, changes);
			}
			connectionId = row.id;
		}

		const code = randomToken(32);
		await store.sweepGrants(trx, now);
		if (input.poll) await store.deletePollGrant(trx, challenge);
		await store.insertGrant(trx, {
			code_hash: sha256Hex(code),
			connection: connectionId,
			challenge,
			poll_challenge: input.poll ? challenge : null,
			client_id: clientId,
			redirect_uri: redirectUri,
			created: now,
			expires: now + GRANT_TTL_MS,
		});
		return { code, connectionId };
	});
}

export interface TokenInput {
	code?: string;
	verifier: string;
	redirectUri: string;
}

export interface ConnectionGrant {
	token: string;
	connection: {
		id: string;
		clientName: string;
		expiresAt: string;
		allowRevoke: boolean;
		allowHandOver: boolean;
	};
}

const invalidGrant = (why: string) => new AppError("connection_grant_invalid", why);

/**
 * `POST /api/connect/token`. With `code`: the answer is spent on first presentation, right or
 * wrong, then must be live, match the verifier and the return address, and (from a browser) be
 * presented by the tool's own origin. Without: the answer left for polling is found by the
 * verifier's challenge and handed once, only to the tool's own origin; none yet is `pending`.
 */
export async function redeem(
	db: Kysely<Database>,
	input: TokenInput,
	origin: string | undefined,
	now: number,
): Promise<ConnectionGrant | "pending"> {
	let grant: Awaited<ReturnType<typeof store.spendCode>>;
	if (input.code !== undefined) {
		grant = await store.spendCode(db, sha256Hex(input.code));
		if (!grant) throw invalidGrant("The code is unknown or already used");
		if (grant.expires <= now) throw invalidGrant("The code has expired");
		if (!verifierMatches(grant.challenge, input.verifier))
			throw invalidGrant("The verifier does not match the code's challenge");
		if (grant.redirect_uri !== input.redirectUri)
			throw invalidGrant("redirectUri is not the address the code was issued for");
		if (origin !== undefined && origin !== grant.client_id)
			throw invalidGrant("The code is handed only to the tool's own origin");
	} else {
		const challenge = s256(input.verifier);
		if (challenge === undefined) throw invalidGrant("verifier must be 43 to 128 of [A-Za-z0-9._~-]");
		if (origin === undefined) throw invalidGrant("Polling needs the tool's Origin header");
		grant = await store.spendPoll(db, challenge, origin, now);
		if (!grant) {
			const other = await store.findPoll(db, challenge, now);
			if (other) throw invalidGrant("The answer is handed only to the tool's own origin");
			return "pending";
		}
		if (grant.redirect_uri !== input.redirectUri)
			throw invalidGrant("redirectUri is not the address the answer was issued for");
	}

	const connection = await store.findById(db, grant.connection);
	if (!connection || !isLive(connection, now)) throw invalidGrant("The connection no longer stands");
	const token = randomToken(32);
	await store.insertToken(db, sha256Hex(token), connection.id, now);
	return { token, connection: connectionSummary(connection) };
}

function s256(verifier: string): string | undefined {
	if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return undefined;
	return crypto.createHash("sha256").update(verifier, "ascii").digest("base64url");
}

export function connectionSummary(connection: ConnectionTable): ConnectionGrant["connection"] {
	return {
		id: connection.id,
		clientName: connection.client_name,
		expiresAt: new Date(connection.expires_at).toISOString(),
		allowRevoke: connection.allow_revoke === 1,
		allowHandOver: connection.allow_hand_over === 1,
	};
}

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

/** Deletes a connection (by its tool, or the owner revoking it): tokens go, shares stay unnamed. */
export async function disconnect(db: Kysely<Database>, connectionId: string): Promise<void> {
	await store.deleteConnection(db, connectionId);
}

/** `POST /api/connections/{id}/permissions`: a field left out stays. */
export async function setPermissions(
	db: Kysely<Database>,
	caller: AccountCaller,
	id: string,
	input: { allowRevoke?: boolean; allowHandOver?: boolean },
	now: number,
): Promise<{ allowRevoke: boolean; allowHandOver: boolean }> {
	const changes: Partial<ConnectionTable> = { updated: now };
	if (input.allowRevoke !== undefined) changes.allow_revoke = input.allowRevoke ? 1 : 0;
	if (input.allowHandOver !== undefined) changes.allow_hand_over = input.allowHandOver ? 1 : 0;
	const result = await db
		.updateTable("connections")
		.set(changes)
		.where("id", "=", id)
		.where("workspace", "=", caller.workspaceId)
		.returning(["allow_revoke", "allow_hand_over"])
		.executeTakeFirst();
	if (!result) throw new AppError("not_found", "No connection of this workspace has that id");
	return { allowRevoke: result.allow_revoke === 1, allowHandOver: result.allow_hand_over === 1 };
}

/**
 * For a share created for a tool (`links` create with `connection`): the workspace's live
 * connection, and with `handedOver` one allowed to receive shares.
 */
export async function connectionForShare(
	db: Kysely<Database>,
	workspaceId: string,
	id: string,
	handOver: boolean,
	now: number,
): Promise<ConnectionTable> {
	const connection = await store.findInWorkspace(db, workspaceId, id);
	if (!connection) throw invalidField("connection", "must name a connection of this workspace");
	if (!isLive(connection, now)) {
		throw new AppError("connection_not_connected", "The connection has lapsed; connect the tool again");
	}
	if (handOver && connection.allow_hand_over !== 1) {
		throw new AppError("link_hand_over_not_allowed", "The owner has not allowed this tool to receive shares");
	}
	return connection;
}

/**
 * A member leaves a workspace (workspaces/membership.ts `depart`): the tools they connected there
 * go, and (cascading) their tokens and open answers; shares those tools proposed stay with the
 * workspace, no longer tied to a tool. Runs in the departure's transaction.
 */
export async function deleteConnectionsOf(
	db: Kysely<Database>,
	workspaceId: string,
	accountId: string,
): Promise<void> {
	await db
		.deleteFrom("connections")
		.where("workspace", "=", workspaceId)
		.where("created_by", "=", accountId)
		.execute();
}
