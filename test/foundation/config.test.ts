// Runs once, not per database: parsing the environment, with no database.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { ConfigError, loadConfig, publicOrigin } from "../../src/config.ts";

describe("configuration", () => {
	test("defaults: localhost, port 8080, SQLite under ./data, signups off, 100 MB files", () => {
		const c = loadConfig({});
		assert.equal(c.domain, "localhost");
		assert.equal(c.port, 8080);
		assert.equal(c.dataDir, path.resolve("data"));
		assert.equal(c.databaseUrl, "");
		assert.equal(c.allowSignups, false);
		assert.equal(c.allowAttestations, false);
		assert.equal(c.maxFileSize, 104857600);
		assert.equal(c.grantMaxAge, 60);
		assert.equal(c.ratelimitConnectRequests, 60);
		assert.equal(publicOrigin(c), "http://localhost:8080");
		assert.equal(publicOrigin({ domain: "svc.example", port: 8080 }), "https://svc.example");
	});

	test("reads PORT, DATA_DIR, DOMAIN and the spec's variables", () => {
		const c = loadConfig({
			PORT: "9001",
			DATA_DIR: "/tmp/x",
			DOMAIN: "Svc.Example.org",
			MAX_FILE_SIZE: "-1",
			ALLOW_SIGNUPS: "true",
			PEER_OVERRIDES: "peer.test=http://127.0.0.1:4001, other.test=https://127.0.0.1:4002/",
			DNS_SERVERS: "127.0.0.1:5353,[::1]:53",
		});
		assert.equal(c.port, 9001);
		assert.equal(c.dataDir, "/tmp/x");
		assert.equal(c.domain, "svc.example.org");
		assert.equal(c.maxFileSize, -1);
		assert.equal(c.allowSignups, true);
		assert.deepEqual(
			{ ...c.peerOverrides },
			{ "peer.test": "http://127.0.0.1:4001", "other.test": "https://127.0.0.1:4002" },
		);
		assert.deepEqual(c.dnsServers, ["127.0.0.1:5353", "[::1]:53"]);
	});

	const bad: [string, string][] = [
		["PORT", "eighty"],
		["PORT", "70000"],
		["DOMAIN", "http://svc.example"],
		["DOMAIN", "svc.example:8080"],
		["MAX_FILE_SIZE", "0"],
		["MAX_FILE_SIZE", "-2"],
		["ALLOW_SIGNUPS", "maybe"],
		["DATABASE_URL", "mysql://x"],
		["PEER_OVERRIDES", "peer.test"],
		["PEER_OVERRIDES", "peer.test=ftp://x"],
		["SQLITE_SYNCHRONOUS", "OFF"],
		["LOG_LEVEL", "loud"],
		["BLOB_STORE", "nfs"],
		["S3_ENDPOINT", "s3.internal:9000"],
		["S3_ENDPOINT", "ftp://s3.internal"],
		["S3_PART_SIZE", "1048576"],
		["S3_FORCE_PATH_STYLE", "sometimes"],
	];
	for (const [name, value] of bad) {
		test(`${name}=${value} is refused at start, naming the variable`, () => {
			assert.throws(
				() => loadConfig({ [name]: value }),
				(e: unknown) => e instanceof ConfigError && e.message.includes(name),
			);
		});
	}

	test("BLOB_STORE=s3 needs S3_BUCKET; with it, the S3 settings are read", () => {
		assert.throws(
			() => loadConfig({ BLOB_STORE: "s3" }),
			(e: unknown) => e instanceof ConfigError && e.message.includes("S3_BUCKET"),
		);
		const c = loadConfig({
			BLOB_STORE: "S3",
			S3_BUCKET: "svc-files",
			S3_ENDPOINT: "http://127.0.0.1:9000/",
			S3_FORCE_PATH_STYLE: "true",
			S3_PREFIX: "prod/",
		});
		assert.equal(c.blobStore, "s3");
		assert.equal(c.s3Endpoint, "http://127.0.0.1:9000");
		assert.equal(c.s3ForcePathStyle, true);
		assert.equal(c.s3PartSize, 8 * 1024 * 1024);
		assert.equal(loadConfig({}).blobStore, "fs");
	});
});
