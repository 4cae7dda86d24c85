// The resolve's statements on SQLite walk what the share grants, never the whole vault: the plan
// SQLite chooses (EXPLAIN QUERY PLAN, with no statistics, as on a fresh server) reaches the records
// of a granted section through `records_section`. An inner join let SQLite walk every record of the
// workspace and probe each against the share, so a resolve grew with the vault. PostgreSQL plans
// from its own statistics; this file registers its tests on SQLite only.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { CompiledQuery, type Kysely } from "kysely";
import { publicQueries } from "../../src/features/shares/public-queries.ts";
import { dialect, makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createSection, createValue, resolveLink } from "./helpers.ts";

if (dialect === "sqlite") {
	describe("the resolve's query plans on SQLite", () => {
		let t: TestApp;
		let a: TestAccount;
		before(async () => {
			t = await makeApp();
			a = await buildAccount(t.app);
		});
		after(() => t.close());

		/** The plan of one compiled public query, run with `params`, one line per step. */
		async function planOf(
			run: (db: { executeQuery: Kysely<unknown>["executeQuery"] }) => Promise<unknown>,
		): Promise<string[]> {
			let captured: CompiledQuery | undefined;
			await run({
				// The compiled public queries hand over a CompiledQuery, never a builder.
				executeQuery: ((q: CompiledQuery) => {
					captured = q;
					return t.app.store.db.executeQuery(q);
				}) as Kysely<unknown>["executeQuery"],
			});
			assert.ok(captured);
			const plan = await t.app.store.db.executeQuery<{ detail: string }>(
				CompiledQuery.raw(`explain query plan ${captured.sql}`, [...captured.parameters]),
			);
			return plan.rows.map((r) => r.detail);
		}

		test("a granted section's records are found through records_section, not by walking the workspace", async () => {
			const section = await createSection(t.app, a, "home");
			await createValue(t.app, a, { key: "street", value: "Hauptstr. 1", section: section.id });
			await createValue(t.app, a, { key: "city", value: "Berlin", section: section.id });
			const named = await createValue(t.app, a, { key: "iban", value: "DE89 3704 0044 0532 0130 00" });
			for (let i = 0; i < 40; i++) await createValue(t.app, a, { key: `other${i}`, value: String(i) });
			const link = await createLink(t.app, a, { records: [named.id], sections: [section.id] });

			const res = await resolveLink(t.app, link.slug);
			assert.equal(res.statusCode, 200, res.body);
			const keys = (res.json() as { records: { key: string }[] }).records.map((r) => r.key).sort();
			assert.deepEqual(keys, ["city", "iban", "street"]);

			const q = publicQueries(t.app.store.db);
			const plan = await planOf((db) => q.grants(db, { link: link.id, workspace: a.workspaceId }));
			const records = plan.filter((step) => / r /.test(step));
			assert.ok(
				records.some((step) => /USING INDEX records_section \(section=\?\)/.test(step)),
				plan.join("\n"),
			);
			assert.ok(
				records.every((step) => !/SCAN|records_workspace/.test(step)),
				`no step walks the workspace's records:\n${plan.join("\n")}`,
			);
		});

		test("the grants in one statement look each section up by its key, never walking the workspace's sections or records", async () => {
			const named = await createSection(t.app, a, "named");
			const held = await createSection(t.app, a, "held");
			for (let i = 0; i < 40; i++) await createSection(t.app, a, `spare${i}`);
			await createValue(t.app, a, { key: "in-named", value: "1", section: named.id });
			const inHeld = await createValue(t.app, a, { key: "in-held", value: "2", section: held.id });
			const link = await createLink(t.app, a, { records: [inHeld.id], sections: [named.id] });

			const q = publicQueries(t.app.store.db);
			const plan = await planOf((db) => q.grants(db, { link: link.id, workspace: a.workspaceId }));
			assert.ok(
				plan.every((step) => !/SCAN|records_workspace|sections_workspace/.test(step)),
				`no step walks the workspace:\n${plan.join("\n")}`,
			);
			const sections = plan.filter((step) => / s /.test(step));
			assert.ok(sections.length >= 2, plan.join("\n"));
			assert.ok(
				sections.every((step) =>
					/USING INDEX sqlite_autoindex_sections_1|USING PRIMARY KEY|INTEGER PRIMARY KEY|\(id=\?\)/.test(
						step,
					),
				),
				plan.join("\n"),
			);
		});
	});
}
