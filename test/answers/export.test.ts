// What the requester takes away from a request's answers (issue 39.3): the answers as CSV, each value
// read live through its grant at export time (a later change shows at the next export; a revoked
// answer has its status and no values), and an answered file opened through the answer's share like
// any shared file (a resolve, then its download token), refused once the grant no longer stands.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { parse } from "csv-parse/sync";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { assertCode, createValue, nextIp, patchLink, RECORDS, uploadFile } from "../shares/helpers.ts";

const REQUESTS = "/api/collections/requests/records";

describe("answers export and answered files", () => {
	let t: TestApp;
	let requester: TestAccount;
	let tenant: TestAccount;
	let other: TestAccount;
	let request: { id: string; slug: string };
	let tenantAnswer: string;
	let otherAnswer: string;
	let nameRecord: string;
	let lease: { id: string };
	const LEASE = Buffer.from("Lease agreement, flat 3, signed 2030-01-01.\n");

	before(async () => {
		t = await makeApp();
		requester = await buildAccount(t.app, { name: "Landlord" });
		tenant = await buildAccount(t.app, { name: "Tenant" });
		other = await buildAccount(t.app, { name: "Other" });
		const res = await t.app.inject({
			method: "POST",
			url: REQUESTS,
			headers: requester.headers,
			payload: {
				label: "Tenant application",
				items: [
					{ key: "full_name", label: "Full name", type: "text", required: true },
					{ key: "email", label: "Email", type: "email", required: false },
					{ key: "lease", label: "Lease", type: "file", required: false },
				],
			},
		});
		assert.equal(res.statusCode, 200, res.body);
		request = res.json();
		nameRecord = (await createValue(t.app, tenant, { key: "full_name", value: "Tess Tenant" })).id;
		lease = await uploadFile(
			t.app,
			tenant,
			{ key: "lease", name: "Lease" },
			{ bytes: LEASE, name: "lease.txt" },
		);
		tenantAnswer = await answer(tenant, {
			entries: { full_name: nameRecord, lease: lease.id },
			values: { email: "tess@example.org" },
			senderName: "Tess",
		});
		otherAnswer = await answer(other, { values: { full_name: '=HYPERLINK("http://evil")' } });
	});
	after(() => t.close());

	async function answer(who: TestAccount, payload: Record<string, unknown>): Promise<string> {
		const res = await t.app.inject({
			method: "POST",
			url: `/api/public/requests/${request.slug}`,
			remoteAddress: nextIp(),
			headers: who.headers,
			payload,
		});
		assert.equal(res.statusCode, 200, res.body);
		return res.json().responseId;
	}

	async function exported(headers = requester.headers) {
		const res = await t.app.inject({ method: "GET", url: `/api/requests/${request.id}/links.csv`, headers });
		assert.equal(res.statusCode, 200, res.body);
		assert.match(String(res.headers["content-type"]), /^text\/csv; charset=utf-8/);
		assert.match(
			String(res.headers["content-disposition"]),
			/attachment; filename="Tenant application answers\.csv"/,
		);
		const rows = parse(res.body, { bom: true, columns: true }) as Record<string, string>[];
		return new Map(rows.map((r) => [r.responseId, r]));
	}

	test("one row per answer, values as they read now; a formula is made inert", async () => {
		const rows = await exported();
		assert.equal(rows.size, 2);
		const tess = rows.get(tenantAnswer);
		assert.deepEqual(
			tess && {
				status: tess.status,
				name: tess.full_name,
				email: tess.email,
				lease: tess.lease,
				sender: tess.senderName,
			},
			{
				status: "active",
				name: "Tess Tenant",
				email: "tess@example.org",
				lease: "lease.txt",
				sender: "Tess",
			},
		);
		assert.equal(rows.get(otherAnswer)?.full_name, '\'=HYPERLINK("http://evil")');
	});

	test("live: the responder's change shows at the next export; a revoked answer has no values", async () => {
		const changed = await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${nameRecord}`,
			headers: tenant.headers,
			payload: { value: "Tess T. Tenant" },
		});
		assert.equal(changed.statusCode, 200, changed.body);
		await patchLink(t.app, other, otherAnswer, { status: "revoked" });
		const rows = await exported();
		assert.equal(rows.get(tenantAnswer)?.full_name, "Tess T. Tenant");
		assert.deepEqual(
			{ status: rows.get(otherAnswer)?.status, name: rows.get(otherAnswer)?.full_name },
			{ status: "revoked", name: "" },
		);
	});

	test("refusals: no credential 401, a key without request:read 403, another workspace's request 404", async () => {
		const url = `/api/requests/${request.id}/links.csv`;
		assertCode(await t.app.inject({ method: "GET", url }), 401, "not_authenticated");
		const reader = buildApiKey(t.app, requester, ["request:read"]);
		assert.equal((await t.app.inject({ method: "GET", url, headers: reader.headers })).statusCode, 200);
		const noScope = buildApiKey(t.app, requester, ["link:read"]);
		assertCode(
			await t.app.inject({ method: "GET", url, headers: noScope.headers }),
			403,
			"api_key_scope_missing",
		);
		assertCode(await t.app.inject({ method: "GET", url, headers: tenant.headers }), 404, "not_found");
	});

	test("an answered file opens through the answer's share: a resolve, then its download token", async () => {
		const listed = await t.app.inject({
			method: "GET",
			url: `/api/requests/${request.id}/links`,
			headers: requester.headers,
		});
		const item = listed.json().items.find((i: { responseId: string }) => i.responseId === tenantAnswer);
		const file = item.values.find((v: { key: string }) => v.key === "lease");
		assert.ok(item.slug, "the active answer names its share");
		const resolved = await t.app.inject({
			method: "POST",
			url: `/api/public/links/${item.slug}`,
			remoteAddress: nextIp(),
			payload: {},
		});
		assert.equal(resolved.statusCode, 200, resolved.body);
		const token = resolved.json().records.find((r: { id: string }) => r.id === file.recordId)?.downloadToken;
		assert.ok(token, "a download token for the answered file");
		const got = await t.app.inject({
			method: "GET",
			url: `/api/public/links/${item.slug}/files/${file.recordId}?dl=${token}`,
			remoteAddress: nextIp(),
		});
		assert.equal(got.statusCode, 200, got.body);
		assert.deepEqual(got.rawPayload, LEASE);
		// The view is the share's own: the responder sees the requester's read counted.
		const link = await t.app.inject({
			method: "GET",
			url: `/api/collections/links/records/${tenantAnswer}`,
			headers: tenant.headers,
		});
		assert.equal(link.json().viewCount, 1);
		// A token is spent once.
		const again = await t.app.inject({
			method: "GET",
			url: `/api/public/links/${item.slug}/files/${file.recordId}?dl=${token}`,
			remoteAddress: nextIp(),
		});
		assert.equal(again.statusCode, 401, again.body);
	});

	test("the file's grant paused or revoked: the listing names no share and the share refuses", async () => {
		const listed = await t.app.inject({
			method: "GET",
			url: `/api/requests/${request.id}/links`,
			headers: requester.headers,
		});
		const slug = listed.json().items.find((i: { responseId: string }) => i.responseId === tenantAnswer).slug;
		await patchLink(t.app, tenant, tenantAnswer, { status: "paused" });
		let after = await t.app.inject({
			method: "GET",
			url: `/api/requests/${request.id}/links`,
			headers: requester.headers,
		});
		assert.equal(
			after.json().items.find((i: { responseId: string }) => i.responseId === tenantAnswer).slug,
			"",
		);
		assertCode(
			await t.app.inject({
				method: "POST",
				url: `/api/public/links/${slug}`,
				remoteAddress: nextIp(),
				payload: {},
			}),
			404,
			"link_paused",
		);
		await patchLink(t.app, tenant, tenantAnswer, { status: "revoked" });
		after = await t.app.inject({
			method: "GET",
			url: `/api/requests/${request.id}/links`,
			headers: requester.headers,
		});
		const item = after.json().items.find((i: { responseId: string }) => i.responseId === tenantAnswer);
		assert.deepEqual({ slug: item.slug, values: item.values }, { slug: "", values: [] });
		assertCode(
			await t.app.inject({
				method: "POST",
				url: `/api/public/links/${slug}`,
				remoteAddress: nextIp(),
				payload: {},
			}),
			404,
			"link_revoked",
		);
		const rows = await exported();
		assert.deepEqual(
			{ status: rows.get(tenantAnswer)?.status, lease: rows.get(tenantAnswer)?.lease },
			{ status: "revoked", lease: "" },
		);
	});
});
