// The filter language: every operator against real rows on the suite's database, the type checks
// that keep PostgreSQL from ever seeing a mistyped comparison, the bounds, and injection attempts
// that stay plain data.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { FILTER_LIMITS, parseFilter } from "../../src/features/collections/filter.ts";
import { AppError } from "../../src/http/errors.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";

describe("filter parser", () => {
	test("builds an AST with && binding tighter than ||", () => {
		const ast = parseFilter('a = 1 || b = "x" && c != null');
		assert.equal(ast?.kind, "or");
		if (ast?.kind !== "or") return;
		assert.equal(ast.items[0]?.kind, "cmp");
		assert.equal(ast.items[1]?.kind, "and");
	});

	test("parentheses group", () => {
		const ast = parseFilter('(a = 1 || b = 2) && c = "x"');
		assert.equal(ast?.kind, "and");
	});

	test("literals: strings with escapes, negative and decimal numbers, booleans, null", () => {
		const ast = parseFilter(`a = "q\\"uote" && b = 'it\\'s' && c = -1.5e2 && d = true && e = null`);
		assert.equal(ast?.kind, "and");
		if (ast?.kind !== "and") return;
		const values = ast.items.map((n) =>
			n.kind === "cmp" && n.right.kind === "literal" ? n.right.value : undefined,
		);
		assert.deepEqual(values, ['q"uote', "it's", -150, true, null]);
	});

	test("an empty filter narrows nothing", () => {
		assert.equal(parseFilter(""), undefined);
		assert.equal(parseFilter("   "), undefined);
		assert.equal(parseFilter(undefined), undefined);
	});

	const refused: [string, string, RegExp][] = [
		["unterminated string", 'name = "abc', /unterminated string at position 8/],
		["missing value", "name = ", /expected a field or a value but found the end/],
		["missing operator", 'name "x"', /expected an operator/],
		["unknown operator", 'name ?= "x"', /unexpected character "\?"/],
		["unbalanced parenthesis", '(name = "x"', /expected "\)"/],
		["stray parenthesis", 'name = "x")', /unexpected "\)"/],
		["bare word", "name", /expected an operator/],
		["semicolon", "name = 'x'; DROP TABLE records", /unexpected character ";"/],
		["comment", "name = 'x' -- ", /unexpected character "-"/],
		["unknown escape", 'name = "\\x"', /unknown escape/],
		["malformed number", "version = 12abc", /malformed number/],
		["dangling &&", 'name = "x" &&', /end of the filter/],
	];
	for (const [name, input, message] of refused) {
		test(`refused: ${name}`, () => {
			assert.throws(
				() => parseFilter(input),
				(err: unknown) =>
					err instanceof AppError && err.code === "filter_invalid" && message.test(err.message),
			);
		});
	}

	test(`bounds: ${FILTER_LIMITS.maxLength} characters, ${FILTER_LIMITS.maxDepth} levels, ${FILTER_LIMITS.maxComparisons} comparisons`, () => {
		const tooLong = `name = "${"x".repeat(FILTER_LIMITS.maxLength)}"`;
		assert.throws(() => parseFilter(tooLong), /longer than/);
		const deep = (n: number) => `${"(".repeat(n)}a = 1${")".repeat(n)}`;
		assert.ok(parseFilter(deep(FILTER_LIMITS.maxDepth)));
		assert.throws(() => parseFilter(deep(FILTER_LIMITS.maxDepth + 1)), /nested deeper/);
		const many = (n: number) => Array.from({ length: n }, (_, i) => `a = ${i}`).join(" || ");
		assert.ok(parseFilter(many(FILTER_LIMITS.maxComparisons)));
		assert.throws(() => parseFilter(many(FILTER_LIMITS.maxComparisons + 1)), /more than 50 comparisons/);
		// A deep hostile input is refused without exhausting the stack.
		assert.throws(() => parseFilter("(".repeat(2000)), /nested deeper/);
	});
});

describe("filter on records", () => {
	let t: TestApp;
	let a: TestAccount;
	let sectionId = "";
	const ids: Record<string, string> = {};

	const create = async (body: Record<string, unknown>) => {
		const res = await t.app.inject({
			method: "POST",
			url: "/api/collections/records/records",
			headers: a.headers,
			payload: body,
		});
		assert.equal(res.statusCode, 200, res.body);
		return (res.json() as { id: string }).id;
	};
	const keys = async (filter: string, sort = "key") => {
		const url = `/api/collections/records/records?sort=${sort}&filter=${encodeURIComponent(filter)}`;
		const res = await t.app.inject({ method: "GET", url, headers: a.headers });
		assert.equal(res.statusCode, 200, `${filter}: ${res.body}`);
		return (res.json() as { items: { key: string }[] }).items.map((i) => i.key);
	};
	const refusal = async (filter: string) => {
		const url = `/api/collections/records/records?filter=${encodeURIComponent(filter)}`;
		const res = await t.app.inject({ method: "GET", url, headers: a.headers });
		assert.equal(res.statusCode, 400, `${filter}: ${res.body}`);
		const body = res.json() as { code: string; detail: string; field: string };
		assert.equal(body.code, "filter_invalid");
		assert.equal(body.field, "querystring.filter");
		return body.detail;
	};

	before(async () => {
		t = await makeApp();
		a = await buildAccount(t.app);
		const section = await t.app.inject({
			method: "POST",
			url: "/api/collections/sections/records",
			headers: a.headers,
			payload: { key: "bank", name: "Bank" },
		});
		sectionId = (section.json() as { id: string }).id;
		ids.alpha = await create({ key: "alpha", name: "Alpha Bank", value: "DE89 3704" });
		ids.beta = await create({ key: "beta", name: "beta_card", value: "100%", hidden: true });
		ids.gamma = await create({ key: "gamma", name: "Gamma", value: "", section: sectionId });
		ids.delta = await create({ key: "delta", name: "Delta", alias: ids.alpha });
		// beta reaches version 3.
		for (const value of ["100% a", "100%"]) {
			await t.app.inject({
				method: "PATCH",
				url: `/api/collections/records/records/${ids.beta}`,
				headers: a.headers,
				payload: { value },
			});
		}
		// Another workspace's rows never match anything.
		const other = await buildAccount(t.app);
		await t.app.inject({
			method: "POST",
			url: "/api/collections/records/records",
			headers: other.headers,
			payload: { key: "alpha", name: "Alpha Bank", value: "DE89 3704" },
		});
	});
	after(() => t.close());

	const table: [string, () => string, string[]][] = [
		["= on text", () => 'key = "alpha"', ["alpha"]],
		["!= on text", () => 'key != "alpha"', ["beta", "delta", "gamma"]],
		["> on integers", () => "version > 1", ["beta"]],
		[">= on integers", () => "version >= 3", ["beta"]],
		["< on integers", () => "version < 3", ["alpha", "delta", "gamma"]],
		["<= on integers", () => "version <= 1", ["alpha", "delta", "gamma"]],
		["> on text is lexicographic", () => 'key > "c"', ["delta", "gamma"]],
		["~ contains, case-insensitively", () => 'name ~ "BANK"', ["alpha"]],
		["!~ does not contain", () => 'name !~ "a"', []],
		["!~ does not contain (some)", () => 'name !~ "bank"', ["beta", "delta", "gamma"]],
		["~ treats % as itself", () => 'value ~ "%"', ["beta"]],
		["~ treats _ as itself", () => 'name ~ "_"', ["beta"]],
		["~ with a backslash", () => 'name ~ "\\\\"', []],
		["= on booleans", () => "hidden = true", ["beta"]],
		["!= on booleans", () => "hidden != true", ["alpha", "delta", "gamma"]],
		["= null", () => "section = null", ["alpha", "beta", "delta"]],
		["!= null", () => "section != null", ["gamma"]],
		["!= a value counts nulls as different", () => `section != "${sectionId}"`, ["alpha", "beta", "delta"]],
		["an alias matches its target's value", () => 'value = "DE89 3704"', ["alpha", "delta"]],
		["alias != null", () => "alias != null", ["delta"]],
		["&& and ||", () => '(key = "alpha" || key = "beta") && hidden = false', ["alpha"]],
		["|| of &&", () => 'key = "alpha" && hidden = false || key = "beta" && hidden = true', ["alpha", "beta"]],
		["nested parentheses", () => '((key = "gamma") || (((key = "delta"))))', ["delta", "gamma"]],
		["a literal on the left is flipped", () => "3 <= version", ["beta"]],
		["dates compare with ISO strings", () => 'created >= "2000-01-01"', ["alpha", "beta", "delta", "gamma"]],
		["dates in the past", () => 'created < "2000-01-01T00:00:00Z"', []],
		["dates as milliseconds", () => "updated > 0", ["alpha", "beta", "delta", "gamma"]],
		["two fields of one type", () => "created = updated", ["alpha", "delta", "gamma"]],
		["the record type", () => 'type = "value"', ["alpha", "beta", "delta", "gamma"]],
		["empty value", () => 'value = ""', ["gamma"]],
		// Integers beyond an int4 column's range compare by value on both dialects (PostgreSQL
		// answered 500: it typed the parameter after the `integer` column).
		["> 2^31 on an int4 column", () => "version > 2147483648", []],
		["< 2^31 on an int4 column", () => "version < 2147483648", ["alpha", "beta", "delta", "gamma"]],
		["= 2^31 on an int4 column", () => "version = 2147483648", []],
		["!= 2^31 on an int4 column", () => "version != 2147483648", ["alpha", "beta", "delta", "gamma"]],
		["> -2^31-1 on an int4 column", () => "version > -2147483649", ["alpha", "beta", "delta", "gamma"]],
		["< 2^53-1 on an int4 column", () => "version < 9007199254740991", ["alpha", "beta", "delta", "gamma"]],
		["2^53-1 on the left", () => "9007199254740991 <= version", []],
	];
	for (const [name, filter, expected] of table) {
		test(`operator: ${name}`, async () => assert.deepEqual(await keys(filter()), expected));
	}

	const refusals: [string, string, RegExp][] = [
		[
			"an unknown field, listing the known ones",
			"foo = 1",
			/unknown field "foo" \(filterable: id, key, name/,
		],
		["a field not declared filterable", "workspace = 'x'", /unknown field "workspace"/],
		["a string for a boolean", 'hidden = "yes"', /boolean field "hidden" compares with true or false/],
		["a decimal for an integer", "version > 1.5", /integer field "version" compares with an integer/],
		["an unsafe integer", "version > 99999999999999999999", /integer field/],
		[
			"2^53, past the safe integers",
			"version > 9007199254740992",
			/integer field "version" compares with an integer/,
		],
		["-2^53", "version > -9007199254740992", /integer field/],
		["2^53 for a date", "created > 9007199254740992", /date field "created"/],
		["a number for text", "key = 5", /text field "key" compares with a string/],
		["~ on an integer", 'version ~ "1"', /works on text fields/],
		["> on a boolean", "hidden > false", /takes only = and !=/],
		["a bad date", 'created > "yesterday"', /ISO 8601/],
		["null with <", "section < null", /null takes only = and !=/],
		["two literals", "1 = 1", /needs a field/],
		[
			"fields of different types",
			"version = key",
			/cannot compare integer field "version" with text field "key"/,
		],
		["~ with the field on the right", '"x" ~ name', /needs the field on its left/],
	];
	for (const [name, filter, message] of refusals) {
		test(`refused with 400: ${name}`, async () => assert.match(await refusal(filter), message));
	}

	test("a parse error names the position", async () => {
		const res = await t.app.inject({
			method: "GET",
			url: `/api/collections/records/records?filter=${encodeURIComponent('key = "a" && (name = ')}`,
			headers: a.headers,
		});
		assert.equal(res.statusCode, 400);
		assert.equal((res.json() as { position: number }).position, 22);
	});

	describe("SQL injection stays data", () => {
		const attempts = [
			`key = "x\\" OR 1=1 --"`,
			`key = 'x'' OR ''1''=''1'`,
			`name ~ "%' OR '1'='1"`,
			`key = "alpha'); DROP TABLE records; --"`,
			`value = "1; DELETE FROM records"`,
		];
		for (const filter of attempts) {
			test(`harmless: ${filter}`, async () => {
				const url = `/api/collections/records/records?filter=${encodeURIComponent(filter)}`;
				const res = await t.app.inject({ method: "GET", url, headers: a.headers });
				assert.ok(res.statusCode === 200 || res.statusCode === 400, res.body);
				if (res.statusCode === 200) assert.equal((res.json() as { totalItems: number }).totalItems, 0);
			});
		}
		for (const sort of ["key;DROP TABLE records", "key desc", "(select 1)", "-key,--"]) {
			test(`harmless sort: ${sort}`, async () => {
				const url = `/api/collections/records/records?sort=${encodeURIComponent(sort)}`;
				const res = await t.app.inject({ method: "GET", url, headers: a.headers });
				assert.equal(res.statusCode, 400);
				assert.equal((res.json() as { code: string }).code, "sort_invalid");
			});
		}
		test("and the table is still there with every row", async () => {
			assert.deepEqual(await keys('key != ""'), ["alpha", "beta", "delta", "gamma"]);
			const count = await t.app.store.db
				.selectFrom("records")
				.select((eb) => eb.fn.countAll<number>().as("n"))
				.executeTakeFirstOrThrow();
			assert.equal(Number(count.n), 5);
		});
	});
});
