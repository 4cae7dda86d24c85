// Deleting an account: confirmed with one of its passkeys; refused while it is a shared workspace's
// last owner; its personal workspace goes (shares stop resolving, identities verify as revoked);
// shared workspaces keep what it made there; sessions, passkeys and keys go. One transaction: a
// crash half-way leaves everything as it was. The operator's `svc admin delete-account` does the same.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { createAccount } from "../../src/features/accounts/service.ts";
import { createIdentity } from "../../src/features/identity/service.ts";
import type { AccountDeletedHook } from "../../src/features/workspaces/hooks.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { addMember, buildAccount, type TestAccount } from "../helpers/factories.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";
import { entryArgs } from "../helpers/root.ts";
import { createLink, createValue, probeLink } from "../shares/helpers.ts";

const C = "/api/collections";
let t: TestApp;

before(async () => {
	t = await makeApp({ domain: "svc.example" });
});
after(() => t.close());

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const call = (
	who: { headers: Record<string, string> },
	method: Method,
	url: string,
	payload?: unknown,
	ws?: string,
) =>
	t.app.inject({
		method,
		url,
		headers: { ...who.headers, ...(ws ? { "x-workspace": ws } : {}) },
		...(payload === undefined ? {} : { payload: payload as object }),
	});

async function identityStatus(fingerprint: string): Promise<string> {
	const res = await t.app.inject({ method: "GET", url: `/api/identities/${fingerprint}/status` });
	assert.equal(res.statusCode, 200, res.body);
	return JSON.parse(Buffer.from(res.json().payload, "base64url").toString("utf8")).status;
}

const count = async (
	table: "accounts" | "sessions" | "passkeys" | "api_keys" | "members",
	column: string,
	value: string,
) =>
	(
		await t.app.store.db
			.selectFrom(table)
			// biome-ignore lint/suspicious/noExplicitAny: a test counting rows across tables
			.where(column as any, "=", value)
			.select((eb) => eb.fn.countAll<number>().as("n"))
			.executeTakeFirstOrThrow()
	).n;

/** A person with a passkey (signed up through the ceremony), a share and an identity in their vault. */
async function person() {
	const client = new PasskeyClient(t.app);
	t.app.config.allowSignups = true;
	const email = `p-${Math.random().toString(36).slice(2)}@example.org`;
	const { token, record } = await client.signup(email);
	t.app.config.allowSignups = false;
	const who: TestAccount = {
		accountId: record.id,
		workspaceId: (
			await t.app.store.db
				.selectFrom("workspaces")
				.select("id")
				.where("owner", "=", record.id)
				.executeTakeFirstOrThrow()
		).id,
		email,
		token,
		headers: { authorization: `Bearer ${token}` },
	};
	return { client, who };
}

async function confirmAndDelete(client: PasskeyClient, who: TestAccount) {
	const begun = await client.post("/api/auth/delete/begin", undefined, who.headers);
	assert.equal(begun.statusCode, 200, begun.body);
	const credential = client.authenticator.get(begun.json().options);
	return client.post("/api/auth/delete/finish", { session: begun.json().session, credential }, who.headers);
}

describe("deleting your account", () => {
	test("what goes and what stays", async () => {
		const { client, who } = await person();
		const value = await createValue(t.app, who, { key: "iban", value: "DE00" });
		const link = await createLink(t.app, who, { label: "Mine", records: [value.id] });
		const identity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{
				accountId: who.accountId,
				workspaceId: who.workspaceId,
				name: "laptop",
				publicKey: (await deviceKey()).publicJwk,
			},
			t.app.clock.now(),
		);
		// A shared workspace with another owner, where the person made a record and a key.
		const other = await buildAccount(t.app);
		const shared = (await call(other, "POST", `${C}/workspaces/records`, { name: "Shared" })).json().id;
		await addMember(t.app, shared, who.accountId, "owner");
		const sharedRecord = (
			await call(who, "POST", `${C}/records/records`, { key: "office", value: "Main St" }, shared)
		).json();
		const key = (
			await call(who, "POST", `${C}/apiKeys/records`, { name: "k", permissions: ["links:read"] }, shared)
		).headers["x-plain-token"];
		const sharedIdentity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{
				accountId: who.accountId,
				workspaceId: shared,
				name: "team key",
				publicKey: (await deviceKey()).publicJwk,
			},
			t.app.clock.now(),
		);
		assert.equal((await probeLink(t.app, link.slug)).statusCode, 200);

		const res = await confirmAndDelete(client, who);
		assert.equal(res.statusCode, 204, res.body);

		// Gone: the account, its sessions, passkeys, keys; its personal workspace and its share.
		assert.equal(Number(await count("accounts", "id", who.accountId)), 0);
		assert.equal(Number(await count("sessions", "account", who.accountId)), 0);
		assert.equal(Number(await count("passkeys", "account", who.accountId)), 0);
		assert.equal(Number(await count("api_keys", "account", who.accountId)), 0);
		assert.equal(Number(await count("members", "account", who.accountId)), 0);
		assert.equal(
			(await t.app.store.db.selectFrom("workspaces").select("id").where("id", "=", who.workspaceId).execute())
				.length,
			0,
		);
		assert.equal((await probeLink(t.app, link.slug)).statusCode, 404);
		assert.equal(await identityStatus(identity.fingerprint), "revoked");
		assert.equal((await call(who, "GET", "/api/auth/me")).statusCode, 401);
		const byKey = await t.app.inject({
			method: "GET",
			url: `${C}/links/records`,
			headers: { "x-api-key": String(key) },
		});
		assert.equal(byKey.json().code, "invalid_api_key");
		// Stays: the shared workspace, its record, its identity (creator cleared), the other owner.
		const kept = await call(other, "GET", `${C}/records/records/${sharedRecord.id}`, undefined, shared);
		assert.equal(kept.statusCode, 200, kept.body);
		assert.equal(await identityStatus(sharedIdentity.fingerprint), "active");
		const row = await t.app.store.db
			.selectFrom("identities")
			.select("account")
			.where("id", "=", sharedIdentity.id)
			.executeTakeFirstOrThrow();
		assert.equal(row.account, null);
		const ws = await t.app.store.db
			.selectFrom("workspaces")
			.select("owner")
			.where("id", "=", shared)
			.executeTakeFirstOrThrow();
		assert.equal(ws.owner, other.accountId);
	});

	test("refused while the last owner of a shared workspace, naming it; nothing changes", async () => {
		const { client, who } = await person();
		const shared = (await call(who, "POST", `${C}/workspaces/records`, { name: "Only Mine" })).json().id;
		const res = await confirmAndDelete(client, who);
		assert.equal(res.statusCode, 409);
		assert.equal(res.json().code, "account_last_owner");
		assert.deepEqual(res.json().workspaces, [{ id: shared, name: "Only Mine" }]);
		assert.match(res.json().detail, /Only Mine/);
		assert.equal((await call(who, "GET", "/api/auth/me")).statusCode, 200);
	});

	test("another account's passkey, a replayed or foreign ceremony, an API key: refused", async () => {
		const { client, who } = await person();
		const { client: otherClient, who: other } = await person();
		const begun = await client.post("/api/auth/delete/begin", undefined, who.headers);
		const foreign = otherClient.authenticator.get(begun.json().options);
		const wrong = await client.post(
			"/api/auth/delete/finish",
			{ session: begun.json().session, credential: foreign },
			who.headers,
		);
		assert.equal(wrong.statusCode, 401);
		assert.equal(wrong.json().code, "account_confirmation_invalid");
		// The ceremony was spent by that answer.
		const replay = await client.post(
			"/api/auth/delete/finish",
			{ session: begun.json().session, credential: client.authenticator.get(begun.json().options) },
			who.headers,
		);
		assert.equal(replay.json().code, "passkey_ceremony_invalid");
		// A ceremony begun by one account cannot delete another.
		const theirs = await otherClient.post("/api/auth/delete/begin", undefined, other.headers);
		const cross = await client.post(
			"/api/auth/delete/finish",
			{ session: theirs.json().session, credential: client.authenticator.get(theirs.json().options) },
			who.headers,
		);
		assert.equal(cross.json().code, "passkey_ceremony_invalid");
		const key = (await call(who, "POST", `${C}/apiKeys/records`, { name: "k", permissions: ["links:read"] }))
			.headers["x-plain-token"];
		const byKey = await client.post("/api/auth/delete/begin", undefined, { "x-api-key": String(key) });
		assert.equal(byKey.statusCode, 401);
		const malformed = await client.post("/api/auth/delete/finish", { session: "x" }, who.headers);
		assert.equal(malformed.statusCode, 400);
		assert.equal(Number(await count("accounts", "id", who.accountId)), 1);
		assert.equal(Number(await count("accounts", "id", other.accountId)), 1);
	});

	test("a crash after every step but the account row's deletion rolls everything back", async () => {
		const { client, who } = await person();
		await createValue(t.app, who, { key: "iban", value: "DE00" });
		const value = await createValue(t.app, who, { key: "phone", value: "+49" });
		const link = await createLink(t.app, who, { label: "Mine", records: [value.id] });
		const identity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{
				accountId: who.accountId,
				workspaceId: who.workspaceId,
				name: "laptop",
				publicKey: (await deviceKey()).publicJwk,
			},
			t.app.clock.now(),
		);
		const personalKey = (
			await call(
				who,
				"POST",
				`${C}/apiKeys/records`,
				{ name: "p", permissions: ["links:read"] },
				who.workspaceId,
			)
		).headers["x-plain-token"];
		const other = await buildAccount(t.app);
		const shared = (await call(other, "POST", `${C}/workspaces/records`, { name: "Shared" })).json().id;
		await addMember(t.app, shared, who.accountId, "member");
		const sharedKey = (
			await call(who, "POST", `${C}/apiKeys/records`, { name: "s", permissions: ["links:read"] }, shared)
		).headers["x-plain-token"];
		const sharedIdentity = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{
				accountId: who.accountId,
				workspaceId: shared,
				name: "team key",
				publicKey: (await deviceKey()).publicJwk,
			},
			t.app.clock.now(),
		);

		// The latest point a fault can strike: memberships left, the personal workspace's rows gone,
		// its identities tombstoned; only the account's own rows remain to delete.
		const reached: string[] = [];
		const crash: AccountDeletedHook = async (trx, accountId) => {
			const left = await trx.selectFrom("members").select("id").where("account", "=", accountId).execute();
			const personal = await trx
				.selectFrom("workspaces")
				.select("id")
				.where("id", "=", who.workspaceId)
				.execute();
			const tombstones = await trx
				.selectFrom("identity_tombstones")
				.select("fingerprint")
				.where("fingerprint", "=", identity.fingerprint)
				.execute();
			reached.push(`members ${left.length}, personal ${personal.length}, tombstones ${tombstones.length}`);
			throw new Error("simulated crash");
		};
		t.app.workspaceHooks.onAccountDeleted.push(crash);
		try {
			const res = await confirmAndDelete(client, who);
			assert.equal(res.statusCode, 500, res.body);
		} finally {
			t.app.workspaceHooks.onAccountDeleted.pop();
		}
		assert.deepEqual(reached, ["members 0, personal 0, tombstones 1"]);

		// Everything is as it was.
		assert.equal(Number(await count("accounts", "id", who.accountId)), 1);
		assert.equal(Number(await count("members", "account", who.accountId)), 2);
		assert.equal(Number(await count("sessions", "account", who.accountId)), 1);
		assert.equal(Number(await count("passkeys", "account", who.accountId)), 1);
		assert.equal((await call(who, "GET", "/api/auth/me")).statusCode, 200);
		const records = await call(who, "GET", `${C}/records/records`, undefined, who.workspaceId);
		assert.equal(records.json().totalItems, 2, records.body);
		assert.equal((await call(who, "GET", `${C}/records/records`, undefined, shared)).statusCode, 200);
		assert.equal(await identityStatus(identity.fingerprint), "active");
		assert.equal(await identityStatus(sharedIdentity.fingerprint), "active");
		const creator = await t.app.store.db
			.selectFrom("identities")
			.select("account")
			.where("id", "=", sharedIdentity.id)
			.executeTakeFirstOrThrow();
		assert.equal(creator.account, who.accountId);
		assert.equal((await probeLink(t.app, link.slug)).statusCode, 200);
		for (const key of [personalKey, sharedKey]) {
			const byKey = await t.app.inject({
				method: "GET",
				url: `${C}/links/records`,
				headers: { "x-api-key": String(key) },
			});
			assert.equal(byKey.statusCode, 200, byKey.body);
		}
		// And it completes once the fault is gone.
		assert.equal((await confirmAndDelete(client, who)).statusCode, 204);
		assert.equal(await identityStatus(identity.fingerprint), "revoked");
	});
});

describe("svc admin delete-account", () => {
	const cli = (...args: string[]) =>
		new Promise<{ code: number | null; stderr: string }>((resolve) => {
			const child = spawn(process.execPath, [...entryArgs("cli/svc.ts"), ...args], {
				env: {
					...process.env,
					DATA_DIR: t.env.config.dataDir,
					DATABASE_URL: t.env.config.databaseUrl,
					DATABASE_SCHEMA: t.env.config.databaseSchema,
					DOMAIN: "svc.example",
					LOG_LEVEL: "silent",
				},
				stdio: ["ignore", "pipe", "pipe"],
			});
			let stderr = "";
			child.stderr.on("data", (d: Buffer) => {
				stderr += d.toString();
			});
			child.on("close", (code) => resolve({ code, stderr }));
		});

	test("deletes an account by email; refuses without --yes, an unknown email, a last owner", async () => {
		const now = t.app.clock.now();
		const email = `cli-${Math.random().toString(36).slice(2)}@example.org`;
		const made = await createAccount(t.app.store.db, { email }, now);
		assert.equal((await cli("admin", "delete-account", "--email", email)).code, 2);
		assert.equal((await cli("admin", "delete-account", "--email", "nobody@example.org", "--yes")).code, 1);
		const done = await cli("admin", "delete-account", "--email", email, "--yes");
		assert.equal(done.code, 0, done.stderr);
		assert.equal(Number(await count("accounts", "id", made.accountId)), 0);

		const owner = await buildAccount(t.app);
		await call(owner, "POST", `${C}/workspaces/records`, { name: "Club" });
		const refused = await cli("admin", "delete-account", "--email", owner.email, "--yes");
		assert.equal(refused.code, 1);
		assert.match(refused.stderr, /last owner of "Club"/);
		assert.equal(Number(await count("accounts", "id", owner.accountId)), 1);
	});
});
