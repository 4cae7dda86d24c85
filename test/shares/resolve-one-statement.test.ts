// The resolve of an ungated share at once (`resolveOpen`): the view, its read-log row and the
// granted records and sections in one statement on PostgreSQL (one round trip) and in one
// transaction on SQLite (synchronous on the app's handle, db/direct.ts). Checked three ways: each
// of its guards alone leaves the share to the gates (no row, nothing written); what it answers
// equals what the gates' path answers for the same share (sections, aliases, hidden records, files,
// watermark); and how many statements it runs, counted at the database handle.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sql } from "kysely";
import type { LinkTable } from "../../src/db/schema.ts";
import { serverClaim } from "../../src/features/server/claim.ts";
import { sharesContext } from "../../src/features/shares/context.ts";
import { orderGrants } from "../../src/features/shares/granted.ts";
import { findBySlug, resolve, resolveLink } from "../../src/features/shares/public.ts";
import { splitGrants } from "../../src/features/shares/public-queries/granted.ts";
import { publicQueries } from "../../src/features/shares/public-queries.ts";
import { newId } from "../../src/lib/crypto.ts";
import { dialect, makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import {
	assertCode,
	countedShares,
	createLink,
	createSection,
	createValue,
	resolveLink as post,
	uploadFile,
} from "./helpers.ts";

const NOW = Date.UTC(2026, 10, 25, 12);

describe(`the resolve in one statement (${dialect})`, () => {
	let t: TestApp;
	let a: TestAccount;
	before(async () => {
		t = await makeApp();
		a = await buildAccount(t.app);
	});
	after(() => t.close());

	const reads = async (link: string) =>
		Number(
			(
				await t.app.store.db
					.selectFrom("link_reads")
					.select((eb) => eb.fn.countAll<number>().as("n"))
					.where("link", "=", link)
					.executeTakeFirstOrThrow()
			).n,
		);

	describe("each guard alone leaves the share to the gates: no row, no view, no read", () => {
		const guards: [string, Partial<LinkTable>][] = [
			["paused", { status: "paused" }],
			["revoked", { status: "revoked" }],
			["expired status", { status: "expired" }],
			["a password", { password_hash: "scrypt$x" }],
			["a handshake", { require_handshake: 1 }],
			["the cap reached", { max_views: 2, view_count: 2 }],
			["past its expiry", { expires_at: NOW - 1 }],
			["expiring this very millisecond", { expires_at: NOW }],
		];
		for (const [name, row] of guards) {
			test(name, async () => {
				const link = await createLink(t.app, a, {});
				await t.app.store.db.updateTable("links").set(row).where("id", "=", link.id).execute();
				const q = publicQueries(t.app.store.db);
				const open = await q.resolveOpen(link.slug, { now: NOW, readId: newId() });
				assert.equal(open, undefined);
				const stored = await t.app.store.db
					.selectFrom("links")
					.select("view_count")
					.where("id", "=", link.id)
					.executeTakeFirstOrThrow();
				assert.equal(stored.view_count, row.view_count ?? 0);
				assert.equal(await reads(link.id), 0);
			});
		}
		test("an open share under its cap and before its expiry is taken", async () => {
			const link = await createLink(t.app, a, {});
			await t.app.store.db
				.updateTable("links")
				.set({ max_views: 2, view_count: 1, expires_at: NOW + 1 })
				.where("id", "=", link.id)
				.execute();
			const q = publicQueries(t.app.store.db);
			const row = await q.resolveOpen(link.slug, { now: NOW, readId: newId() });
			assert.equal(row?.view_count, 2);
			assert.equal(row?.status, "expired", "the view that reaches the cap expires the share");
			const stored = await t.app.store.db
				.selectFrom("links")
				.select(["view_count", "status"])
				.where("id", "=", link.id)
				.executeTakeFirstOrThrow();
			assert.deepEqual(stored, { view_count: 2, status: "expired" });
			assert.equal(await reads(link.id), 1);
		});
	});

	test("ten resolves at once of a share capped at three: three views, seven refusals, three reads", async () => {
		// On SQLite the ten are asked for in one event-loop round, so they share one group commit.
		const v = await createValue(t.app, a, { key: `k${newId().slice(0, 6)}`, value: "capped" });
		const link = await createLink(t.app, a, { records: [v.id], maxViews: 3 });
		const ctx = sharesContext(t.app.store.db, serverClaim(t.app.config, t.app.rootKey.fingerprint));
		const outcomes = await Promise.allSettled(
			Array.from({ length: 10 }, () => resolve(ctx, link.slug, {}, NOW)),
		);
		const views = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value.viewCount] : []));
		assert.deepEqual(
			views.sort((x, y) => x - y),
			[1, 2, 3],
		);
		for (const o of outcomes.filter((o) => o.status === "rejected"))
			assert.equal((o as PromiseRejectedResult).reason.code, "link_expired");
		assert.equal(await reads(link.id), 3);
		const stored = await findBySlug(ctx, link.slug);
		assert.deepEqual([stored.view_count, stored.status], [3, "expired"]);
	});

	test("twenty resolves at once of a share with no cap: views 1 to 20 in arrival order, a read-log row each with its own time", async () => {
		const v = await createValue(t.app, a, { key: `k${newId().slice(0, 6)}`, value: "busy" });
		const link = await createLink(t.app, a, { records: [v.id] });
		const { ctx, statements } = countedShares(t.app);
		const answers = await Promise.all(
			Array.from({ length: 20 }, (_, i) => resolve(ctx, link.slug, {}, NOW + i * 1000)),
		);
		assert.deepEqual(
			answers.map((x) => x.viewCount),
			Array.from({ length: 20 }, (_, i) => i + 1),
		);
		assert.ok(answers.every((x) => x.records[0]?.value === "busy"));
		if (dialect === "postgres")
			// The twenty of one event-loop round, in one statement.
			assert.equal(statements(), 1);
		const logged = await t.app.store.db
			.selectFrom("link_reads")
			.select(["view", "at", "kind", "reader"])
			.where("link", "=", link.id)
			.orderBy("view")
			.execute();
		assert.deepEqual(
			logged.map((r) => [Number(r.view), Number(r.at), r.kind, r.reader]),
			Array.from({ length: 20 }, (_, i) => [i + 1, NOW + i * 1000, "api", null]),
		);
		const stored = await findBySlug(ctx, link.slug);
		assert.deepEqual([stored.view_count, stored.status], [20, "active"]);
	});

	test("resolves of different shares in one round: one statement on PostgreSQL; each read its own view and read-log row; a capped share takes one view in it and leaves the rest to the gates", async () => {
		const shares: { id: string; slug: string }[] = [];
		for (let i = 0; i < 5; i++) {
			const v = await createValue(t.app, a, { key: `k${newId().slice(0, 6)}`, value: `share ${i}` });
			shares.push(await createLink(t.app, a, { records: [v.id], ...(i === 4 ? { maxViews: 2 } : {}) }));
		}
		const { ctx, statements } = countedShares(t.app);
		const slug = (i: number) => (shares[i] as { slug: string }).slug;
		// Shares 0 to 3 twice each, interleaved, in one round: one statement on PostgreSQL.
		const first = [0, 1, 2, 3, 0, 1, 2, 3];
		const views = await Promise.all(first.map((i, n) => resolve(ctx, slug(i), {}, NOW + n)));
		assert.deepEqual(
			views.map((x) => [x.viewCount, x.records[0]?.value]),
			first.map((i, n) => [n < 4 ? 1 : 2, `share ${i}`]),
		);
		if (dialect === "postgres") assert.equal(statements(), 1);
		// The capped share (two views) three times in one round beside share 0: the batch takes one
		// view of it; its other two reads meet the gates one by one, and one takes the last view.
		const second = [4, 0, 4, 4];
		const outcomes = await Promise.allSettled(second.map((i, n) => resolve(ctx, slug(i), {}, NOW + 8 + n)));
		const seen = outcomes.map((o) =>
			o.status === "fulfilled" ? o.value.viewCount : (o.reason as { code: string }).code,
		);
		assert.deepEqual(seen.slice(0, 2), [1, 3]);
		// The last two race through the gates at once (on PostgreSQL each on its own pooled
		// connection): either may take the last view; the other is refused, and nothing else.
		assert.deepEqual([...seen.slice(2)].sort(), [2, "link_expired"].sort());
		const winner = seen[2] === 2 ? 2 : 3;
		const order = [...first, ...second];
		for (const [i, link] of shares.entries()) {
			const logged = await t.app.store.db
				.selectFrom("link_reads")
				.select(["view", "at"])
				.where("link", "=", link.id)
				.orderBy("view")
				.execute();
			const at =
				i === 4
					? [NOW + 8, NOW + 8 + winner]
					: order.flatMap((o, n) => (o === i ? [NOW + n] : [])).slice(0, 3);
			assert.deepEqual(
				logged.map((r) => [Number(r.view), Number(r.at)]),
				at.map((x, v) => [v + 1, x]),
				`share ${i}`,
			);
		}
		const capped = await findBySlug(ctx, slug(4));
		assert.deepEqual([capped.view_count, capped.status], [2, "expired"]);
	});

	test("PostgreSQL: a batch runs at its latest read's time; past the share's expiry it takes nothing", async () => {
		const v = await createValue(t.app, a, { key: `k${newId().slice(0, 6)}`, value: "late" });
		const link = await createLink(t.app, a, { records: [v.id] });
		await t.app.store.db
			.updateTable("links")
			.set({ expires_at: NOW + 5000 })
			.where("id", "=", link.id)
			.execute();
		const q = publicQueries(t.app.store.db);
		// The first read runs alone; the next two arrive in one round and form one batch, which runs
		// after the later one arrived (past the expiry) and takes no view. Left to the gates (the
		// caller's next step), each read then meets the expiry at its own time. SQLite takes each
		// read at its own time in the group commit of their round.
		const first = await q.resolveOpen(link.slug, { readId: newId(), now: NOW });
		const opens = await Promise.all(
			[NOW + 1000, NOW + 9000].map((now) => q.resolveOpen(link.slug, { readId: newId(), now })),
		);
		assert.deepEqual(
			[first, ...opens].map((o) => o?.view_count),
			dialect === "postgres" ? [1, undefined, undefined] : [1, 2, undefined],
		);
		assert.equal(await reads(link.id), dialect === "postgres" ? 1 : 2);
	});

	if (dialect === "postgres")
		test("PostgreSQL: the pool's connections never JIT-compile a statement", async () => {
			// The open resolve's never-run sections branch is estimated as a scan of the workspace's
			// records; past `jit_above_cost` (a million shares) each statement was compiled first:
			// 74 ms of JIT for an 8 ms statement. Every connection of the pool has JIT off.
			const settings = await Promise.all(
				Array.from({ length: 3 }, () =>
					t.app.store.db.connection().execute(async (c) => {
						const { rows } = await sql<{ jit: string }>`show jit`.execute(c);
						return rows[0]?.jit;
					}),
				),
			);
			assert.deepEqual(settings, ["off", "off", "off"]);
		});

	if (dialect === "sqlite")
		test("SQLite: a resolve while a transaction holds the connection waits for it, then reads what it committed", async () => {
			const v = await createValue(t.app, a, { key: `k${newId().slice(0, 6)}`, value: "before" });
			const link = await createLink(t.app, a, { records: [v.id] });
			const ctx = sharesContext(t.app.store.db, serverClaim(t.app.config, t.app.rootKey.fingerprint));
			const order: string[] = [];
			let pending: ReturnType<typeof resolve> | undefined;
			await t.app.store.db.transaction().execute(async (trx) => {
				await trx.updateTable("records").set({ value: "after" }).where("id", "=", v.id).execute();
				pending = resolve(ctx, link.slug, {}, NOW).then((answer) => {
					order.push("resolved");
					return answer;
				});
				await new Promise((r) => setTimeout(r, 30));
				order.push("committing");
			});
			const answer = await pending;
			assert.deepEqual(order, ["committing", "resolved"]);
			assert.equal(answer?.records[0]?.value, "after");
			assert.equal(answer?.viewCount, 1);
			assert.equal(await reads(link.id), 1);
		});

	test("answers what the gates' path answers: sections in order, aliases, hidden records, files, watermark", async () => {
		const later = await createSection(t.app, a, `later${newId().slice(0, 4)}`, 2);
		const first = await createSection(t.app, a, `first${newId().slice(0, 4)}`, 1);
		const named = await createValue(t.app, a, { key: "email", value: "ann@example.org" });
		const target = await createValue(t.app, a, { key: "phone", value: "+49 30 1" });
		const alias = await createValue(t.app, a, { key: "phone2", alias: target.id });
		await createValue(t.app, a, { key: "street", value: "Main St 1", section: later.id });
		await createValue(t.app, a, { key: "secret", value: "s", section: first.id, hidden: true });
		await uploadFile(
			t.app,
			a,
			{ key: "cv", section: later.id },
			{ bytes: Buffer.from("%PDF-1.4\n"), name: "cv.pdf" },
		);
		const link = await createLink(t.app, a, {
			records: [alias.id, named.id],
			sections: [later.id, first.id],
			stamp: "For Bob only",
		});

		const { ctx, statements } = countedShares(t.app);
		const fast = await resolve(ctx, link.slug, {}, NOW);
		const fastStatements = statements();
		const row = await findBySlug(ctx, link.slug);
		const gated = await resolveLink(ctx, row, {}, NOW, "resolve");

		// Tokens and the view differ by nature; everything else is the same answer.
		const comparable = (r: typeof fast) => ({
			...r,
			viewCount: 0,
			archiveToken: typeof r.archiveToken,
			watermark: r.watermark?.replace(/view \d+/, "view N"),
			records: r.records.map((x) => ({ ...x, downloadToken: typeof x.downloadToken })),
		});
		assert.deepEqual(comparable(fast), comparable(gated));
		assert.equal(fast.viewCount, 1);
		assert.equal(gated.viewCount, 2);
		assert.match(fast.watermark ?? "", /^For Bob only \| view 1 \| 2026-11-25$/);
		assert.deepEqual(
			fast.records.map((r) => r.key),
			["phone2", "email", "street", "cv", "secret"],
		);
		assert.equal(fast.records[0]?.value, "+49 30 1", "an alias reads its target's value");
		assert.deepEqual(
			fast.sections.map((s) => s.id),
			[later.id, first.id],
		);
		assert.equal(typeof fast.archiveToken, "string");
		// PostgreSQL: one statement for the view, the read and the grants. SQLite, on a handle with a
		// plugin (so through Kysely, in one transaction): the view by slug (no read of the row first),
		// its read, the records and the sections. Then one token per file and the archive's.
		const files = fast.records.filter((r) => r.type === "file").length;
		assert.equal(files, 1);
		assert.equal(fastStatements, dialect === "postgres" ? 1 + files + 1 : 3 + files + 1);
		assert.equal(await reads(link.id), 2);
	});

	test("the grants in one statement: named and held sections, an empty named section, a record named and in a named section, an alias", async () => {
		const tag = newId().slice(0, 4);
		const named = await createSection(t.app, a, `named${tag}`, 3);
		const empty = await createSection(t.app, a, `empty${tag}`, 1);
		const held = await createSection(t.app, a, `held${tag}`, 2);
		await createSection(t.app, a, `other${tag}`, 0);
		const inNamed = await createValue(t.app, a, { key: "a", value: "1", section: named.id });
		const alsoInNamed = await createValue(t.app, a, { key: "b", value: "2", section: named.id });
		const inHeld = await createValue(t.app, a, { key: "c", value: "3", section: held.id });
		const target = await createValue(t.app, a, { key: "t", value: "target" });
		const alias = await createValue(t.app, a, { key: "d", alias: target.id });
		await createValue(t.app, a, { key: "e", value: "not granted" });
		const link = await createLink(t.app, a, {
			records: [inHeld.id, inNamed.id, alias.id],
			sections: [named.id, empty.id],
		});
		const q = publicQueries(t.app.store.db);
		const rows = await q.grants(t.app.store.db, { link: link.id, workspace: a.workspaceId });
		const { records, sections } = splitGrants(rows);
		// Every row as [record, via, section, position]; a record named and in a named section twice.
		const seen = records
			.map((r) => [r.id, r.via, r.section, Number(r.pos), r.target_value] as const)
			.sort((x, y) => x[1] - y[1] || x[3] - y[3] || (x[0] < y[0] ? -1 : 1));
		assert.deepEqual(seen, [
			[inHeld.id, 0, held.id, 0, null],
			[inNamed.id, 0, named.id, 1, null],
			[alias.id, 0, null, 2, "target"],
			...[[inNamed.id, 1, named.id, 0, null] as const, [alsoInNamed.id, 1, named.id, 0, null] as const].sort(
				(x, y) => (x[0] < y[0] ? -1 : 1),
			),
		]);
		const ordered = orderGrants(records, sections);
		// Named first in the link's order (named, empty), then the held one; never the fourth.
		assert.deepEqual(
			ordered.sections.map((s) => [s.id, s.key, s.named_pos === null ? null : Number(s.named_pos)]),
			[
				[named.id, `named${tag}`, 0],
				[empty.id, `empty${tag}`, 1],
				[held.id, `held${tag}`, null],
			],
		);
		assert.deepEqual(
			ordered.records.map((r) => r.key),
			["c", "a", "d", "b"],
		);
	});

	test("through HTTP: the cap's last view expires the share once, then the gates refuse it", async () => {
		const v = await createValue(t.app, a, { key: `k${newId().slice(0, 6)}`, value: "v" });
		const link = await createLink(t.app, a, { records: [v.id], maxViews: 2 });
		assert.equal((await post(t.app, link.slug)).json().viewCount, 1);
		assert.equal((await post(t.app, link.slug)).json().viewCount, 2);
		assertCode(await post(t.app, link.slug), 404, "link_expired");
		const owner = await t.app.inject({
			method: "GET",
			url: `/api/collections/links/records/${link.id}`,
			headers: a.headers,
		});
		assert.equal(owner.json().status, "expired");
		assert.equal(owner.json().viewCount, 2);
		assert.equal(await reads(link.id), 2);
	});

	test("through HTTP: gated and refused shares still get the gates' codes", async () => {
		const locked = await createLink(t.app, a, { password: "correct horse" });
		assertCode(await post(t.app, locked.slug), 401, "link_password_required");
		assertCode(await post(t.app, locked.slug, { password: "wrong" }), 401, "link_password_invalid");
		assert.equal((await post(t.app, locked.slug, { password: "correct horse" })).statusCode, 200);
		const paused = await createLink(t.app, a, {});
		await t.app.store.db.updateTable("links").set({ status: "paused" }).where("id", "=", paused.id).execute();
		assertCode(await post(t.app, paused.slug), 404, "link_paused");
		assertCode(await post(t.app, "no-such-slug-at-all"), 404, "link_not_found");
	});
});
