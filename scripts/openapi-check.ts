// Validates the OpenAPI document as the server serves it (`GET /api/openapi.json`, generated from
// the routes by @fastify/swagger) against OpenAPI 3.1 with @readme/openapi-parser, which checks
// the document with the specification's own JSON schema and its rules beyond it (unique
// operation ids, path parameters declared, references resolving). Part of `npm run check`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";

/** The document an app on a fresh, empty SQLite folder serves. */
export async function servedDocument(): Promise<Record<string, unknown>> {
	const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-openapi-"));
	try {
		const app = await buildApp(loadConfig({ LOG_LEVEL: "silent" }, { dataDir, databaseUrl: "" }));
		try {
			const res = await app.inject({ url: "/api/openapi.json" });
			if (res.statusCode !== 200) throw new Error(`/api/openapi.json answered ${res.statusCode}`);
			return res.json();
		} finally {
			await app.close();
		}
	} finally {
		fs.rmSync(dataDir, { recursive: true, force: true });
	}
}

/** The validator's report on `doc`: empty when it is a valid OpenAPI 3.1 document. */
export async function openApiErrors(doc: Record<string, unknown>): Promise<string> {
	if (doc.openapi !== "3.1.0") return `openapi is ${String(doc.openapi)}, not 3.1.0`;
	// A copy: the validator resolves references in the object it is given.
	const result = await validate(structuredClone(doc) as never);
	return result.valid ? "" : compileErrors(result);
}

if (import.meta.url === `file://${process.argv[1]}`) {
	const doc = await servedDocument();
	const errors = await openApiErrors(doc);
	if (errors !== "") {
		process.stderr.write(`/api/openapi.json is not a valid OpenAPI 3.1 document:\n${errors}\n`);
		process.exit(1);
	}
	const paths = Object.keys(doc.paths as object).length;
	process.stdout.write(
		`/api/openapi.json: a valid OpenAPI ${String(doc.openapi)} document, ${paths} paths\n`,
	);
}
