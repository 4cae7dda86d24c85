// Factories (outline's buildUser habit): each test makes the accounts and credentials it needs.
import type { JWK } from "jose";
import type { App } from "../../src/app.ts";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import type { AccountCaller } from "../../src/http/auth.ts";
import { expandPermissions, type Role, rolePermissions } from "../../src/http/permissions.ts";
import { newId, randomToken, sha256Hex } from "../../src/lib/crypto.ts";
import { type DeviceKey, deviceKey } from "./device-key.ts";

export interface TestAccount {
	accountId: string;
	/** The personal workspace made with the account. */
	workspaceId: string;
	email: string;
	token: string;
	headers: Record<string, string>;
}

let counter = 0;

/** An account with its personal workspace and a live session. */
export async function buildAccount(
	app: App,
	opts: { email?: string; name?: string } = {},
): Promise<TestAccount> {
	counter += 1;
	const email = opts.email ?? `person${counter}-${newId().slice(0, 6)}@example.org`;
	const now = app.clock.now();
	const { accountId, workspaceId } = await createAccount(
		app.store.db,
		{ email, ...(opts.name ? { name: opts.name } : {}) },
		now,
	);
	const { token } = await createSession(app.store.db, accountId, now);
	return { accountId, workspaceId, email, token, headers: { authorization: `Bearer ${token}` } };
}

export interface TestIdentity {
	id: string;
	fingerprint: string;
	/** The device key the test holds for it. */
	key: DeviceKey;
	/** What a credential is bound to: the identity's fingerprint on this server, and its key. */
	holder: { fingerprint: string; domain: string; jwk: JWK };
}

/** An identity of `who`'s active workspace, made through the API with a fresh device key. */
export async function createIdentity(app: App, who: TestAccount, name = "Ada"): Promise<TestIdentity> {
	const key = await deviceKey();
	const made = await app.inject({
		method: "POST",
		url: "/api/collections/identities/records",
		headers: who.headers,
		payload: { name, publicKey: key.publicJwk },
	});
	if (made.statusCode !== 200) throw new Error(`identity not made: ${made.statusCode} ${made.body}`);
	const { id, fingerprint } = made.json() as { id: string; fingerprint: string };
	return {
		id,
		fingerprint,
		key,
		holder: { fingerprint, domain: app.config.domain, jwk: key.publicJwk as JWK },
	};
}

/** Adds `account` to `workspaceId` with `role`. */
export async function addMember(app: App, workspaceId: string, accountId: string, role: Role): Promise<void> {
	const now = app.clock.now();
	await app.store.db
		.insertInto("members")
		.values({ id: newId(), workspace: workspaceId, account: accountId, role, created: now, updated: now })
		.execute();
}

/**
 * An API-key caller for the collection rules, independent of how keys are minted: the app's key
 * resolver answers for this key with the given scopes (other keys go to the real resolver).
 */
export function buildApiKey(
	app: App,
	owner: Pick<TestAccount, "accountId" | "workspaceId">,
	scopes: readonly string[] = expandPermissions(rolePermissions.owner),
): { key: string; headers: Record<string, string> } {
	const key = `svc_test_${randomToken(24)}`;
	const hash = sha256Hex(key);
	const real = app.authResolvers.apiKey;
	const caller: AccountCaller = {
		kind: "apiKey",
		accountId: owner.accountId,
		workspaceId: owner.workspaceId,
		scopes,
		credentialId: newId(),
	};
	app.authResolvers.apiKey = async (keyHash, now) => (keyHash === hash ? caller : real?.(keyHash, now));
	return { key, headers: { "x-api-key": key } };
}
