// The addressbook's answers (RFC 6352 CardDAV over RFC 4918 WebDAV): one collection holding one
// card, `contact.vcf`. PROPFIND names the collection and the card with their etags (no values);
// REPORT addressbook-multiget and addressbook-query answer the card itself when asked for
// `address-data`, and a query filter is evaluated against the card's properties.
import { AppError } from "../../http/errors.ts";
import { filterReadsValues, matchesFilter } from "./dav-filter.ts";
import {
	CALSERVER,
	CARDDAV,
	child,
	DAV,
	type Element,
	escapeXml,
	is,
	missing,
	response,
	tag,
} from "./dav-xml.ts";
import type { ShareModel } from "./model.ts";
import { cardProperties, renderVcard } from "./vcard.ts";

export interface Place {
	collection: string;
	card: string;
}

export interface Book {
	place: Place;
	model: ShareModel;
	/** The card's ETag, also the collection's ctag. */
	etag: string;
}

interface PropName {
	ns: string;
	name: string;
}

export type PropRequest = { kind: "allprop" } | { kind: "propname" } | { kind: "prop"; names: PropName[] };

/** What a PROPFIND asks for; no body is `allprop` (RFC 4918 §9.1). */
export function propRequest(body: Element | undefined): PropRequest {
	if (!body) return { kind: "allprop" };
	if (!is(body, DAV, "propfind")) throw new AppError("bad_request", "The body must be a DAV:propfind");
	if (child(body, DAV, "propname")) return { kind: "propname" };
	const prop = child(body, DAV, "prop");
	if (prop) return { kind: "prop", names: prop.children.map(({ ns, name }) => ({ ns, name })) };
	return { kind: "allprop" };
}

const RESOURCE_TYPE = { ns: DAV, name: "resourcetype" };
const ALL: Record<"collection" | "card", PropName[]> = {
	collection: [RESOURCE_TYPE, { ns: DAV, name: "displayname" }, { ns: CALSERVER, name: "getctag" }],
	card: [RESOURCE_TYPE, { ns: DAV, name: "getetag" }, { ns: DAV, name: "getcontenttype" }],
};
const NAMES: Record<"collection" | "card", PropName[]> = {
	collection: [
		...ALL.collection,
		{ ns: DAV, name: "current-user-principal" },
		{ ns: DAV, name: "current-user-privilege-set" },
		{ ns: DAV, name: "supported-report-set" },
		{ ns: CARDDAV, name: "addressbook-home-set" },
		{ ns: CARDDAV, name: "supported-address-data" },
	],
	card: ALL.card,
};

const href = (path: string) => `<d:href>${escapeXml(path)}</d:href>`;

/** A property's value on the collection, or undefined when it has none (404 in its propstat). */
function collectionProp(p: PropName, book: Book): string | undefined {
	const key = `${p.ns} ${p.name}`;
	switch (key) {
		case `${DAV} resourcetype`:
			return "<d:collection/><card:addressbook/>";
		case `${DAV} displayname`:
			return escapeXml(book.model.label || book.model.sharer.name || "Share");
		case `${CALSERVER} getctag`:
			return escapeXml(book.etag);
		// The share is its own principal and home: a client given this address finds the book here.
		case `${DAV} current-user-principal`:
		case `${CARDDAV} addressbook-home-set`:
			return href(book.place.collection);
		case `${DAV} current-user-privilege-set`:
			return "<d:privilege><d:read/></d:privilege>";
		case `${DAV} supported-report-set`:
			return ["addressbook-multiget", "addressbook-query"]
				.map((r) => `<d:supported-report><d:report>${tag(CARDDAV, r)}</d:report></d:supported-report>`)
				.join("");
		case `${CARDDAV} supported-address-data`:
			return '<card:address-data-type content-type="text/vcard" version="4.0"/>';
		default:
			return undefined;
	}
}

function cardProp(p: PropName, book: Book): string | undefined {
	if (p.ns === DAV && p.name === "resourcetype") return "";
	if (p.ns === DAV && p.name === "getetag") return escapeXml(book.etag);
	if (p.ns === DAV && p.name === "getcontenttype") return "text/vcard; charset=utf-8";
	return undefined;
}

/** One resource's `response` for a PROPFIND or a REPORT's `prop`, `extra` answering what is not a live property. */
function resourceResponse(
	which: "collection" | "card",
	asked: PropRequest,
	book: Book,
	extra?: (p: Element) => string | undefined,
	props?: Element[],
): string {
	const path = book.place[which];
	if (asked.kind === "propname")
		return response(path, [{ status: 200, props: NAMES[which].map((p) => tag(p.ns, p.name)) }]);
	const names = asked.kind === "allprop" ? ALL[which] : asked.names;
	const found: string[] = [];
	const absent: string[] = [];
	for (const [i, p] of names.entries()) {
		const element = props?.[i];
		const value =
			(element && extra?.(element)) ?? (which === "collection" ? collectionProp(p, book) : cardProp(p, book));
		if (value === undefined) absent.push(tag(p.ns, p.name));
		else found.push(tag(p.ns, p.name, value));
	}
	return response(path, [
		{ status: 200, props: found },
		{ status: 404, props: absent },
	]);
}

/** The PROPFIND answer: the target, and at depth 1 the collection's card too. */
export function propfind(
	target: "collection" | "card",
	depth: "0" | "1",
	asked: PropRequest,
	book: Book,
): string[] {
	const out = [resourceResponse(target, asked, book)];
	if (target === "collection" && depth === "1") out.push(resourceResponse("card", asked, book));
	return out;
}

// ---- REPORT ----------------------------------------------------------------------------------

export interface Report {
	kind: "multiget" | "query";
	/** The `prop` children asked for, in order. */
	props: Element[];
	hrefs: string[];
	filter: Element | undefined;
}

const REPORTS = new Map<string, Report["kind"]>([
	["addressbook-multiget", "multiget"],
	["addressbook-query", "query"],
]);

/** The two reports of RFC 6352 §8.6-8.7; any other is refused (403 `supported-report`). */
export function parseReport(body: Element | undefined): Report {
	if (!body) throw new AppError("bad_request", "A REPORT needs a body");
	const kind = body.ns !== CARDDAV ? undefined : REPORTS.get(body.name);
	if (kind === undefined) {
		throw new AppError("forbidden", "Only addressbook-multiget and addressbook-query are supported", {
			extra: { precondition: "supported-report" },
		});
	}
	const props = child(body, DAV, "prop")?.children ?? [];
	const hrefs = body.children.filter((c) => is(c, DAV, "href")).map((c) => c.text.trim());
	return { kind, props, hrefs, filter: child(body, CARDDAV, "filter") };
}

const addressData = (props: Element[]) => props.find((p) => is(p, CARDDAV, "address-data"));

/**
 * Whether answering the report reads the values: it returns the card (`address-data`), or its
 * filter tests something that depends on them. Such a report takes a view; one that does not is
 * answered from the ETag alone.
 */
export function readsValues(report: Report, reaches: boolean): boolean {
	if (!reaches) return false;
	if (addressData(report.props)) return true;
	return report.filter !== undefined && filterReadsValues(report.filter);
}

/** The card as `address-data` asks for it: vCard 4.0, whole or narrowed to named properties. */
function cardData(element: Element, model: ShareModel): string {
	const type = element.attrs["content-type"];
	const version = element.attrs.version;
	if (
		(type !== undefined && type.toLowerCase() !== "text/vcard") ||
		(version !== undefined && version !== "4.0")
	) {
		throw new AppError("forbidden", "The card is served as text/vcard version 4.0 only", {
			extra: { precondition: "supported-address-data" },
		});
	}
	const names = element.children
		.filter((c) => is(c, CARDDAV, "prop"))
		.map((c) => (c.attrs.name ?? "").toUpperCase());
	return escapeXml(renderVcard(model, names.length > 0 ? (n) => names.includes(n) : undefined));
}

/** The responses of a report on the collection (or on the card itself: `onCard`). */
export function report(r: Report, book: Book, depth: "0" | "1", onCard: boolean, origin: string): string[] {
	const asked: PropRequest = { kind: "prop", names: r.props.map(({ ns, name }) => ({ ns, name })) };
	const data = (p: Element) => (is(p, CARDDAV, "address-data") ? cardData(p, book.model) : undefined);
	const card = () => resourceResponse("card", asked, book, data, r.props);
	if (r.kind === "multiget") {
		return r.hrefs.map((h) => (pathOf(h, origin) === book.place.card ? card() : missing(h)));
	}
	if (!onCard && depth === "0") return [];
	return matchesFilter(r.filter, cardProperties(book.model)) ? [card()] : [];
}

/** An href's path, percent-decoded, whether sent as a path or an absolute address. */
function pathOf(h: string, origin: string): string | undefined {
	try {
		return decodeURIComponent(new URL(h, origin).pathname);
	} catch {
		return undefined;
	}
}

/** Whether the report reaches the card: a multiget naming it, a query at depth 1 or on the card. */
export function reachesCard(
	r: Report,
	place: Place,
	onCard: boolean,
	depth: "0" | "1",
	origin: string,
): boolean {
	if (r.kind === "multiget") return r.hrefs.some((h) => pathOf(h, origin) === place.card);
	return onCard || depth === "1";
}
