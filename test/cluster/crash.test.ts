// Crash tests: the compiled server is killed with SIGKILL in the middle of an upload, an archive
// download and a retried callback delivery, then restarted on the same DATA_DIR / schema, and the
// invariants are checked: no row for a cut upload and its partial swept, every view counted was a
// success seen, and every event acknowledged delivered with one 2xx. Workspace deletion is in
// crash-workspace-deletion.test.ts.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { buildApp } from "../../src/app.ts";
import type { Store } from "../../src/db/index.ts";
import { sweepBlobs } from "../../src/features/vault/files/sweeper.ts";
import { openBlobStore } from "../../src/lib/blob-store-config.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { type TestEnv, testEnv } from "../helpers/app.ts";
import {
	call,
	HOUR,
	kill9,
	LINKS,
	MB,
	makePerson,
	openTestStore,
	type Person,
	RECORDS,
	REQUESTS,
	startNode,
	stopIfAlive,
	until,
	upload,
} from "../helpers/crash-node.ts";
import type { ServerProcess } from "../helpers/process.ts";
import { type Received, type Receiver, startReceiver } from "../helpers/receiver.ts";

const sha = (b: Uint8Array) => crypto.createHash("sha256").update(b).digest("hex");

/** A crash scenario's database, DATA_DIR, owner and first node. */
function useNode(overrides: Parameters<typeof testEnv>[0] = {}) {
	const s = {} as { env: TestEnv; store: Store; owner: Person; node: ServerProcess };
	before(async () => {
		s.env = testEnv(overrides);
		s.store = await openTestStore(s.env);
		s.owner = await makePerson(s.store);
		s.node = await startNode(s.env);
	});
	after(async () => {
		await stopIfAlive(s.node);
		await s.store?.destroy();
		await s.env?.dispose();
	});
	return s;
}

/**
 * A multipart upload declaring `total` bytes of file that stops writing after `stopAt` and holds
 * the request open, as a slow client would: the server is then mid-write, with no answer yet.
 */
function stalledUpload(node: ServerProcess, who: Person, key: string, total: number, stopAt: number) {
	const boundary = `----crash-${crypto.randomBytes(8).toString("hex")}`;
	const head = Buffer.from(
		`--${boundary}\r\nContent-Disposition: form-data; name="key"\r\n\r\n${key}\r\n` +
			`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
			"Content-Type: application/octet-stream\r\n\r\n",
	);
	const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
	const req = http.request({
		host: "127.0.0.1",
		port: node.port,
		method: "POST",
		path: RECORDS,
		headers: {
			...who.headers,
			"content-type": `multipart/form-data; boundary=${boundary}`,
			"content-length": String(head.length + total + tail.length),
		},
	});
	let status = 0;
	let sent = 0;
	const ended = new Promise<{ status: number; error?: string }>((resolve) => {
		req.on("response", (res) => {
			status = res.statusCode ?? 0;
			res.resume().on("end", () => resolve({ status }));
		});
		req.on("error", (err) => resolve({ status, error: err.message }));
	});
	const chunk = crypto.randomBytes(MB);
	void (async () => {
		req.write(head);
		while (sent < stopAt && !req.destroyed) {
			sent += chunk.length;
			if (!req.write(chunk)) await Promise.race([new Promise((r) => req.once("drain", r)), ended]);
		}
	})();
	return { ended, sent: () => sent, answered: () => status !== 0 };
}

describe("kill -9 during an upload", () => {
	const s = useNode();

	test("no row, a partial left under blobs/tmp and swept after its hour; uploads work after the restart", async (t) => {
		const tmp = path.join(s.env.config.dataDir, "blobs", "tmp");
		const partials = () => fs.readdirSync(tmp).filter((f) => f.endsWith(".part"));
		const partialBytes = () => partials().reduce((n, f) => n + fs.statSync(path.join(tmp, f)).size, 0);
		const total = 40 * MB;
		const up = stalledUpload(s.node, s.owner, "cut-upload", total, 16 * MB);
		// In the middle: the server has written 8 MB of the 40 MB to its partial file and not answered.
		await until(() => partialBytes() >= 8 * MB, "the partial upload to grow");
		assert.equal(up.answered(), false);
		const onDisk = partialBytes();
		await kill9(s.node);
		const cut = await up.ended;
		assert.equal(cut.status, 0, "no answer ever came");
		assert.ok(up.sent() < total);
		t.diagnostic(`killed with ${up.sent() / MB} MB sent, ${(onDisk / MB).toFixed(1)} MB in the partial`);

		s.node = await startNode(s.env);
		const rows = await s.store.db
			.selectFrom("records")
			.select("id")
			.where("key", "=", "cut-upload")
			.execute();
		assert.deepEqual(rows, [], "a cut upload leaves no record");
		// The start-up sweep leaves a partial younger than an hour: it may be an upload in flight.
		assert.equal(partials().length, 1);

		const bytes = crypto.randomBytes(MB + 7);
		const after = await upload(s.node, s.owner, "after-crash", bytes, "after.bin");
		assert.equal(after.file.sha256, sha(bytes));

		const blobs = openBlobStore(s.env.config);
		const swept = await sweepBlobs(s.store.db, blobs, Date.now() + 2 * HOUR);
		assert.ok(swept.partials >= 1, JSON.stringify(swept));
		assert.equal(swept.orphans, 0, "the upload never became an object");
		assert.deepEqual(partials(), []);
		const referenced = new Set(
			(
				await s.store.db.selectFrom("records").select("file_key").where("file_key", "is not", null).execute()
			).map((r) => r.file_key),
		);
		const objects: string[] = [];
		for await (const o of blobs.list()) objects.push(o.key);
		assert.ok(objects.length > 0 && objects.every((k) => referenced.has(k)), "no object without a row");

		const { token } = await call<{ token: string }>(s.node, s.owner, "POST", "/api/files/token");
		const res = await fetch(`${s.node.url}/api/files/${after.id}?token=${token}`);
		assert.equal(res.status, 200);
		assert.equal(
			sha(new Uint8Array(await res.arrayBuffer())),
			sha(bytes),
			"the upload after the crash is intact",
		);
	});
});

/** `unzip -t` on the bytes; answers the entries' digests by name. */
function unzipChecked(zip: Buffer): Map<string, string> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-crash-zip-"));
	try {
		const file = path.join(dir, "a.zip");
		fs.writeFileSync(file, zip);
		assert.match(execFileSync("unzip", ["-t", file], { encoding: "utf8" }), /No errors detected/);
		execFileSync("unzip", ["-q", file, "-d", path.join(dir, "out")]);
		const out = new Map<string, string>();
		for (const name of fs.readdirSync(path.join(dir, "out")))
			out.set(name, sha(fs.readFileSync(path.join(dir, "out", name))));
		return out;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

describe("kill -9 during an archive download", () => {
	const s = useNode();
	const FILES = 5;

	test("views counted equal the resolves answered 200; the token is spent; a new archive is whole", async (t) => {
		const files = Array.from({ length: FILES }, () => crypto.randomBytes(5 * MB));
		const ids: string[] = [];
		for (const [i, bytes] of files.entries())
			ids.push((await upload(s.node, s.owner, `doc${i}`, bytes, `doc${i}.bin`)).id);
		const link = await call<{ id: string; slug: string }>(s.node, s.owner, "POST", LINKS, {
			label: "Crash archive",
			records: ids,
		});
		let ok = 0;
		const resolve = async () => {
			const res = await fetch(`${s.node.url}/api/public/links/${link.slug}`, { method: "POST" });
			const body = (await res.json()) as { archiveToken?: string };
			if (res.status === 200) ok++;
			return body;
		};
		const viewCount = async () =>
			(
				await s.store.db
					.selectFrom("links")
					.select("view_count")
					.where("id", "=", link.id)
					.executeTakeFirstOrThrow()
			).view_count;
		let token = "";
		for (let i = 0; i < 4; i++) token = (await resolve()).archiveToken ?? "";
		assert.equal(ok, 4);

		// Read 2 MB of the archive, then stop reading (the server blocks on a full socket) and kill.
		const cut = await new Promise<{ length: number; got: number; aborted: boolean }>((done, fail) => {
			const req = http.get(`${s.node.url}/api/public/links/${link.slug}/archive?dl=${token}`, (res) => {
				if (res.statusCode !== 200) return fail(new Error(`archive: ${res.statusCode}`));
				const length = Number(res.headers["content-length"]);
				let got = 0;
				let killing = false;
				let aborted = false;
				res.on("data", (d: Buffer) => {
					got += d.length;
					if (got < 2 * MB || killing) return;
					killing = true;
					res.pause();
					kill9(s.node).then(() => res.resume(), fail);
				});
				res.on("aborted", () => {
					aborted = true;
				});
				res.on("error", () => undefined);
				res.on("close", () => done({ length, got, aborted }));
			});
			req.on("error", () => undefined);
		});
		t.diagnostic(`archive cut at ${(cut.got / MB).toFixed(1)} of ${(cut.length / MB).toFixed(1)} MB`);
		assert.ok(cut.aborted && cut.got < cut.length, "the download was cut mid-stream");

		s.node = await startNode(s.env);
		assert.equal(await viewCount(), ok, "every view counted was a resolve answered 200");
		// The token is spent when the archive starts (before the first byte), so the cut download
		// used it up: the reader resolves again, which is a new view.
		const again = await fetch(`${s.node.url}/api/public/links/${link.slug}/archive?dl=${token}`);
		assert.equal(again.status, 401);
		assert.equal(((await again.json()) as { code: string }).code, "file_download_invalid");

		const fresh = (await resolve()).archiveToken;
		const res = await fetch(`${s.node.url}/api/public/links/${link.slug}/archive?dl=${fresh}`);
		assert.equal(res.status, 200);
		const entries = unzipChecked(Buffer.from(await res.arrayBuffer()));
		assert.deepEqual(
			[...entries.entries()].sort(),
			files.map((f, i) => [`doc${i}.bin`, sha(f)]),
		);
		assert.equal(await viewCount(), ok);
		assert.equal(ok, 5);
	});
});

// The retried delivery is a grant event: docs/api.md "The outbox" makes submissions at most once
// (a 500 fails them for good, and one cut mid-send is failed as `interrupted`, never re-sent) and
// grant events at least once (retried on 5xx, and a lapsed claim is taken again).
describe("kill -9 while a retried grant event is in flight", () => {
	// The node's deliveries go to a receiver on loopback (ALLOW_PRIVATE_CALLBACKS).
	const s = useNode({ allowPrivateCallbacks: true });
	let receiver: Receiver;
	before(async () => {
		receiver = await startReceiver();
	});
	after(() => receiver?.close());

	test("after a restart past the lease every acknowledged event is delivered, each 2xx'd once", async () => {
		const responder = await makePerson(s.store);
		const request = await call<{ id: string; slug: string }>(s.node, s.owner, "POST", REQUESTS, {
			label: "Crash callbacks",
			items: [{ key: "name", label: "Name", type: "text", required: true }],
			callbackUrl: `${receiver.url}/hook`,
		});
		// Per delivery identity (a submission by responseId; an event by responseId and `at`, the
		// spec's identity): what the receiver answered each time it was asked.
		const answers = new Map<string, number[]>();
		const identity = (r: Received) => {
			const b = r.json();
			return b.event === undefined ? `submission ${b.responseId}` : `${b.event} ${b.responseId} ${b.at}`;
		};
		let events: "fail" | "hold" | "ok" = "fail";
		receiver.respond = (req, res) => {
			const isEvent = req.json().event !== undefined;
			const mode = isEvent ? events : "ok";
			const seen = answers.get(identity(req)) ?? [];
			answers.set(identity(req), seen);
			if (mode === "hold") return void seen.push(0); // never answered
			const status = mode === "fail" ? 500 : 200;
			seen.push(status);
			res.writeHead(status).end();
		};
		const outbox = () =>
			s.store.db
				.selectFrom("outbox")
				.selectAll()
				.where("request", "=", request.id)
				.orderBy("created")
				.orderBy("id")
				.execute();

		const answer = await fetch(`${s.node.url}/api/public/requests/${request.slug}`, {
			method: "POST",
			headers: { ...responder.headers, "content-type": "application/json" },
			body: JSON.stringify({ values: { name: "Rita" } }),
		});
		assert.equal(answer.status, 200);
		const { responseId } = (await answer.json()) as { responseId: string };
		await until(async () => (await outbox())[0]?.state === "delivered", "the submission to be delivered");

		// Acknowledged change 1: the pause. Its first attempt is answered 500, so it is retried.
		await call(s.node, responder, "PATCH", `${LINKS}/${responseId}`, { status: "paused" });
		await until(async () => {
			const row = (await outbox())[1];
			return row?.attempts === 1 && row.state === "pending";
		}, "the first attempt of the event to fail");
		const paused = (await outbox())[1];
		assert.ok(paused);
		assert.equal(paused.state, "pending");
		assert.equal(paused.last_status, 500);
		// The retry is due 30 s later; rather than wait, the test moves it forward, then holds the
		// retry open at the receiver and kills the node while it waits for the answer.
		events = "hold";
		await s.store.db.updateTable("outbox").set({ next_attempt: 0 }).where("id", "=", paused.id).execute();
		const pausedSeen = () => receiver.received.filter((r) => r.json().status === "paused").length;
		await until(() => pausedSeen() === 2, "the retry to reach the receiver");
		// Acknowledged change 2, queued behind the held pass: committed, not yet sent.
		await call(s.node, responder, "PATCH", `${LINKS}/${responseId}`, { status: "active" });
		await kill9(s.node);
		const atCrash = await outbox();
		assert.deepEqual(
			atCrash.map((r) => [r.kind, r.state, r.attempts]),
			[
				["submission", "delivered", 1],
				["grant_event", "sending", 2],
				["grant_event", "pending", 0],
			],
			"killed with the retry in flight and the next event queued",
		);

		// The restart: in-process, its clock past the dead node's 60 s lease and the retry's wait.
		events = "ok";
		const clock = new ManualClock(Date.now() + 61_000);
		const app = await buildApp(s.env.config, { clock });
		try {
			assert.deepEqual(await app.background.drainOnce(clock.now()), { delivered: 2, retrying: 0, failed: 0 });
		} finally {
			await app.close();
		}
		assert.deepEqual(
			(await outbox()).map((r) => r.state),
			["delivered", "delivered", "delivered"],
		);
		// At least once, as docs/api.md promises for grant events: the attempt in flight at the crash
		// is sent again (the receiver sees a repeat of the same responseId and `at`), but each event
		// gets exactly one 2xx, and the pause is heard before the resume. The submission is at most
		// once: it was delivered before the crash and never sent again.
		const byIdentity = [...answers.entries()].map(([id, statuses]) => [id.split(" ")[0], statuses]);
		assert.deepEqual(byIdentity, [
			["submission", [200]],
			["grant.changed", [500, 0, 200]],
			["grant.changed", [200]],
		]);
		const eventsSeen = receiver.received
			.filter((r) => r.json().event !== undefined)
			.map((r) => r.json().status);
		assert.deepEqual(eventsSeen, ["paused", "paused", "paused", "active"]);
	});
});
