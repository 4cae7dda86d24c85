// An API key with `links:write` tightens a share, never loosens it (issue 35.7): stripping the
// password, the handshake or the watermark, raising or removing the cap, moving or removing the
// expiry would let whoever holds the address read the values, so they need the owner's session.
// A key gets 403 `link_gate_session_required` naming the members, and nothing of the PATCH applies.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, LINKS, type LinkItem, nextIp } from "./helpers.ts";

const DAY = 24 * 60 * 60 * 1000;
const clock = new ManualClock(Date.parse("2026-05-01T10:00:00Z"));
let t: TestApp;
let owner: TestAccount;
let key: Record<string, string>;
let recordId: string;

const GATED = () => ({
	label: "Gated",
	records: [recordId],
	password: "open sesame",
	requireHandshake: true,
	stamp: "for the landlord",
	maxViews: 5,
	expiresAt: new Date(clock.now() + 10 * DAY).toISOString(),
});

before(async () => {
	t = await makeApp({}, { clock });
	owner = await buildAccount(t.app);
	key = buildApiKey(t.app, owner, ["link:*"]).headers;
	recordId = (await createValue(t.app, owner, { key: "iban", value: "DE02 1203 0000 0000 2020 51" })).id;
});
after(() => t.close());

const patch = (headers: Record<string, string>, id: string, payload: object) =>
	t.app.inject({ method: "PATCH", url: `${LINKS}/${id}`, headers, payload });

async function stored(id: string) {
	return t.app.store.db.selectFrom("links").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

describe("what a key may not do to a share's gates", () => {
	const LOOSENING: [string, object, string[]][] = [
		["removes the password", { password: null }, ["password"]],
		["replaces the password (the key would know it)", { password: "known to the key" }, ["password"]],
		["drops the handshake", { requireHandshake: false }, ["requireHandshake"]],
		["removes the watermark", { stamp: null }, ["stamp"]],
		["raises the cap", { maxViews: 50 }, ["maxViews"]],
		["removes the cap", { maxViews: null }, ["maxViews"]],
		["moves the expiry later", { expiresAt: "2026-06-01T10:00:00.000Z" }, ["expiresAt"]],
		["removes the expiry", { expiresAt: null }, ["expiresAt"]],
		[
			"strips everything at once, with a harmless label",
			{ label: "x", password: null, requireHandshake: false, stamp: null, maxViews: null, expiresAt: null },
			["password", "requireHandshake", "stamp", "maxViews", "expiresAt"],
		],
	];
	for (const [what, body, fields] of LOOSENING) {
		test(`a key that ${what}: 403 link_gate_session_required, nothing changes`, async () => {
			const link = await createLink(t.app, owner, GATED());
			const before = await stored(link.id);
			const res = await patch(key, link.id, body);
			assert.equal(res.statusCode, 403, res.body);
			assert.equal(res.json().code, "link_gate_session_required");
			assert.deepEqual(res.json().fields, fields);
			assert.deepEqual(await stored(link.id), before);
			// The address still asks for everything it asked for.
			const probe = await t.app.inject({
				method: "GET",
				url: `/api/public/links/${link.slug}`,
				remoteAddress: nextIp(),
			});
			assert.equal(probe.json().requiresPassword, true);
			assert.equal(probe.json().requireHandshake, true);
			assert.equal(probe.json().watermarked, true);
		});
	}

	test("a key removing the watermark of an application by its purpose is refused too", async () => {
		const link = await createLink(t.app, owner, { ...GATED(), purpose: "application" });
		const res = await patch(key, link.id, { stamp: null, purpose: "" });
		assert.equal(res.statusCode, 403, res.body);
		assert.deepEqual(res.json().fields, ["stamp"]);
	});
});

describe("what a key may do, and the owner's session may do all of it", () => {
	test("a key tightens: lower cap, earlier expiry, new stamp text, label, pause, resume, revoke", async () => {
		const link = await createLink(t.app, owner, GATED());
		for (const body of [
			{ maxViews: 3 },
			{ expiresAt: new Date(clock.now() + 2 * DAY).toISOString() },
			{ stamp: "for the agency", label: "Renamed", ref: "r-1" },
			{ requireHandshake: true },
			{ status: "paused" },
			{ status: "active" },
			{ status: "revoked" },
		]) {
			const res = await patch(key, link.id, body);
			assert.equal(res.statusCode, 200, `${JSON.stringify(body)}: ${res.body}`);
		}
		const row = await stored(link.id);
		assert.equal(row.max_views, 3);
		assert.equal(row.stamp, "for the agency");
		assert.equal(row.status, "revoked");
	});

	test("a key adds gates to an open share: password, handshake, watermark, cap, expiry", async () => {
		const link: LinkItem = await createLink(t.app, owner, { label: "Open", records: [recordId] });
		const res = await patch(key, link.id, {
			password: "set by the key",
			requireHandshake: true,
			stamp: "stamped",
			maxViews: 2,
			expiresAt: new Date(clock.now() + DAY).toISOString(),
		});
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().requiresPassword, true);
		assert.equal(res.json().watermarked, true);
	});

	test("the owner's session loosens every gate", async () => {
		const link = await createLink(t.app, owner, GATED());
		const res = await patch(owner.headers, link.id, {
			password: null,
			requireHandshake: false,
			stamp: null,
			maxViews: null,
			expiresAt: null,
		});
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().requiresPassword, false);
		assert.equal(res.json().requireHandshake, false);
		assert.equal(res.json().watermarked, false);
	});
});
