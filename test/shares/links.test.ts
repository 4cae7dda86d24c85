// Shares end to end through the HTTP API: the links collection, the transition table, the probe,
// the resolve's gates and its one atomic view, and the single-use download tokens.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createIdentity, type IdentityRecord, revokeIdentity } from "../../src/features/identity/service.ts";
import { assertHandOverable } from "../../src/features/shares/lifecycle.ts";
import { DOWNLOAD_TOKEN_TTL_MS } from "../../src/features/shares/tokens.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { type DeviceKey, deviceKey } from "../helpers/device-key.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import {
	assertCode,
	createLink,
	createSection,
	createValue,
	LINKS,
	nextIp,
	patchLink,
	probeLink,
	publicGet,
	RECORDS,
	resolveLink,
	uploadFile,
} from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe("shares", () => {
	let t: TestApp;
	let a: TestAccount;
	let b: TestAccount;
	const clock = new ManualClock(T0);

	before(async () => {
		t = await makeApp({ domain: "share.example" }, { clock });
		a = await buildAccount(t.app, { name: "Ann" });
		b = await buildAccount(t.app, { name: "Bob" });
	});
	after(() => t.close());

	describe("the links collection", () => {
		test("create returns the share with a fresh 256-bit slug and never the password", async () => {
			const rec = await createValue(t.app, a, { key: "iban", value: "DE00 1234" });
			const link = await createLink(t.app, a, {
				label: "For the landlord",
				records: [rec.id],
				password: "open sesame",
				maxViews: 3,
				ref: "flat-42",
			});
			assert.match(link.slug, /^[A-Za-z0-9_-]{43}$/);
			assert.equal(link.status, "active");
			assert.equal(link.viewCount, 0);
			assert.equal(link.requiresPassword, true);
			assert.deepEqual(link.records, [rec.id]);
			assert.equal(link.maxViews, 3);
			assert.equal(link.ref, "flat-42");
			assert.equal(link.handedOver, false);
			assert.ok(!JSON.stringify(link).includes("open sesame"));
			assert.ok(!("password" in link) && !("password_hash" in link));
			const other = await createLink(t.app, a, { records: [rec.id] });
			assert.notEqual(other.slug, link.slug);
		});

		test("records and sections must be the workspace's own", async () => {
			const theirs = await createValue(t.app, b, { key: "secret", value: "b's" });
			const res = await t.app.inject({
				method: "POST",
				url: LINKS,
				headers: a.headers,
				payload: { records: [theirs.id] },
			});
			assertCode(res, 400, "validation_failed");
			assert.equal(res.json().field, "body.records");
			const sec = await t.app.inject({
				method: "POST",
				url: LINKS,
				headers: a.headers,
				payload: { sections: ["nope"] },
			});
			assertCode(sec, 400, "validation_failed");
		});

		test("bad input is refused and creates nothing", async () => {
			const before = (await t.app.inject({ method: "GET", url: LINKS, headers: a.headers })).json()
				.totalItems;
			const cases: [Record<string, unknown>, number, string][] = [
				[{ maxViews: 0 }, 400, "validation_failed"],
				[{ maxViews: "3" }, 400, "validation_failed"],
				[{ expiresAt: "tomorrow" }, 400, "validation_failed"],
				[{ expiresAt: new Date(T0 - 1000).toISOString() }, 400, "validation_failed"],
				[{ stamp: "  " }, 400, "watermark_text_invalid"],
				[{ stamp: "x".repeat(121) }, 400, "watermark_text_invalid"],
				[{ stamp: "two\nlines" }, 400, "watermark_text_invalid"],
				[{ purpose: "application" }, 400, "validation_failed"],
				[{ purpose: "rental" }, 400, "validation_failed"],
				[{ slug: "mine" }, 400, "validation_failed"],
				[{ status: "paused" }, 400, "validation_failed"],
				[{ identity: "not-an-identity" }, 400, "validation_failed"],
			];
			for (const [payload, status, code] of cases) {
				const res = await t.app.inject({ method: "POST", url: LINKS, headers: a.headers, payload });
				assertCode(res, status, code);
			}
			const malformed = await t.app.inject({
				method: "POST",
				url: LINKS,
				headers: { ...a.headers, "content-type": "application/json" },
				payload: "{not json",
			});
			assertCode(malformed, 400, "invalid_json");
			const after = (await t.app.inject({ method: "GET", url: LINKS, headers: a.headers })).json().totalItems;
			assert.equal(after, before);
		});

		test("another workspace's share is invisible to list, view, update and delete", async () => {
			const link = await createLink(t.app, a, {});
			const list = await t.app.inject({ method: "GET", url: LINKS, headers: b.headers });
			assert.ok(!list.json().items.some((l: { id: string }) => l.id === link.id));
			for (const method of ["GET", "PATCH", "DELETE"] as const) {
				const res = await t.app.inject({
					method,
					url: `${LINKS}/${link.id}`,
					headers: b.headers,
					...(method === "PATCH" ? { payload: { status: "revoked" } } : {}),
				});
				assert.equal(res.statusCode, 404, `${method} ${res.body}`);
			}
			assert.equal((await probeLink(t.app, link.slug)).json().status, "active");
		});

		test("an API key sees no slug and cannot name records, but can pause and revoke", async () => {
			const rec = await createValue(t.app, a, { key: "phone", value: "+49 30 1234" });
			const link = await createLink(t.app, a, { records: [rec.id] });
			const key = buildApiKey(t.app, a, ["link:*"]);
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: key.headers });
			assert.equal(view.statusCode, 200, view.body);
			assert.equal(view.json().slug, null);
			const listed = await t.app.inject({ method: "GET", url: LINKS, headers: key.headers });
			assert.ok(listed.json().items.every((l: { slug: unknown }) => l.slug === null));
			const filtered = await t.app.inject({
				method: "GET",
				url: `${LINKS}?filter=${encodeURIComponent(`slug = "${link.slug}"`)}`,
				headers: key.headers,
			});
			assertCode(filtered, 400, "filter_invalid");
			const create = await t.app.inject({
				method: "POST",
				url: LINKS,
				headers: key.headers,
				payload: { records: [rec.id] },
			});
			assertCode(create, 403, "api_key_scope_missing");
			assert.equal(create.json().scope, "record:read");
			const pause = await patchLink(t.app, a, link.id, {});
			assert.equal(pause.statusCode, 200);
			const paused = await t.app.inject({
				method: "PATCH",
				url: `${LINKS}/${link.id}`,
				headers: key.headers,
				payload: { status: "paused" },
			});
			assert.equal(paused.statusCode, 200, paused.body);
			assert.equal(paused.json().status, "paused");
			const readOnly = buildApiKey(t.app, a, ["link:read"]);
			const refused = await t.app.inject({
				method: "PATCH",
				url: `${LINKS}/${link.id}`,
				headers: readOnly.headers,
				payload: { status: "revoked" },
			});
			assertCode(refused, 403, "api_key_scope_missing");
		});
	});

	describe("the transition table", () => {
		const steps: [string, string, number, string][] = [
			// from, to, status, result (status or error code)
			["active", "active", 200, "active"],
			["active", "paused", 200, "paused"],
			["paused", "paused", 200, "paused"],
			["paused", "active", 200, "active"],
			["active", "revoked", 200, "revoked"],
			["paused", "revoked", 200, "revoked"],
			["revoked", "revoked", 200, "revoked"],
			["revoked", "active", 409, "link_status_invalid"],
			["revoked", "paused", 409, "link_status_invalid"],
			["expired", "active", 409, "link_status_invalid"],
			["expired", "paused", 409, "link_status_invalid"],
			["expired", "revoked", 200, "revoked"],
		];

		async function linkIn(state: string) {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, { records: [rec.id], maxViews: 1 });
			if (state === "paused" || state === "revoked") {
				assert.equal((await patchLink(t.app, a, link.id, { status: state })).statusCode, 200);
			}
			if (state === "expired") assert.equal((await resolveLink(t.app, link.slug)).statusCode, 200);
			const probe = await probeLink(t.app, link.slug);
			assert.equal(probe.json().status, state);
			return link;
		}

		for (const [from, to, status, result] of steps) {
			test(`${from} -> ${to}: ${result}`, async () => {
				const link = await linkIn(from);
				const res = await patchLink(t.app, a, link.id, { status: to });
				if (status === 200) {
					assert.equal(res.statusCode, 200, res.body);
					assert.equal(res.json().status, result);
					assert.equal((await probeLink(t.app, link.slug)).json().status, result);
				} else {
					assertCode(res, status, result);
					assert.equal((await probeLink(t.app, link.slug)).json().status, from);
				}
			});
		}

		test("a refused transition changes no other member of the same PATCH", async () => {
			const link = await linkIn("revoked");
			const res = await patchLink(t.app, a, link.id, { status: "active", label: "renamed" });
			assertCode(res, 409, "link_status_invalid");
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: a.headers });
			assert.equal(view.json().label, "");
		});

		test("revoking notifies the owner once; revoking again notifies nothing more", async () => {
			const link = await createLink(t.app, a, { label: "Tax papers" });
			const notes = async () =>
				(
					await t.app.inject({
						method: "GET",
						url: `/api/collections/notifications/records?filter=${encodeURIComponent('kind = "link_revoked"')}`,
						headers: a.headers,
					})
				)
					.json()
					.items.filter((n: { data: { link: string } }) => n.data.link === link.id);
			assert.equal((await patchLink(t.app, a, link.id, { status: "revoked" })).statusCode, 200);
			assert.equal((await patchLink(t.app, a, link.id, { status: "revoked" })).statusCode, 200);
			const found = await notes();
			assert.equal(found.length, 1);
			assert.match(found[0].title, /Tax papers/);
		});

		test("paused, revoked and expired shares refuse the next read with their code", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, { records: [rec.id] });
			assert.equal((await resolveLink(t.app, link.slug)).statusCode, 200);
			await patchLink(t.app, a, link.id, { status: "paused" });
			assertCode(await resolveLink(t.app, link.slug), 404, "link_paused");
			await patchLink(t.app, a, link.id, { status: "active" });
			assert.equal((await resolveLink(t.app, link.slug)).json().viewCount, 2);
			await patchLink(t.app, a, link.id, { status: "revoked" });
			assertCode(await resolveLink(t.app, link.slug), 404, "link_revoked");
		});

		test("the expiry is reached at its instant: probe says expired, resolve refuses", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, {
				records: [rec.id],
				expiresAt: new Date(clock.now() + 60_000).toISOString(),
			});
			assert.equal((await resolveLink(t.app, link.slug)).statusCode, 200);
			clock.advance(60_000);
			assert.equal((await probeLink(t.app, link.slug)).json().status, "expired");
			assertCode(await resolveLink(t.app, link.slug), 404, "link_expired");
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: a.headers });
			assert.equal(view.json().status, "expired");
		});

		test("the view cap: the last view succeeds and turns the share expired", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, { records: [rec.id], maxViews: 2 });
			assert.equal((await resolveLink(t.app, link.slug)).json().viewCount, 1);
			assert.equal((await probeLink(t.app, link.slug)).json().status, "active");
			assert.equal((await resolveLink(t.app, link.slug)).json().viewCount, 2);
			assert.equal((await probeLink(t.app, link.slug)).json().status, "expired");
			assertCode(await resolveLink(t.app, link.slug), 404, "link_expired");
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: a.headers });
			assert.equal(view.json().viewCount, 2);
		});

		test("maxViews lowered to the views taken reaches the cap: expired for the probe, the resolve and the owner", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, { records: [rec.id], maxViews: 10 });
			for (let i = 0; i < 3; i++) assert.equal((await resolveLink(t.app, link.slug)).statusCode, 200);
			const patched = await patchLink(t.app, a, link.id, { maxViews: 3 });
			assert.equal(patched.statusCode, 200, patched.body);
			assert.equal(patched.json().status, "expired");
			assert.equal((await probeLink(t.app, link.slug)).json().status, "expired");
			assertCode(await resolveLink(t.app, link.slug), 404, "link_expired");
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: a.headers });
			assert.deepEqual([view.json().status, view.json().viewCount, view.json().maxViews], ["expired", 3, 3]);
			// Expired is final: raising the cap again does not bring it back.
			assert.equal((await patchLink(t.app, a, link.id, { maxViews: 50 })).json().status, "expired");
			assertCode(await resolveLink(t.app, link.slug), 404, "link_expired");
		});

		test("maxViews lowered below the views taken expires too; lowered above them, the share reads on to the new cap", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const below = await createLink(t.app, a, { records: [rec.id] });
			for (let i = 0; i < 2; i++) await resolveLink(t.app, below.slug);
			assert.equal((await patchLink(t.app, a, below.id, { maxViews: 1 })).json().status, "expired");
			assert.equal((await probeLink(t.app, below.slug)).json().status, "expired");

			const above = await createLink(t.app, a, { records: [rec.id], maxViews: 10 });
			await resolveLink(t.app, above.slug);
			assert.equal((await patchLink(t.app, a, above.id, { maxViews: 2 })).json().status, "active");
			assert.equal((await probeLink(t.app, above.slug)).json().status, "active");
			assert.equal((await resolveLink(t.app, above.slug)).json().viewCount, 2);
			assertCode(await resolveLink(t.app, above.slug), 404, "link_expired");
		});

		test("a paused share whose cap was lowered to its views expires when resumed", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, { records: [rec.id] });
			await resolveLink(t.app, link.slug);
			assert.equal((await patchLink(t.app, a, link.id, { status: "paused" })).statusCode, 200);
			assert.equal((await patchLink(t.app, a, link.id, { maxViews: 1 })).json().status, "paused");
			assert.equal((await probeLink(t.app, link.slug)).json().status, "paused");
			const resumed = await patchLink(t.app, a, link.id, { status: "active" });
			assert.equal(resumed.statusCode, 200, resumed.body);
			assert.equal(resumed.json().status, "expired");
			assertCode(await resolveLink(t.app, link.slug), 404, "link_expired");
		});

		test("expiresAt moved into the past is refused and changes nothing: revoke or pause ends a share now", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, { records: [rec.id] });
			for (const expiresAt of [
				new Date(clock.now() - 1).toISOString(),
				new Date(clock.now()).toISOString(),
			]) {
				assertCode(
					await patchLink(t.app, a, link.id, { expiresAt, label: "moved" }),
					400,
					"validation_failed",
				);
			}
			assert.equal((await probeLink(t.app, link.slug)).json().status, "active");
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: a.headers });
			assert.deepEqual([view.json().status, view.json().expiresAt, view.json().label], ["active", null, ""]);
			assert.equal((await resolveLink(t.app, link.slug)).statusCode, 200);
		});
	});

	describe("probe", () => {
		test("reports the gates, the sharer and the server, and consumes no view", async () => {
			const device = await deviceKey();
			const identity = await createIdentity(
				t.app.store.db,
				t.app.rootKey,
				t.app.config,
				{
					accountId: a.accountId,
					workspaceId: a.workspaceId,
					name: "Ann at work",
					publicKey: device.publicJwk,
				},
				clock.now(),
			);
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, {
				label: "Application",
				records: [rec.id],
				password: "pw",
				requireHandshake: true,
				stamp: "For ACME Rentals",
				purpose: "application",
				identity: identity.id,
			});
			for (let i = 0; i < 3; i++) {
				const res = await probeLink(t.app, link.slug);
				assert.equal(res.statusCode, 200);
				assert.equal(res.headers["cache-control"], "no-store");
				const body = res.json();
				assert.deepEqual(body, {
					slug: link.slug,
					label: "Application",
					status: "active",
					requiresPassword: true,
					requireHandshake: true,
					watermarked: true,
					purpose: "application",
					identity: identity.id,
					sharer: {
						name: body.sharer.name,
						domain: "share.example",
						identity: { id: identity.id, fingerprint: device.fingerprint, name: "Ann at work" },
					},
					server: {
						domain: "share.example",
						fingerprint: t.app.rootKey.fingerprint,
						origin: "https://share.example",
					},
				});
				assert.ok(!JSON.stringify(body).includes('"v"'));
			}
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${link.id}`, headers: a.headers });
			assert.equal(view.json().viewCount, 0);
		});

		test("an unknown slug is 404 link_not_found", async () => {
			assertCode(await probeLink(t.app, "no-such-slug"), 404, "link_not_found");
			assertCode(await resolveLink(t.app, "no-such-slug"), 404, "link_not_found");
		});

		test("probes are rate-limited per client", async () => {
			const link = await createLink(t.app, a, {});
			const ip = nextIp();
			let last = 0;
			for (let i = 0; i < t.app.limits.probe.max + 1; i++)
				last = (await probeLink(t.app, link.slug, ip)).statusCode;
			assert.equal(last, 429);
			assert.equal((await probeLink(t.app, link.slug)).statusCode, 200);
		});
	});

	describe("resolve", () => {
		test("returns current values: a change shows on the next read, aliases follow their target", async () => {
			const contact = await createSection(t.app, a, `contact-${clock.now()}`, 1);
			const bank = await createSection(t.app, a, `bank-${clock.now()}`, 2);
			const email = await createValue(t.app, a, {
				key: "email",
				value: "ann@example.org",
				section: contact.id,
			});
			clock.advance(1);
			const phone = await createValue(t.app, a, { key: "phone", value: "+1 555", section: contact.id });
			const iban = await createValue(t.app, a, {
				key: "iban",
				value: "DE00",
				section: bank.id,
				hidden: true,
			});
			const alias = await createValue(t.app, a, { key: "work-email", alias: email.id });
			const link = await createLink(t.app, a, { records: [alias.id, iban.id], sections: [contact.id] });

			const first = await resolveLink(t.app, link.slug);
			assert.equal(first.statusCode, 200, first.body);
			assert.equal(first.headers["cache-control"], "no-store");
			const body = first.json();
			assert.equal(body.viewCount, 1);
			assert.deepEqual(
				body.records.map((r: { id: string; value: string }) => [r.id, r.value]),
				[
					[alias.id, "ann@example.org"],
					[iban.id, "DE00"],
					[email.id, "ann@example.org"],
					[phone.id, "+1 555"],
				],
			);
			assert.equal(body.records[1].hidden, true);
			// The sections the link names, then each section holding a granted record.
			assert.deepEqual(
				body.sections.map((s: { id: string; records: string[] }) => [s.id, s.records]),
				[
					[contact.id, [email.id, phone.id]],
					[bank.id, [iban.id]],
				],
			);
			assert.equal(body.archiveToken, undefined);
			assert.equal(body.watermark, undefined);

			clock.advance(5);
			const upd = await t.app.inject({
				method: "PATCH",
				url: `${RECORDS}/${email.id}`,
				headers: a.headers,
				payload: { value: "ann@new.example" },
			});
			assert.equal(upd.statusCode, 200);
			const second = (await resolveLink(t.app, link.slug)).json();
			assert.equal(second.viewCount, 2);
			assert.equal(second.records[0].value, "ann@new.example");
			assert.equal(second.records[2].value, "ann@new.example");
			assert.equal(second.records[2].version, 2);

			// A record added to a named section is granted on the next read; a deleted one is gone.
			clock.advance(1);
			const fax = await createValue(t.app, a, { key: "fax", value: "none", section: contact.id });
			await t.app.inject({ method: "DELETE", url: `${RECORDS}/${phone.id}`, headers: a.headers });
			const third = (await resolveLink(t.app, link.slug)).json();
			assert.deepEqual(
				third.records.map((r: { id: string }) => r.id),
				[alias.id, iban.id, email.id, fax.id],
			);
		});

		test("password gate: required, wrong, right; a wrong password consumes no view", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, { records: [rec.id], password: "correct horse" });
			assertCode(await resolveLink(t.app, link.slug), 401, "link_password_required");
			assertCode(await resolveLink(t.app, link.slug, { password: "" }), 401, "link_password_required");
			assertCode(await resolveLink(t.app, link.slug, { password: "wrong" }), 401, "link_password_invalid");
			const ok = await resolveLink(t.app, link.slug, { password: "correct horse" });
			assert.equal(ok.statusCode, 200, ok.body);
			assert.equal(ok.json().viewCount, 1);
			// Removing the password opens it.
			await patchLink(t.app, a, link.id, { password: null });
			assert.equal((await resolveLink(t.app, link.slug)).json().viewCount, 2);
		});

		test("the password gate is rate-limited per client", async () => {
			const link = await createLink(t.app, a, { password: "pw" });
			const ip = nextIp();
			let last = 0;
			for (let i = 0; i < t.app.limits.gate.max + 1; i++) {
				last = (await resolveLink(t.app, link.slug, { password: `guess-${i}` }, ip)).statusCode;
			}
			assert.equal(last, 429);
		});

		test("malformed or mistyped bodies are 400 and consume nothing", async () => {
			const rec = await createValue(t.app, a, { key: "k", value: "v" });
			const link = await createLink(t.app, a, { records: [rec.id] });
			const bad = await t.app.inject({
				method: "POST",
				url: `/api/public/links/${link.slug}`,
				remoteAddress: nextIp(),
				headers: { "content-type": "application/json" },
				payload: "{",
			});
			assertCode(bad, 400, "invalid_json");
			assertCode(await resolveLink(t.app, link.slug, { password: 42 }), 400, "validation_failed");
			const big = await t.app.inject({
				method: "POST",
				url: `/api/public/links/${link.slug}`,
				remoteAddress: nextIp(),
				payload: { password: "x".repeat(2_000_000) },
			});
			assert.equal(big.statusCode, 413, big.body);
			assert.equal((await resolveLink(t.app, link.slug)).json().viewCount, 1);
		});

		describe("handshake gate", () => {
			let device: DeviceKey;
			let identity: IdentityRecord;
			let slug: string;

			before(async () => {
				device = await deviceKey();
				identity = await createIdentity(
					t.app.store.db,
					t.app.rootKey,
					t.app.config,
					{ accountId: b.accountId, workspaceId: b.workspaceId, name: "Bob", publicKey: device.publicJwk },
					clock.now(),
				);
				const rec = await createValue(t.app, a, { key: "k", value: "v" });
				slug = (await createLink(t.app, a, { records: [rec.id], requireHandshake: true, stamp: "For Bob" }))
					.slug;
			});

			const nonce = async (s = slug) => {
				const res = await publicGet(t.app, `/api/challenges/link/${s}`);
				assert.equal(res.statusCode, 200, res.body);
				return res.json().nonce as string;
			};

			test("no challenge: challenge_required", async () => {
				assertCode(await resolveLink(t.app, slug), 401, "challenge_required");
				assertCode(await resolveLink(t.app, slug, { identityId: identity.id }), 401, "challenge_required");
			});

			test("a bad signature: signature_invalid, and the nonce is spent", async () => {
				const n = await nonce();
				const wrong = await (await deviceKey()).sign(n);
				assertCode(
					await resolveLink(t.app, slug, {
						identityId: identity.id,
						challengeNonce: n,
						challengeSignature: wrong,
					}),
					401,
					"signature_invalid",
				);
				const right = await device.sign(n);
				assertCode(
					await resolveLink(t.app, slug, {
						identityId: identity.id,
						challengeNonce: n,
						challengeSignature: right,
					}),
					401,
					"challenge_invalid",
				);
			});

			test("a nonce for another share: challenge_invalid", async () => {
				const other = await createLink(t.app, a, {});
				const n = await nonce(other.slug);
				assertCode(
					await resolveLink(t.app, slug, {
						identityId: identity.id,
						challengeNonce: n,
						challengeSignature: await device.sign(n),
					}),
					401,
					"challenge_invalid",
				);
			});

			test("a proven identity passes, once per nonce, and is named in the watermark", async () => {
				const n = await nonce();
				const body = { identityId: identity.id, challengeNonce: n, challengeSignature: await device.sign(n) };
				const ok = await resolveLink(t.app, slug, body);
				assert.equal(ok.statusCode, 200, ok.body);
				assert.equal(
					ok.json().watermark,
					`For Bob | Bob ${device.fingerprint.slice(0, 16)} | ${new Date(clock.now()).toISOString().slice(0, 10)}`,
				);
				assertCode(await resolveLink(t.app, slug, body), 401, "challenge_invalid");
			});

			test("a revoked identity is refused", async () => {
				const dev2 = await deviceKey();
				const id2 = await createIdentity(
					t.app.store.db,
					t.app.rootKey,
					t.app.config,
					{ accountId: b.accountId, workspaceId: b.workspaceId, name: "Bob 2", publicKey: dev2.publicJwk },
					clock.now(),
				);
				const revoked = await revokeIdentity(t.app.store.db, b.workspaceId, id2.id, clock.now());
				assert.equal(revoked.status, "revoked");
				const n = await nonce();
				assertCode(
					await resolveLink(t.app, slug, {
						identityId: id2.id,
						challengeNonce: n,
						challengeSignature: await dev2.sign(n),
					}),
					403,
					"identity_revoked",
				);
			});
		});
	});

	describe("files through a share", () => {
		const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
		const text = Buffer.from("plain words\n");

		test("a downloadToken serves its file once, and only its file on its share", async () => {
			const f1 = await uploadFile(t.app, a, { key: "lease" }, { bytes: pdf, name: "lease.pdf" });
			const f2 = await uploadFile(t.app, a, { key: "notes" }, { bytes: text, name: "notes.txt" });
			const link = await createLink(t.app, a, { records: [f1.id, f2.id] });
			const other = await createLink(t.app, a, { records: [f1.id] });
			const body = (await resolveLink(t.app, link.slug)).json();
			const [r1, r2] = body.records;
			assert.equal(r1.value, null);
			assert.deepEqual(r1.file, f1.file);
			assert.match(r1.downloadToken, /^[A-Za-z0-9_-]{43}$/);
			assert.match(body.archiveToken, /^[A-Za-z0-9_-]{43}$/);

			const url = (slug: string, id: string, dl?: string) =>
				`/api/public/links/${slug}/files/${id}${dl === undefined ? "" : `?dl=${dl}`}`;
			assertCode(await publicGet(t.app, url(link.slug, f1.id)), 401, "file_download_invalid");
			// For another file: refused, and spent on that presentation.
			assertCode(
				await publicGet(t.app, url(link.slug, f2.id, r1.downloadToken)),
				401,
				"file_download_invalid",
			);
			assertCode(
				await publicGet(t.app, url(link.slug, f1.id, r1.downloadToken)),
				401,
				"file_download_invalid",
			);
			// On another share: refused.
			assertCode(
				await publicGet(t.app, url(other.slug, f2.id, r2.downloadToken)),
				401,
				"file_download_invalid",
			);

			const again = (await resolveLink(t.app, link.slug)).json();
			const ok = await publicGet(t.app, url(link.slug, f1.id, again.records[0].downloadToken));
			assert.equal(ok.statusCode, 200, ok.body);
			assert.equal(ok.headers["content-type"], "application/octet-stream");
			assert.match(String(ok.headers["content-disposition"]), /^attachment; filename="lease.pdf"/);
			assert.deepEqual(ok.rawPayload, pdf);
			assertCode(
				await publicGet(t.app, url(link.slug, f1.id, again.records[0].downloadToken)),
				401,
				"file_download_invalid",
			);
			assertCode(
				await publicGet(t.app, url("no-such-slug", f2.id, again.records[1].downloadToken)),
				404,
				"link_not_found",
			);
		});

		test("a token expires, and a paused share or an ungranted file refuses it", async () => {
			const f1 = await uploadFile(t.app, a, { key: "id-card" }, { bytes: text, name: "id.txt" });
			const f2 = await uploadFile(t.app, a, { key: "payslip" }, { bytes: text, name: "pay.txt" });
			const link = await createLink(t.app, a, { records: [f1.id, f2.id] });
			const url = (id: string, dl: string) => `/api/public/links/${link.slug}/files/${id}?dl=${dl}`;

			let body = (await resolveLink(t.app, link.slug)).json();
			clock.advance(DOWNLOAD_TOKEN_TTL_MS);
			assertCode(
				await publicGet(t.app, url(f1.id, body.records[0].downloadToken)),
				401,
				"file_download_invalid",
			);

			body = (await resolveLink(t.app, link.slug)).json();
			await patchLink(t.app, a, link.id, { status: "paused" });
			assertCode(await publicGet(t.app, url(f1.id, body.records[0].downloadToken)), 404, "link_paused");
			await patchLink(t.app, a, link.id, { status: "active" });

			body = (await resolveLink(t.app, link.slug)).json();
			await patchLink(t.app, a, link.id, { records: [f1.id] });
			assertCode(await publicGet(t.app, url(f2.id, body.records[1].downloadToken)), 404, "record_not_found");
			const ok = await publicGet(t.app, url(f1.id, body.records[0].downloadToken));
			assert.equal(ok.statusCode, 200);
		});

		test("the last view's tokens still work after the cap turned the share expired", async () => {
			const f1 = await uploadFile(t.app, a, { key: "once" }, { bytes: text, name: "once.txt" });
			const link = await createLink(t.app, a, { records: [f1.id], maxViews: 1 });
			const body = (await resolveLink(t.app, link.slug)).json();
			assert.equal((await probeLink(t.app, link.slug)).json().status, "expired");
			const ok = await publicGet(
				t.app,
				`/api/public/links/${link.slug}/files/${f1.id}?dl=${body.records[0].downloadToken}`,
			);
			assert.equal(ok.statusCode, 200, ok.body);
		});
	});

	describe("handing over to a tool", () => {
		test("a share holding a hidden record or a file is never handed to a tool", async () => {
			const plain = await createValue(t.app, a, { key: "city", value: "Berlin" });
			const hidden = await createValue(t.app, a, { key: "pin", value: "1234", hidden: true });
			const sec = await createSection(t.app, a, `sec-${clock.now()}`);
			await createValue(t.app, a, { key: "pin2", value: "9", hidden: true, section: sec.id });
			const file = await uploadFile(t.app, a, { key: "doc" }, { bytes: Buffer.from("x"), name: "x.txt" });
			const ok = await createLink(t.app, a, { records: [plain.id] });
			await assertHandOverable(t.app.store.db, ok.id);
			for (const body of [
				{ records: [hidden.id] },
				{ sections: [sec.id] },
				{ records: [plain.id, file.id] },
			]) {
				const link = await createLink(t.app, a, body);
				await assert.rejects(assertHandOverable(t.app.store.db, link.id), {
					code: "link_hand_over_not_allowed",
				});
			}
			// A handed-over share cannot be changed to hold one.
			await t.app.store.db.updateTable("links").set({ handed_over: 1 }).where("id", "=", ok.id).execute();
			assertCode(
				await patchLink(t.app, a, ok.id, { records: [plain.id, hidden.id] }),
				403,
				"link_hand_over_not_allowed",
			);
			const view = await t.app.inject({ method: "GET", url: `${LINKS}/${ok.id}`, headers: a.headers });
			assert.deepEqual(view.json().records, [plain.id]);
			assert.equal(view.json().handedOver, true);
		});
	});
});
