import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, test } from "node:test";
import { type App, buildApp } from "../../src/app.ts";
import { openStore } from "../../src/db/index.ts";
import { testEnv } from "../helpers/app.ts";
import { startServers } from "../helpers/process.ts";

const HEX64 = /^[0-9a-f]{64}$/;

/** The served fingerprint, after checking it is one (64 hex digits, SHA-256 of the served key's SPKI DER). */
function checkedFingerprint(claim: { fingerprint?: unknown; publicKey?: unknown }): string {
	assert.equal(typeof claim.fingerprint, "string", JSON.stringify(claim));
	assert.equal(typeof claim.publicKey, "string", JSON.stringify(claim));
	const fingerprint = claim.fingerprint as string;
	assert.match(fingerprint, HEX64);
	const der = crypto.createPublicKey(claim.publicKey as string).export({ type: "spki", format: "der" });
	assert.equal(fingerprint, crypto.createHash("sha256").update(der).digest("hex"));
	return fingerprint;
}

const fingerprintOf = async (url: string) => {
	const res = await fetch(`${url}/api/server`);
	assert.equal(res.status, 200);
	return checkedFingerprint((await res.json()) as Record<string, unknown>);
};

const fingerprintIn = async (app: App) => {
	const res = await app.inject({ url: "/api/server" });
	assert.equal(res.statusCode, 200, res.body);
	return checkedFingerprint(res.json());
};

describe("the root key", () => {
	test("survives a restart: same fingerprint on the same database", async (t) => {
		const env = testEnv();
		t.after(() => env.dispose());
		const first = await buildApp(env.config);
		const before = await fingerprintIn(first);
		await first.close();
		const second = await buildApp(env.config);
		const after = await fingerprintIn(second);
		await second.close();
		assert.equal(after, before);
		// A fresh database gets a key of its own: the equality above is the database's key, not a constant.
		const otherEnv = testEnv();
		t.after(() => otherEnv.dispose());
		const other = await buildApp(otherEnv.config);
		const elsewhere = await fingerprintIn(other);
		await other.close();
		assert.notEqual(elsewhere, before);
	});

	test("two server processes started together on one empty database share one key", async (t) => {
		const env = testEnv();
		t.after(() => env.dispose());
		const vars = {
			DATA_DIR: env.config.dataDir,
			DATABASE_URL: env.config.databaseUrl,
			DATABASE_SCHEMA: env.config.databaseSchema,
			DOMAIN: "cluster.test",
		};
		const [a, b] = await startServers([vars, vars]);
		t.after(async () => {
			await a.stop();
			await b.stop();
		});
		const [fa, fb] = await Promise.all([fingerprintOf(a.url), fingerprintOf(b.url)]);
		assert.equal(fa, fb);
	});

	// The processes above start once per run; the race they can lose (two `create schema if not
	// exists` passing the check together, PostgreSQL's 23505 on pg_namespace) is tried here often.
	test("stores opened at once on one empty database all open", async (t) => {
		for (let round = 0; round < 6; round += 1) {
			const env = testEnv();
			t.after(() => env.dispose());
			const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openStore(env.config)));
			const stores = opened.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
			await Promise.all(stores.map((s) => s.destroy()));
			const refused = opened.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []));
			assert.deepEqual(refused, [], `round ${round}`);
		}
	});
});
