// Filters of the addressbook's `addressbook-query` (RFC 6352 §10.5), evaluated against the card's
// properties: `prop-filter` with `is-not-defined`, `text-match` and `param-filter`, `anyof` and
// `allof`, three collations. Also whether a filter depends on the values (then it takes a view).
import { AppError } from "../../http/errors.ts";
import { CARDDAV, child, type Element, is } from "./dav-xml.ts";
import type { CardProperty } from "./vcard.ts";

/** The properties of the card every card has, whatever the share holds: a filter on them reveals nothing. */
const ALWAYS = new Set(["VERSION", "PRODID", "UID", "FN"]);

/** Whether a filter tests something that depends on the values (a view), or only what every card has. */
export function filterReadsValues(filter: Element): boolean {
	return filter.children.some(
		(pf) =>
			is(pf, CARDDAV, "prop-filter") &&
			(!ALWAYS.has((pf.attrs.name ?? "").toUpperCase()) ||
				pf.children.some((c) => is(c, CARDDAV, "text-match") || is(c, CARDDAV, "param-filter"))),
	);
}

function anyOrAll(e: Element): "anyof" | "allof" {
	const test = e.attrs.test ?? "anyof";
	if (test !== "anyof" && test !== "allof") throw unsupportedFilter(`test="${test}"`);
	return test;
}

function unsupportedFilter(what: string): AppError {
	return new AppError("forbidden", `Unsupported filter: ${what}`, {
		extra: { precondition: "supported-filter" },
	});
}

function combine(test: "anyof" | "allof", results: boolean[]): boolean {
	return test === "anyof" ? results.some(Boolean) : results.every(Boolean);
}

export function matchesFilter(filter: Element | undefined, props: CardProperty[]): boolean {
	if (!filter) return true;
	const tests = filter.children.filter((c) => is(c, CARDDAV, "prop-filter"));
	if (tests.length === 0) return true;
	return combine(
		anyOrAll(filter),
		tests.map((pf) => propFilter(pf, props)),
	);
}

function propFilter(pf: Element, props: CardProperty[]): boolean {
	const name = (pf.attrs.name ?? "").toUpperCase();
	const found = props.filter((p) => p.name === name);
	if (child(pf, CARDDAV, "is-not-defined")) return found.length === 0;
	const tests = pf.children.filter((c) => is(c, CARDDAV, "text-match") || is(c, CARDDAV, "param-filter"));
	if (tests.length === 0) return found.length > 0;
	const test = anyOrAll(pf);
	return found.some((p) =>
		combine(
			test,
			tests.map((t) => (is(t, CARDDAV, "text-match") ? textMatch(t, p.text) : paramFilter(t, p))),
		),
	);
}

function paramFilter(f: Element, p: CardProperty): boolean {
	const name = (f.attrs.name ?? "").toUpperCase();
	const values = p.params
		.filter((x) => x.toUpperCase().startsWith(`${name}=`))
		.map((x) => x.slice(name.length + 1));
	if (child(f, CARDDAV, "is-not-defined")) return values.length === 0;
	const match = child(f, CARDDAV, "text-match");
	return match ? values.some((v) => textMatch(match, v)) : values.length > 0;
}

/** A Map, not an object: a collation named `constructor` or `__proto__` is only unknown. */
const COLLATIONS = new Map<string, (s: string) => string>([
	["i;unicode-casemap", (s) => s.normalize("NFKD").toLowerCase()],
	["i;ascii-casemap", (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())],
	["i;octet", (s) => s],
]);

function textMatch(m: Element, value: string): boolean {
	const fold = COLLATIONS.get(m.attrs.collation ?? "i;unicode-casemap");
	if (!fold) {
		throw new AppError("forbidden", `Unsupported collation ${m.attrs.collation}`, {
			extra: { precondition: "supported-collation" },
		});
	}
	const needle = fold(m.text);
	const hay = fold(value);
	const type = m.attrs["match-type"] ?? "contains";
	let hit: boolean;
	if (type === "equals") hit = hay === needle;
	else if (type === "contains") hit = hay.includes(needle);
	else if (type === "starts-with") hit = hay.startsWith(needle);
	else if (type === "ends-with") hit = hay.endsWith(needle);
	else throw unsupportedFilter(`match-type="${type}"`);
	return m.attrs["negate-condition"] === "yes" ? !hit : hit;
}
