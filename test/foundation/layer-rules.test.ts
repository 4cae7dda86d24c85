// Runs once, not per database: it reads import statements of planted files; no app or database.
//
// The layer rules of .dependency-cruiser.cjs, each shown refusing one planted import: a small tree in
// a temporary folder laid out like the project (src/, cli/, web/, bench/, test/), cruised with the
// project's own rules. Every rule has its plant (a new rule without one fails here), each plant is
// refused by the rule it was planted for, and the imports the rules allow are not refused. `npm run
// deps` checks the project itself with the same rules.
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { cruise, type IReporterOutput } from "dependency-cruiser";

const require = createRequire(import.meta.url);
// From the repository's root, where the suite runs (this file also runs compiled, from dist/).
const config = require(path.resolve(".dependency-cruiser.cjs")) as {
	forbidden: { name: string }[];
	options: Record<string, unknown>;
};

/** What each rule refuses: a planted file and the one import it makes. */
const PLANTS: Record<string, { file: string; imports: string }> = {
	"lib-is-a-leaf": { file: "src/lib/plant.ts", imports: "../db/schema.ts" },
	"db-stands-on-lib": { file: "src/db/plant.ts", imports: "../http/errors.ts" },
	"http-stands-on-lib-and-db": { file: "src/http/plant.ts", imports: "../features/shares/service.ts" },
	"below-features-never-reach-up": { file: "src/config.ts", imports: "./main.ts" },
	"collections-imports-no-feature": {
		file: "src/features/collections/plant.ts",
		imports: "../shares/service.ts",
	},
	"features-meet-through-services": { file: "src/features/answers/plant.ts", imports: "../shares/store.ts" },
	"features-never-reach-the-wiring": {
		file: "src/features/mail/plant.ts",
		imports: "../../worker/background.ts",
	},
	"worker-imports-no-feature": { file: "src/worker/plant.ts", imports: "../features/callbacks/service.ts" },
	"cli-reaches-features-through-the-wiring": {
		file: "cli/plant.ts",
		imports: "../src/features/accounts/service.ts",
	},
	"device-commands-are-clients": { file: "cli/device/plant.ts", imports: "../../src/app.ts" },
	"console-imports-what-is-published": { file: "web/console/plant.ts", imports: "../../src/lib/crypto.ts" },
	"bench-reaches-features-through-services": {
		file: "bench/plant.ts",
		imports: "../src/features/shares/store.ts",
	},
	"product-never-imports-tests-or-bench": {
		file: "src/lib/plant-test.ts",
		imports: "../../test/helpers/app.ts",
	},
	"no-cycles": { file: "src/lib/cycle-a.ts", imports: "./cycle-b.ts" },
};

/** Imports the rules allow, one per kind of rule: none of these may be refused. */
const ALLOWED: { file: string; imports: string }[] = [
	{ file: "src/features/answers/allowed.ts", imports: "../shares/service.ts" },
	{ file: "src/background.ts", imports: "./features/shares/store.ts" },
	{ file: "src/worker/allowed.ts", imports: "../lib/clock.ts" },
	{ file: "cli/allowed.ts", imports: "../src/admin.ts" },
	{ file: "cli/device/allowed.ts", imports: "../../src/lib/app-links.ts" },
	{ file: "web/console/allowed.ts", imports: "../../src/lib/share-status.ts" },
	{ file: "bench/allowed.ts", imports: "../src/features/shares/service.ts" },
];

/** Files the plants import, so every import resolves; the cycle's other half imports back. */
const TARGETS: Record<string, string> = {
	"src/lib/cycle-b.ts": 'import "./cycle-a.ts";\nexport const b = 1;\n',
};

let root = "";

function write(file: string, text: string, { keep = false } = {}): void {
	const full = path.join(root, file);
	fs.mkdirSync(path.dirname(full), { recursive: true });
	if (!keep || !fs.existsSync(full)) fs.writeFileSync(full, text);
}

before(() => {
	root = fs.mkdtempSync(path.join(os.tmpdir(), "svc-layers-"));
	const importers = [...Object.values(PLANTS), ...ALLOWED];
	for (const { file, imports } of importers) write(file, `import "${imports}";\nexport const x = 1;\n`);
	for (const [file, text] of Object.entries(TARGETS)) write(file, text);
	// What is imported and not planted above: a module that imports nothing.
	for (const { file, imports } of importers) {
		write(path.join(path.dirname(file), imports), "export const x = 1;\n", { keep: true });
	}
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** The violations of the planted tree under the project's rules: `file -> rule names`. */
async function violations(): Promise<Map<string, Set<string>>> {
	const result: IReporterOutput = await cruise(["src", "cli", "web", "bench", "test"], {
		baseDir: root,
		validate: true,
		ruleSet: { forbidden: config.forbidden } as never,
		tsPreCompilationDeps: true,
		doNotFollow: { path: "node_modules" },
	});
	const found = new Map<string, Set<string>>();
	if (typeof result.output === "string") throw new Error("expected a cruise result, not a report");
	for (const v of result.output.summary.violations) {
		const rules = found.get(v.from) ?? new Set<string>();
		rules.add(v.rule.name);
		found.set(v.from, rules);
	}
	return found;
}

describe("layer rules: each refuses its planted import", () => {
	test("every rule of .dependency-cruiser.cjs has a plant here, and every plant names a rule", () => {
		const rules = config.forbidden.map((r) => r.name).sort();
		assert.deepEqual(Object.keys(PLANTS).sort(), rules);
	});

	test("each plant is refused by its rule; the allowed imports are not refused", async () => {
		const found = await violations();
		for (const [rule, { file, imports }] of Object.entries(PLANTS)) {
			assert.ok(found.get(file)?.has(rule), `${file} importing ${imports} was not refused by ${rule}`);
		}
		for (const { file, imports } of ALLOWED) {
			assert.equal(found.get(file), undefined, `${file} importing ${imports} was refused`);
		}
	});
});
