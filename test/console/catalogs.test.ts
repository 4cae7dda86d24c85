// Every string in catalogs: German names every key English does (and no other), and every error
// code of docs/api.md has a sentence in both. The catalogs are read through a computed path so the
// server's type check (no DOM library) does not follow into the console's sources, and through
// tsx's `tsImport`: the suite runs compiled (scripts/test.mjs), and the console's sources are
// TypeScript that only the console's bundle compiles.
// Runs once, not per database: the console's catalogs as files, with no app or database.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import { tsImport } from "tsx/esm/api";
import { REPO_ROOT } from "../helpers/root.ts";

const ROOT = REPO_ROOT;
type Catalogs = { en: Record<string, unknown>; de: Record<string, unknown> };

async function load(file: string): Promise<Record<string, unknown>> {
	return (await tsImport(pathToFileURL(path.join(ROOT, file)).href, import.meta.url)) as Record<
		string,
		unknown
	>;
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

test("every notice kind docs/api.md lists has the console's words, and a mail_failed notice reads in both languages", async () => {
	const doc = fs.readFileSync(path.join(ROOT, "docs/api.md"), "utf8");
	const table = doc.slice(doc.indexOf("| kind | raised when |"), doc.indexOf("#### Notice settings"));
	const documented = [...table.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1] as string);
	assert.ok(documented.length >= 9, `${documented.length} kinds`);
	const { KINDS, describe } = (await load("web/console/screens/notifications/describe.ts")) as {
		KINDS: readonly string[];
		describe: (
			item: Record<string, unknown>,
			t: (key: string, vars?: Record<string, string | number>) => string,
		) => { known: boolean; heading: string; text: string | null; link: { href: string } | null };
	};
	assert.deepEqual([...KINDS].sort(), [...documented].sort());
	const { messages } = (await load("web/console/screens/notifications/messages.ts")) as {
		messages: Record<"en" | "de", Record<string, unknown>>;
	};
	const { format } = (await load("web/console/i18n/index.ts")) as {
		format: (c: unknown, lang: string, key: string, vars?: Record<string, string | number>) => string;
	};
	const notice = (data: Record<string, unknown>) => ({
		id: "n1",
		workspace: null,
		kind: "mail_failed",
		title: "Mail to ann@example.org was not delivered",
		body: "",
		data,
		read: false,
		created: "2026-11-27T12:00:00Z",
		updated: "2026-11-27T12:00:00Z",
	});
	const said = (lang: "en" | "de", data: Record<string, unknown>) =>
		describe(notice(data), (key, vars) => format(messages, lang, key, vars));
	const invitation = { mail: "invitation", recipient: "ann@example.org", attempts: 3 };
	assert.deepEqual(
		[said("en", invitation).heading, said("en", invitation).text, said("en", invitation).link?.href],
		[
			"A mail could not be delivered",
			"The invitation to ann@example.org could not be delivered after 3 attempts.",
			"/members",
		],
	);
	assert.equal(
		said("de", invitation).text,
		"Die Einladung an ann@example.org konnte nach 3 Versuchen nicht zugestellt werden.",
	);
	const once = said("de", { mail: "verify", recipient: "bo@example.org", attempts: 1 });
	assert.deepEqual(
		[once.heading, once.text, once.link],
		[
			"Eine E-Mail konnte nicht zugestellt werden",
			"Die E-Mail zur Bestätigung Ihrer Adresse an bo@example.org konnte nicht zugestellt werden.",
			null,
		],
	);
	assert.equal(said("en", { mail: "something new" }).text, "A mail to ? could not be delivered.");
});
