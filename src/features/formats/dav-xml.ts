// XML of the addressbook (RFC 4918 WebDAV, RFC 6352 CardDAV): request bodies parsed with
// fast-xml-parser into elements with resolved namespaces, and the multistatus answers written
// with every text escaped. No DTD is accepted, so no entity can be declared or expanded; only
// XML's predefined entities and character references are read, at most MAX_REFERENCES of them, in
// elements nested at most MAX_DEPTH deep. Any name is read as a name: `__proto__` or
// `constructor` is an element like another, never a key of a plain object.
import { AppError } from "../../http/errors.ts";
import { lazy } from "../../lib/lazy.ts";

export const DAV = "DAV:";
export const CARDDAV = "urn:ietf:params:xml:ns:carddav";
export const CALSERVER = "http://calendarserver.org/ns/";

export interface Element {
	ns: string;
	name: string;
	attrs: Record<string, string>;
	children: Element[];
	text: string;
}

/** Deeper nesting is refused (400); no request of the addressbook nests more than a few levels. */
export const MAX_DEPTH = 100;
/** More entity and character references than this are refused (400) before parsing. */
export const MAX_REFERENCES = 1000;

/**
 * Names fast-xml-parser refuses (it throws) or renames, being keys of Object.prototype: they are
 * read under a `#` prefix, which no XML name has, and given back as they were in `element()`.
 */
const GUARDED = new Set([
	"__proto__",
	"constructor",
	"prototype",
	"hasOwnProperty",
	"toString",
	"valueOf",
	"__defineGetter__",
	"__defineSetter__",
	"__lookupGetter__",
	"__lookupSetter__",
]);
const GUARD = "#";
/** Idempotent: the parser may pass a name it has transformed once through again. */
const guardName = (name: string) => {
	const colon = name.indexOf(":");
	return !name.startsWith(GUARD) && GUARDED.has(name.slice(colon + 1)) ? `${GUARD}${name}` : name;
};
const unguardName = (name: string) => (name.startsWith(GUARD) ? name.slice(GUARD.length) : name);

/** fast-xml-parser, loaded with the first addressbook request that has a body. */
const xmlLibrary = lazy(async () => {
	const { XMLParser, XMLValidator } = await import("fast-xml-parser");
	const parser = new XMLParser({
		preserveOrder: true,
		ignoreAttributes: false,
		attributeNamePrefix: "",
		parseTagValue: false,
		parseAttributeValue: false,
		trimValues: false,
		ignoreDeclaration: true,
		ignorePiTags: true,
		// Character references (`&#65;`) besides the predefined entities; nothing can define more.
		htmlEntities: true,
		processEntities: { enabled: true, maxTotalExpansions: MAX_REFERENCES, maxExpandedLength: 65_536 },
		// The parser refuses only past one more level than it is given.
		maxNestedTags: MAX_DEPTH - 1,
		transformTagName: guardName,
		transformAttributeName: guardName,
	});
	return { parser, XMLValidator };
});

type Raw = Record<string, unknown>;

/** Refuses markup declarations: `<!DOCTYPE`, `<!ENTITY` and the like; comments and CDATA pass. */
function refuseDeclarations(xml: string): void {
	for (let i = xml.indexOf("<!"); i >= 0; i = xml.indexOf("<!", i + 2)) {
		if (!xml.startsWith("<!--", i) && !xml.startsWith("<![CDATA[", i)) {
			throw new AppError("bad_request", "A document type declaration is not accepted");
		}
	}
}

/** Refuses more than MAX_REFERENCES references: in well-formed XML each `&` begins one. */
function refuseManyReferences(xml: string): void {
	let count = 0;
	for (let i = xml.indexOf("&"); i >= 0; i = xml.indexOf("&", i + 1)) {
		if (++count > MAX_REFERENCES) {
			throw new AppError("bad_request", `More than ${MAX_REFERENCES} entity or character references`);
		}
	}
}

/** The root element of a request body, namespaces resolved. */
export async function parseXml(xml: string): Promise<Element> {
	refuseDeclarations(xml);
	refuseManyReferences(xml);
	const { parser, XMLValidator } = await xmlLibrary();
	if (XMLValidator.validate(xml) !== true)
		throw new AppError("bad_request", "The body is not well-formed XML");
	let nodes: Raw[];
	try {
		nodes = parser.parse(xml) as Raw[];
	} catch (err) {
		// The parser's own limits (nesting, expansions) and refusals: input errors, never a 500.
		const deep = err instanceof Error && /nested/i.test(err.message);
		throw new AppError(
			"bad_request",
			deep ? `Elements are nested deeper than ${MAX_DEPTH}` : "The body cannot be read as XML",
		);
	}
	const root = nodes
		.map((n) => element(n, new Map([["xml", "http://www.w3.org/XML/1998/namespace"]])))
		.find(Boolean);
	if (!root) throw new AppError("bad_request", "The body holds no element");
	return root;
}

function element(node: Raw, scope: ReadonlyMap<string, string>): Element | undefined {
	const tag = Object.keys(node).find((k) => k !== ":@" && k !== "#text");
	if (tag === undefined) return undefined;
	const rawAttrs = (node[":@"] ?? {}) as Record<string, string>;
	const inner = new Map(scope);
	// No prototype: an attribute named `__proto__` or `constructor` is only an attribute.
	const attrs: Record<string, string> = Object.create(null);
	for (const [guarded, value] of Object.entries(rawAttrs)) {
		const name = unguardName(guarded);
		if (name === "xmlns") inner.set("", value);
		else if (name.startsWith("xmlns:")) inner.set(name.slice(6), value);
		else attrs[name] = String(value);
	}
	const qname = unguardName(tag);
	const colon = qname.indexOf(":");
	const prefix = colon < 0 ? "" : qname.slice(0, colon);
	const children: Element[] = [];
	let text = "";
	for (const child of (node[tag] ?? []) as Raw[]) {
		if ("#text" in child) text += String(child["#text"]);
		else {
			const e = element(child, inner);
			if (e) children.push(e);
		}
	}
	return { ns: inner.get(prefix) ?? "", name: qname.slice(colon + 1), attrs, children, text };
}

export function is(e: Element, ns: string, name: string): boolean {
	return e.ns === ns && e.name === name;
}

export function child(e: Element, ns: string, name: string): Element | undefined {
	return e.children.find((c) => is(c, ns, name));
}

// ---- writing ---------------------------------------------------------------------------------

/**
 * Text for an element or a quoted attribute. A CR is written `&#13;`: a raw one is read back as
 * LF by every XML parser (XML 1.0 §2.11), and a card's lines end in CRLF (RFC 6350 §3.2).
 */
export function escapeXml(text: string): string {
	return text
		.replaceAll("&", "&amp;")
		.replaceAll("<", "&lt;")
		.replaceAll(">", "&gt;")
		.replaceAll('"', "&quot;")
		.replaceAll("\r", "&#13;");
}

const PREFIXES = new Map([
	[DAV, "d"],
	[CARDDAV, "card"],
	[CALSERVER, "cs"],
]);

/** An element in our own prefixes, or with its own namespace declaration for one we do not know. */
export function tag(ns: string, name: string, inner: string | undefined = undefined): string {
	const prefix = PREFIXES.get(ns);
	const own = ns === "" ? `${name} xmlns=""` : `x:${name} xmlns:x="${escapeXml(ns)}"`;
	const open = prefix ? `${prefix}:${name}` : own;
	const close = prefix ? `${prefix}:${name}` : ns === "" ? name : `x:${name}`;
	return inner === undefined || inner === "" ? `<${open}/>` : `<${open}>${inner}</${close}>`;
}

const REASONS: Record<number, string> = { 200: "OK", 404: "Not Found", 403: "Forbidden" };

function statusLine(status: number): string {
	return `HTTP/1.1 ${status} ${REASONS[status] ?? ""}`.trim();
}

/** One `response` of a multistatus: the href and its properties grouped by status. */
export function response(href: string, propstats: { status: number; props: string[] }[]): string {
	const stats = propstats
		.filter((p) => p.props.length > 0)
		.map(
			(p) =>
				`<d:propstat><d:prop>${p.props.join("")}</d:prop><d:status>${statusLine(p.status)}</d:status></d:propstat>`,
		)
		.join("");
	return `<d:response><d:href>${escapeXml(href)}</d:href>${stats}</d:response>`;
}

/** A `response` for an href that names nothing. */
export function missing(href: string): string {
	return `<d:response><d:href>${escapeXml(href)}</d:href><d:status>${statusLine(404)}</d:status></d:response>`;
}

export function multistatus(responses: readonly string[]): string {
	return `<?xml version="1.0" encoding="utf-8"?>\n<d:multistatus xmlns:d="${DAV}" xmlns:card="${CARDDAV}" xmlns:cs="${CALSERVER}">${responses.join("")}</d:multistatus>\n`;
}

/** A precondition failed (RFC 4918 §16): `<d:error>` naming it. */
export function errorBody(ns: string, name: string): string {
	return `<?xml version="1.0" encoding="utf-8"?>\n<d:error xmlns:d="${DAV}" xmlns:card="${CARDDAV}">${tag(ns, name)}</d:error>\n`;
}
