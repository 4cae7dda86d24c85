// The bounds on reading another attester's status list (docs/api.md "Reading another attester's
// status list"), each at its edge: the inflated size (2 MiB, 2^24 positions) and the fetched size
// (256 KiB), the longest a list is kept (an hour, whatever its `ttl`; never past its `exp`), the
// time one fetch may take (4 s) and the cache's bounds (64 lists, 16 MiB of bits, the oldest go
// first). The bounds are written here as the docs state them, not imported from the reader: a
// constant changed there must fail here, not move the test with it.
//
// One attester of another domain on loopback (test/helpers/fake-attester.ts) serves a list per
// path; a verifier keeps one per address, so each test reads its own paths and counts the fetches
// of each. Each test has its own app (its own cache) on a ManualClock: time is moved, not waited
// for.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { buildAccount, createIdentity, type TestIdentity } from "../helpers/factories.ts";
import { type FakeAttester, startFakeAttester, zeros } from "../helpers/fake-attester.ts";
import { nextIp } from "../shares/helpers.ts";

/** docs/api.md: a list inflating past 2 MiB (2^24 = 16 777 216 positions) is refused. */
const LIST_BYTES = 2 * 1024 * 1024;
/** docs/api.md: the signed list as fetched, at most 256 KiB. */
const BODY_BYTES = 256 * 1024;
/** docs/api.md: kept for its `ttl`, an hour at most. */
const KEEP_MAX_MS = 3600 * 1000;
/** docs/api.md: at most 64 lists and 16 MiB of bits kept. */
const KEPT_LISTS = 64;
const KEPT_BYTES = 16 * 1024 * 1024;

let dns: TestDns;
let attester: FakeAttester;

before(async () => {
	dns = await startDns();
	attester = await startFakeAttester("lists.test");
	dns.txt.set(`_svc.${attester.domain}`, [attester.fingerprint]);
});
after(async () => {
	await attester?.close();
	await dns?.close();
});

interface Verifier {
	t: TestApp;
	clock: ManualClock;
	holder: TestIdentity["holder"];
}

/** An app with an empty list cache, its time frozen at a whole second, and a holder of its own. */
async function verifier(): Promise<Verifier> {
	const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
	const t = await makeApp(
		{ dnsServers: [dns.server], peerOverrides: { [attester.domain]: attester.base } },
		{ clock },
	);
	const person = await buildAccount(t.app, { name: "Ada" });
	const { holder } = await createIdentity(t.app, person);
	return { t, clock, holder };
}

async function verify(t: TestApp, presentation: string) {
	const res = await t.app.inject({
		method: "POST",
		url: "/api/attestations/verify",
		payload: { presentation },
		remoteAddress: nextIp(),
	});
	assert.equal(res.statusCode, 200, res.body);
	return res.json();
}

/** A verdict whose list was read: `status` says so (the state stays `unverified`: no key binding asked). */
function assertRead(v: { status: string; reason: string }, what: string): void {
	assert.equal(v.status, "valid", `${what}: status ${v.status}, not read; the verdict's reason: ${v.reason}`);
}

/** A verdict whose list was refused: unverified, status unknown, with this reason. */
function assertRefused(v: { state: string; status: string; reason: string }, reason: RegExp, what: string) {
	assert.equal(
		v.status,
		"unknown",
		`${what}: status ${v.status}, not refused; the verdict's reason: ${v.reason}`,
	);
	assert.equal(v.state, "unverified", `${what}: ${v.state}; the verdict's reason: ${v.reason}`);
	assert.match(v.reason, reason, `${what}: refused, but not by that bound: ${v.reason}`);
}

describe("the bounds on another attester's status list", () => {
	test("size: a list of exactly 2^24 positions is read; one byte longer is refused with the reason", async () => {
		const { t, holder } = await verifier();
		try {
			await attester.serveList(await zeros(LIST_BYTES), {}, "/lists/full");
			await attester.serveList(await zeros(LIST_BYTES + 1), {}, "/lists/over");
			// The last position of the longest list is still looked up and found clear.
			const full = await verify(t, await attester.credential(2 ** 24 - 1, holder, "/lists/full"));
			assertRead(full, `a list of ${LIST_BYTES} bytes`);
			// One byte more is past the bound, however little it takes compressed (a couple of KiB).
			const over = await verify(t, await attester.credential(100, holder, "/lists/over"));
			assertRefused(
				over,
				/^the status list inflates past 16777216 positions: not read$/,
				`a list of ${LIST_BYTES + 1} bytes`,
			);
			assert.equal(attester.fetchesOf("/lists/over"), 1);
		} finally {
			await t.close();
		}
	});

	test("size: a signed list of exactly 256 KiB is fetched; one byte more is refused before it is read", async () => {
		const { t, holder } = await verifier();
		try {
			// Not a JWT: at the cap the body is fetched whole and then fails its signature check, so
			// the reason says which check refused it.
			attester.serveRaw("x".repeat(BODY_BYTES), "/lists/body-at-cap");
			attester.serveRaw("x".repeat(BODY_BYTES + 1), "/lists/body-over");
			const at = await verify(t, await attester.credential(100, holder, "/lists/body-at-cap"));
			assertRefused(at, /^the status list does not verify or has expired$/, `a body of ${BODY_BYTES} bytes`);
			const over = await verify(t, await attester.credential(100, holder, "/lists/body-over"));
			assertRefused(
				over,
				/^the status list could not be fetched: .*: body over 262144 bytes$/,
				`a body of ${BODY_BYTES + 1} bytes`,
			);
		} finally {
			await t.close();
		}
	});

	test("kept an hour at most, whatever its ttl says: a ttl of 1e9 s is read again an hour later", async () => {
		const { t, clock, holder } = await verifier();
		try {
			const path = "/lists/long-ttl";
			const start = clock.now();
			// Valid for a month and asking to be kept for 31 years: the reader's hour is what holds.
			await attester.serveList(await zeros(16_384), { ttl: 1e9, expS: start / 1000 + 30 * 86_400 }, path);
			const credential = await attester.credential(100, holder, path);
			assertRead(await verify(t, credential), "the first read");
			assert.equal(attester.fetchesOf(path), 1);

			clock.set(start + KEEP_MAX_MS - 1);
			assertRead(await verify(t, credential), "a millisecond before the hour");
			assert.equal(attester.fetchesOf(path), 1, "within the hour the list is kept");

			clock.set(start + KEEP_MAX_MS);
			assertRead(await verify(t, credential), "at the hour");
			assert.equal(attester.fetchesOf(path), 2, "an hour after it was read, the list is read again");
		} finally {
			await t.close();
		}
	});

	test("never kept past its exp: a list with an hour's ttl expiring in ten minutes is read again then", async () => {
		const { t, clock, holder } = await verifier();
		try {
			const path = "/lists/near-exp";
			const start = clock.now();
			const expS = start / 1000 + 600;
			await attester.serveList(await zeros(16_384), { ttl: 3600, expS }, path);
			const credential = await attester.credential(100, holder, path);
			assertRead(await verify(t, credential), "the first read");

			clock.set(expS * 1000 - 1);
			assertRead(await verify(t, credential), "a millisecond before exp");
			assert.equal(attester.fetchesOf(path), 1, "before its exp the list is kept");

			// The attester has signed a new one by then; the reader asks for it at the old one's exp.
			await attester.serveList(await zeros(16_384), { ttl: 3600, expS: expS + 3600 }, path);
			clock.set(expS * 1000);
			assertRead(await verify(t, credential), "at exp");
			assert.equal(attester.fetchesOf(path), 2, "at its exp the list is read again");
		} finally {
			await t.close();
		}
	});

	test("time: an attester that does not finish its answer is given up at 4 s, with the reason, and asked again next time", async () => {
		const { t, holder } = await verifier();
		const path = "/lists/slow";
		try {
			await attester.serveList(await zeros(16_384), {}, path);
			const credential = await attester.credential(100, holder, path);
			// Half the list at once, the rest 20 s later: past the 5 s a read may take in all, so a
			// reader without its bound gets the whole list (a `valid` status, failing below) instead of
			// hanging the suite; with the bound the reader has gone by then.
			attester.holdLists(20_000);
			const started = Date.now();
			const v = await verify(t, credential);
			const took = Date.now() - started;
			assertRefused(
				v,
				/^the status list could not be fetched: .*: no complete answer within 4 s$/,
				"a list answered in 20 s",
			);
			// Never before the bound (a lower bound holds however busy the machine is).
			assert.ok(took >= 3900, `gave up after ${took} ms`);

			// A list that could not be fetched is not kept: the next verification asks again.
			attester.holdLists(0);
			assertRead(await verify(t, credential), "the list answered at once");
			assert.equal(attester.fetchesOf(path), 2);
		} finally {
			attester.holdLists(0);
			await t.close();
		}
	});

	test("cache: at most 64 lists are kept; a 65th drops the oldest, which is then read again", async () => {
		const { t, holder } = await verifier();
		try {
			const paths = Array.from({ length: KEPT_LISTS + 1 }, (_, i) => `/lists/count-${i}`);
			const credentials: string[] = [];
			for (const path of paths) {
				await attester.serveList(await zeros(16), {}, path);
				credentials.push(await attester.credential(100, holder, path));
			}
			// 65 lists of 16 bytes each, far under the byte bound: only the count can drop one.
			for (const c of credentials) assertRead(await verify(t, c), "a list read once");
			assert.deepEqual(
				paths.filter((p) => attester.fetchesOf(p) !== 1),
				[],
				"each list fetched once",
			);
			const [oldest, second] = paths as [string, string];
			// The second oldest is still kept: only as many go as the bound needs.
			assertRead(await verify(t, credentials[1] as string), "the second list again");
			assert.equal(attester.fetchesOf(second), 1, "the second oldest of 65 lists is still kept");
			assertRead(await verify(t, credentials[0] as string), "the first list again");
			assert.equal(attester.fetchesOf(oldest), 2, "the oldest of 65 lists was dropped, so read again");
		} finally {
			await t.close();
		}
	});

	test("cache: at most 16 MiB of bits are kept; a ninth list of 2 MiB drops the oldest, which is then read again", async () => {
		const { t, holder } = await verifier();
		try {
			const count = KEPT_BYTES / LIST_BYTES + 1;
			const big = await zeros(LIST_BYTES);
			const paths = Array.from({ length: count }, (_, i) => `/lists/bytes-${i}`);
			const credentials: string[] = [];
			for (const path of paths) {
				await attester.serveList(big, {}, path);
				credentials.push(await attester.credential(100, holder, path));
			}
			const [oldest, second] = paths as [string, string];
			// Eight lists of 2 MiB: exactly the bound, all kept (9 lists, far under the count bound).
			for (const c of credentials.slice(0, -1)) assertRead(await verify(t, c), "a list read once");
			assertRead(await verify(t, credentials[0] as string), "the first list again");
			assert.equal(attester.fetchesOf(oldest), 1, "16 MiB of bits are kept whole");

			// The ninth: 18 MiB, so the oldest goes, and only it.
			assertRead(await verify(t, credentials[count - 1] as string), "the ninth list");
			assertRead(await verify(t, credentials[1] as string), "the second list again");
			assert.equal(attester.fetchesOf(second), 1, "the second oldest is still kept");
			assertRead(await verify(t, credentials[0] as string), "the first list again");
			assert.equal(attester.fetchesOf(oldest), 2, "the oldest of 18 MiB of lists was dropped, so read again");
		} finally {
			await t.close();
		}
	});
});
