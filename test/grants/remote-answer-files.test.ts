// A remote answer with a file (issue 39.3, 39.1): the responder answers from their own server
// (resp.test) with a file of their vault; the file stays there, and the requester (req.test) opens it
// through the grant like any shared file: req.test asks resp.test as itself for a one-time download
// (`POST /api/grants/files` with the grant's id and token) and hands the browser an address on
// resp.test's pinned base; the bytes come from resp.test's share route once, no view is taken, and
// resp.test's read log shows the download. A watermarked answer stamps the line naming req.test; a
// paused grant, a wrong token, a key with no file and a revoked grant are refused with their codes.
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { buildRequest, call, expectCode, REQ, RESP, useTwoServers } from "../helpers/two-servers.ts";

const two = useTwoServers({ GRANT_MAX_AGE: "0" });
const LEASE = "Lease agreement, flat 3, signed 2030-01-01.\n";

async function upload(name: string, text: string): Promise<{ id: string }> {
	const f = new FormData();
	f.append("key", "lease");
	f.append("name", "Lease");
	f.append("file", new Blob([new TextEncoder().encode(text)], { type: "text/plain" }), name);
	const res = await fetch(`${two.resp.url}/api/collections/records/records`, {
		method: "POST",
		headers: { authorization: two.resp.headers.authorization ?? "" },
		body: f,
	});
	assert.equal(res.status, 200, await res.clone().text());
	return (await res.json()) as { id: string };
}

describe("a remote answer with a file", () => {
	let request: { id: string; slug: string };
	let responseId: string;
	let grantId: string;
	let leaseId: string;
	const filesPath = () => `/api/requests/${request.id}/links/${responseId}/files/lease`;

	before(async () => {
		request = await buildRequest(two.req, {
			label: "Flat 3",
			items: [
				{ key: "full_name", label: "Full name", type: "text", required: true },
				{ key: "lease", label: "Lease", type: "file", required: true },
			],
		});
		leaseId = (await upload("lease.txt", LEASE)).id;
	});

	test("a file item is refused unless a file record of the responder's vault answers it", async () => {
		const typed = await call(two.resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: request.slug,
			values: { full_name: "Tess Tenant", lease: "lease.txt" },
		});
		expectCode(typed, 400, "validation_failed");
		assert.match(typed.body, /values\.lease/);
		const missing = await call(two.resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: request.slug,
			values: { full_name: "Tess Tenant" },
		});
		expectCode(missing, 400, "validation_failed");
		assert.match(missing.body, /values\.lease/);
	});

	test("relayed: the file stays on the responder's server; the requester lists its name and size", async () => {
		const res = await call(two.resp, "POST", "/api/requests/remote", {
			server: REQ,
			slug: request.slug,
			values: { full_name: "Tess Tenant" },
			entries: { lease: leaseId },
		});
		assert.equal(res.status, 200, res.body);
		({ responseId, grantId } = res.json());
		const row = await two.req.store.db
			.selectFrom("request_answers")
			.select(["server", "grant_keys", "data"])
			.where("id", "=", responseId)
			.executeTakeFirstOrThrow();
		assert.deepEqual(
			{ server: row.server, keys: JSON.parse(row.grant_keys ?? "[]"), data: row.data },
			{ server: RESP, keys: ["full_name", "lease"], data: "{}" },
		);
		// No file row, no bytes on the requester's server.
		const files = await two.req.store.db
			.selectFrom("records")
			.select("id")
			.where("file_key", "is not", null)
			.execute();
		assert.equal(files.length, 0);
		const listed = (await call(two.req, "GET", `/api/requests/${request.id}/links`)).json();
		const item = listed.items.find((i: { responseId: string }) => i.responseId === responseId);
		const lease = item.values.find((v: { key: string }) => v.key === "lease");
		assert.equal(item.remote, true);
		assert.deepEqual(
			{ type: lease.type, name: lease.file?.name, size: lease.file?.size },
			{ type: "file", name: "lease.txt", size: Buffer.byteLength(LEASE) },
		);
	});

	test("opened through the grant: an address on the responder's server, served once, no view taken, in its read log", async () => {
		const before = two.reqToResp.length;
		const res = await call(two.req, "POST", filesPath());
		assert.equal(res.status, 200, res.body);
		const out = res.json() as { url: string; name: string; size: number; type: string };
		assert.deepEqual(
			{ name: out.name, size: out.size },
			{ name: "lease.txt", size: Buffer.byteLength(LEASE) },
		);
		// Asked of resp.test as itself, with the grant's id and token (never the file's bytes).
		const asked = two.reqToResp.slice(before).filter((x) => x.path === "/api/grants/files");
		assert.equal(asked.length, 1);
		assert.equal(JSON.parse(asked[0]?.body ?? "{}").id, grantId);
		assert.equal(JSON.parse(asked[0]?.body ?? "{}").key, "lease");
		const url = new URL(out.url);
		assert.equal(url.hostname, "127.0.0.1", "on the responder's pinned base");
		assert.notEqual(url.origin, new URL(two.req.url).origin, "not on the requester's server");
		assert.match(url.pathname, new RegExp(`^/api/public/links/[^/]+/files/${leaseId}$`));

		const got = await fetch(out.url);
		assert.equal(got.status, 200);
		assert.equal(await got.text(), LEASE);
		const again = await fetch(out.url);
		assert.equal(again.status, 401, "the token is spent");

		// The responder's share: no view taken; the read log has the file read under view 0.
		const link = (await call(two.resp, "GET", `/api/collections/links/records/${grantId}`)).json();
		assert.equal(link.viewCount, 0);
		const reads = (
			await call(
				two.resp,
				"GET",
				`/api/collections/linkReads/records?filter=${encodeURIComponent(`link='${grantId}'`)}`,
			)
		).json();
		assert.deepEqual(
			reads.items.map((r: { kind: string; view: number; record: string }) => [r.kind, r.view, r.record]),
			[["file", 0, leaseId]],
		);
	});

	test("the responder watermarks the answer: the download is stamped naming the requester's server", async () => {
		const patched = await call(two.resp, "PATCH", `/api/collections/links/records/${grantId}`, {
			stamp: "For Flat 3 only",
		});
		assert.equal(patched.status, 200, patched.body);
		const res = await call(two.req, "POST", filesPath());
		assert.equal(res.status, 200, res.body);
		const token = new URL(res.json().url).searchParams.get("dl") ?? "";
		const { createHash } = await import("node:crypto");
		const row = await two.resp.store.db
			.selectFrom("link_tokens")
			.select(["stamp_line", "view", "record"])
			.where("token_hash", "=", createHash("sha256").update(token).digest("hex"))
			.executeTakeFirstOrThrow();
		assert.match(
			row.stamp_line ?? "",
			new RegExp(`^For Flat 3 only \\| ${REQ.replace(".", "\\.")} \\| \\d{4}-\\d{2}-\\d{2}$`),
		);
		assert.deepEqual({ view: row.view, record: row.record }, { view: 0, record: leaseId });
		// A text file cannot be stamped: refused, never served unmarked.
		const got = await fetch(res.json().url);
		assert.equal(got.status, 415);
		assert.equal(((await got.json()) as { code: string }).code, "file_not_watermarkable");
		const back = await call(two.resp, "PATCH", `/api/collections/links/records/${grantId}`, { stamp: null });
		assert.equal(back.status, 200, back.body);
	});

	test("refusals: a key with no file, an answer of another request, a wrong token, a paused and a revoked grant", async () => {
		expectCode(
			await call(two.req, "POST", `/api/requests/${request.id}/links/${responseId}/files/full_name`),
			404,
			"record_not_found",
		);
		expectCode(
			await call(two.req, "POST", `/api/requests/${request.id}/links/nope/files/lease`),
			404,
			"not_found",
		);
		const other = await buildRequest(two.req);
		expectCode(
			await call(two.req, "POST", `/api/requests/${other.id}/links/${responseId}/files/lease`),
			404,
			"not_found",
		);
		// The responder's endpoint itself: a wrong token is the same not_found as no grant.
		const wrong = await call(
			two.resp,
			"POST",
			"/api/grants/files",
			{ id: grantId, token: "x".repeat(43), key: "lease" },
			false,
		);
		expectCode(wrong, 404, "not_found");
		const none = await call(
			two.resp,
			"POST",
			"/api/grants/files",
			{ id: "nope", token: "x".repeat(43), key: "lease" },
			false,
		);
		assert.equal(none.body, wrong.body);
		expectCode(
			await call(two.resp, "POST", "/api/grants/files", { id: grantId }, false),
			400,
			"validation_failed",
		);

		const pause = await call(two.resp, "PATCH", `/api/collections/links/records/${grantId}`, {
			status: "paused",
		});
		assert.equal(pause.status, 200, pause.body);
		expectCode(await call(two.req, "POST", filesPath()), 404, "link_paused");
		const revoke = await call(two.resp, "PATCH", `/api/collections/links/records/${grantId}`, {
			status: "revoked",
		});
		assert.equal(revoke.status, 200, revoke.body);
		expectCode(await call(two.req, "POST", filesPath()), 404, "link_revoked");
	});

	test("an answer kept here: the same endpoint hands a path on this server, no view taken", async () => {
		// The requester's own account answers its request here with a file of its vault.
		const f = new FormData();
		f.append("key", "lease");
		f.append("file", new Blob([new TextEncoder().encode(LEASE)], { type: "text/plain" }), "own.txt");
		const up = await fetch(`${two.req.url}/api/collections/records/records`, {
			method: "POST",
			headers: { authorization: two.req.headers.authorization ?? "" },
			body: f,
		});
		assert.equal(up.status, 200);
		const own = (await up.json()) as { id: string };
		const answered = await call(two.req, "POST", `/api/public/requests/${request.slug}`, {
			values: { full_name: "Rita Requester" },
			entries: { lease: own.id },
		});
		assert.equal(answered.status, 200, answered.body);
		const id = answered.json().responseId;
		const res = await call(two.req, "POST", `/api/requests/${request.id}/links/${id}/files/lease`);
		assert.equal(res.status, 200, res.body);
		const url = res.json().url as string;
		assert.match(url, new RegExp(`^/api/public/links/[^/]+/files/${own.id}\\?dl=`));
		const got = await fetch(`${two.req.url}${url}`);
		assert.equal(got.status, 200);
		assert.equal(await got.text(), LEASE);
		const link = (await call(two.req, "GET", `/api/collections/links/records/${id}`)).json();
		assert.equal(link.viewCount, 0);
	});

	test("an answer kept here, paused or revoked by its responder, hands no file", async () => {
		const f = new FormData();
		f.append("key", "lease");
		f.append("file", new Blob([new TextEncoder().encode(LEASE)], { type: "text/plain" }), "kept.txt");
		const up = await fetch(`${two.req.url}/api/collections/records/records`, {
			method: "POST",
			headers: { authorization: two.req.headers.authorization ?? "" },
			body: f,
		});
		assert.equal(up.status, 200);
		const kept = (await up.json()) as { id: string };
		const answered = await call(two.req, "POST", `/api/public/requests/${request.slug}`, {
			values: { full_name: "Rita Requester" },
			entries: { lease: kept.id },
		});
		assert.equal(answered.status, 200, answered.body);
		const id = answered.json().responseId as string;
		const path = `/api/requests/${request.id}/links/${id}/files/lease`;
		assert.equal((await call(two.req, "POST", path)).status, 200);
		for (const status of ["paused", "revoked"] as const) {
			const set = await call(two.req, "PATCH", `/api/collections/links/records/${id}`, { status });
			assert.equal(set.status, 200, set.body);
			expectCode(await call(two.req, "POST", path), 404, `link_${status}`);
		}
	});
});
