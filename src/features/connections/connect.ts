// Connecting a tool (spec "Connections"): the owner authorizes it (`POST /api/connections/authorize`)
// and the tool redeems the answer for a token (`POST /api/connect/token`), with a one-time code or
// by polling with its verifier. The redirect and PKCE checks are the OIDC provider's (lib/oauth.ts).
import type { Kysely } from "kysely";
import type { ConnectionTable, Database } from "../../db/schema.ts";
import type { AccountCaller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { AppLinkError, parseToolOrigin } from "../../lib/app-links.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { isRedirectOnOrigin, isS256Challenge, s256Of, verifierMatches } from "../../lib/oauth.ts";
import { invalidField } from "../collections/fields.ts";
import {
	CONNECTION_TTL_MS,
	type ConnectionPolicy,
	type ConnectionSummary,
	connectionSummary,
	GRANT_TTL_MS,
	isLive,
} from "./connection.ts";
import * as store from "./store.ts";

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
	if (!isRedirectOnOrigin(value, clientId)) {
		throw new AppError(
			"connection_redirect_invalid",
			`redirectUri must be an absolute address on ${clientId}, without credentials or fragment`,
			{ extra: { field: "body.redirectUri" } },
		);
	}
	return value;
}

function checkChallenge(value: string): string {
	if (!isS256Challenge(value)) {
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
	/** Needed with a code; a poll asks with its verifier alone (one given must still match). */
	redirectUri?: string | undefined;
}

export interface ConnectionGrant {
	token: string;
	connection: ConnectionSummary;
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
		if (input.redirectUri === undefined) throw invalidGrant("redirectUri is required with a code");
		if (grant.redirect_uri !== input.redirectUri)
			throw invalidGrant("redirectUri is not the address the code was issued for");
		if (origin !== undefined && origin !== grant.client_id)
			throw invalidGrant("The code is handed only to the tool's own origin");
	} else {
		const challenge = s256Of(input.verifier);
		if (challenge === undefined) throw invalidGrant("verifier must be 43 to 128 of [A-Za-z0-9._~-]");
		if (origin === undefined) throw invalidGrant("Polling needs the tool's Origin header");
		grant = await store.spendPoll(db, challenge, origin, now);
		if (!grant) {
			const other = await store.findPoll(db, challenge, now);
			if (other) throw invalidGrant("The answer is handed only to the tool's own origin");
			return "pending";
		}
		if (input.redirectUri !== undefined && grant.redirect_uri !== input.redirectUri)
			throw invalidGrant("redirectUri is not the address the answer was issued for");
	}

	const connection = await store.findById(db, grant.connection);
	if (!connection || !isLive(connection, now)) throw invalidGrant("The connection no longer stands");
	const token = randomToken(32);
	await store.insertToken(db, sha256Hex(token), connection.id, now);
	return { token, connection: connectionSummary(connection) };
}
