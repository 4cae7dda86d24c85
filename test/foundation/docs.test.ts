// Runs once, not per database: the docs as files, with no database.
import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { generated } from "../../scripts/gen-docs.ts";
import { options } from "../../src/config.ts";
import { errorCodes } from "../../src/http/errors.ts";

describe("documentation matches the code", () => {
	test("every error code appears in docs/api.md", () => {
		const api = fs.readFileSync("docs/api.md", "utf8");
		const missing = Object.keys(errorCodes).filter((code) => !api.includes(`\`${code}\``));
		assert.deepEqual(missing, []);
	});

	test("every environment variable appears in the README with its default", () => {
		const readme = fs.readFileSync("README.md", "utf8");
		for (const o of options) assert.ok(readme.includes(`| \`${o.env}\` |`), o.env);
	});

	test("the generated tables are current (npm run docs)", () => {
		for (const file of ["README.md", "docs/api.md"]) {
			assert.equal(
				fs.readFileSync(file, "utf8"),
				generated(file),
				`${file} is out of date: run npm run docs`,
			);
		}
	});
});
