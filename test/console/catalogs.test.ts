// Every string in catalogs: German names every key English does (and no other), and every error
// code of docs/api.md has a sentence in both. The catalogs are read through a computed path so the
// server's type check (no DOM library) does not follow into the console's sources.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";

const ROOT = path.resolve(import.meta.dirname, "../..");
type Catalogs = { en: Record<string, unknown>; de: Record<string, unknown> };

async function load(file: string): Promise<Record<string, unknown>> {
	return (await import(pathToFileURL(path.join(ROOT, file)).href)) as Record<string, unknown>;
}

function catalogFiles(): string[] {
	const screens = path.join(ROOT, "web/console/screens");
	const found = ["web/console/i18n/messages.ts", "web/console/i18n/errors.ts", "web/console/ui/messages.ts"];
	for (const dir of fs.readdirSync(screens)) {
		const file = path.join("web/console/screens", dir, "messages.ts");
		if (fs.existsSync(path.join(ROOT, file))) found.push(file);
	}
	return found;
}

test("German and English name the same keys in every catalog", async () => {
	for (const file of catalogFiles()) {
		const module = await load(file);
		for (const [name, value] of Object.entries(module)) {
			const c = value as Catalogs;
			if (!c || typeof c !== "object" || !("en" in c) || !("de" in c)) continue;
			assert.deepEqual(Object.keys(c.de).sort(), Object.keys(c.en).sort(), `${file} ${name}`);
			for (const [key, text] of Object.entries(c.de)) assert.ok(text, `${file} ${name}.de.${key} is empty`);
		}
	}
});

test("every error code of docs/api.md has a sentence in English and German", async () => {
	const doc = fs.readFileSync(path.join(ROOT, "docs/api.md"), "utf8");
	const table = doc.slice(doc.indexOf("<!-- errors:start -->"), doc.indexOf("<!-- errors:end -->"));
	const codes = [...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1] as string);
	assert.ok(codes.length > 50, `${codes.length} codes`);
	const { errorMessages } = (await load("web/console/i18n/errors.ts")) as { errorMessages: Catalogs };
	const missing = codes.filter((c) => !(c in errorMessages.en) || !(c in errorMessages.de));
	assert.deepEqual(missing, []);
});
