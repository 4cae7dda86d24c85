// HTTP for `/dav/s/{slug}/` (spec "Shares"; RFC 6352): a read-only CardDAV addressbook of one
// card, `contact.vcf`. Its gates are the shares feature's for the `carddav` reader: only an
// active share without a password or handshake is served; any other answers 404 as a missing slug
// would. GET of the card and a REPORT returning it take a view (the resolve's, kind
// `addressbook`); PROPFIND, OPTIONS, HEAD and a 304 take none. Writes are 405, whatever the body.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyError, FastifyReply, FastifyRequest, FastifySchema } from "fastify";
import { Type } from "typebox";
import { publicOrigin } from "../../config.ts";
import { AppError } from "../../http/errors.ts";
import { sendProblem, toAppError } from "../../http/problem.ts";
import { errors } from "../../http/schemas.ts";
import { findBySlug, type PublicLinkRow, passGates } from "../shares/service.ts";
import {
	type Book,
	type Place,
	parseReport,
	propfind,
	propRequest,
	reachesCard,
	readsValues,
	report,
} from "./dav.ts";
import { CARDDAV, DAV, type Element, errorBody, multistatus, parseXml } from "./dav-xml.ts";
import { current, type FormatsContext, parseIfNoneMatch, readShare, readWithView } from "./read.ts";
import { etagOf, mediaType, renderData } from "./represent.ts";

const XML_BODY_LIMIT = 64 * 1024;
const ALLOW = "OPTIONS, GET, HEAD, PROPFIND, REPORT";
const CARD = "contact.vcf";
const WRITES = ["PUT", "DELETE", "PATCH", "POST", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK"];
const PRECONDITIONS: Record<string, string> = {
	"supported-report": DAV,
	"supported-address-data": CARDDAV,
	"supported-filter": CARDDAV,
	"supported-collation": CARDDAV,
};

type DavRequest = FastifyRequest<{ Params: { slug: string } }>;

function place(slug: string): Place {
	const collection = `/dav/s/${encodeURIComponent(slug)}/`;
	return { collection, card: `${collection}${CARD}` };
}

/** `Depth` as RFC 4918 reads it; `infinity` reaches no deeper than 1 in a book of one card. */
function depthOf(request: FastifyRequest, absent: "0" | "1"): "0" | "1" {
	const header = request.headers.depth;
	if (header === undefined) return absent;
	const depth = Array.isArray(header) ? header.join(",") : header;
	if (depth === "0" || depth === "1") return depth;
	if (depth.toLowerCase() === "infinity") return "1";
	throw new AppError("bad_request", "Depth must be 0, 1 or infinity");
}

export const davRoutes: FastifyPluginAsyncTypebox<{ ctx: FormatsContext }> = async (app, { ctx }) => {
	const origin = publicOrigin(app.config);
	for (const method of ["PROPFIND", "REPORT", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK"]) {
		if (!app.supportedMethods.includes(method)) app.addHttpMethod(method, { hasBody: true });
	}
	const xml = async (_request: FastifyRequest, body: string | Buffer) => {
		const text = body.toString();
		return text.trim() === "" ? undefined : parseXml(text);
	};
	app.addContentTypeParser(
		["application/xml", "text/xml"],
		{ parseAs: "string", bodyLimit: XML_BODY_LIMIT },
		xml,
	);

	app.addHook("onSend", async (_request, reply, payload) => {
		reply.header("dav", "1, 3, addressbook").header("x-robots-tag", "noindex, nofollow");
		return payload;
	});
	app.setErrorHandler((err: FastifyError, request, reply) => {
		let problem = toAppError(err) ?? new AppError("internal_error", "Internal server error");
		if (problem.status >= 500) request.log.error({ err }, "addressbook failed");
		const precondition = problem.extra?.precondition;
		if (typeof precondition === "string" && PRECONDITIONS[precondition]) {
			return reply
				.code(403)
				.type("application/xml; charset=utf-8")
				.send(errorBody(PRECONDITIONS[precondition], precondition));
		}
		// A gate that wants a password or a proven identity: the book does not exist for this reader.
		if (problem.status === 401) problem = new AppError("link_not_found");
		return sendProblem(reply, problem);
	});

	/** The share, if the addressbook serves it (the `carddav` reader's gates, short of the view). */
	async function open(slug: string, now: number): Promise<PublicLinkRow> {
		const link = await findBySlug(ctx, slug);
		await passGates(ctx, "carddav", link, {}, now);
		return link;
	}

	const book = (link: PublicLinkRow, model: Book["model"]): Book => ({
		place: place(link.slug),
		model,
		etag: etagOf(model, "vcf", "en"),
	});

	function multi(reply: FastifyReply, responses: string[]) {
		return reply
			.code(207)
			.type("application/xml; charset=utf-8")
			.header("cache-control", "no-store")
			.send(multistatus(responses));
	}

	const collectionUrls = ["/dav/s/:slug", "/dav/s/:slug/"];
	const cardUrl = `/dav/s/:slug/${CARD}`;
	const hidden = { schema: { hide: true } };
	// OpenAPI has no PROPFIND or REPORT: those are described on the collection's GET and in
	// docs/api.md "Addressbook"; the GET routes are listed so the addressbook is not invisible there.
	const listed = (
		url: string,
		summary: string,
		description: string,
		responses: Record<number, unknown>,
	): { schema: FastifySchema } =>
		url.endsWith(":slug")
			? hidden
			: {
					schema: {
						tags: ["shares"],
						summary,
						description,
						params: Type.Object({ slug: Type.String() }),
						response: { ...responses, ...errors(404, 405, 429) },
					},
				};
	const probeLimit = { rateLimit: app.limits.probe, notFound: "link_not_found" as const };
	const gateLimit = { rateLimit: app.limits.gate, notFound: "link_not_found" as const };

	for (const url of [...collectionUrls, cardUrl]) {
		const target = url === cardUrl ? "card" : "collection";
		app.route({
			method: "OPTIONS",
			url,
			config: probeLimit,
			...hidden,
			handler: async (request: DavRequest, reply) => {
				await open(request.params.slug, app.clock.now());
				return reply.header("allow", ALLOW).send();
			},
		});
		app.route({
			method: "PROPFIND",
			url,
			config: probeLimit,
			...hidden,
			handler: async (request: DavRequest, reply) => {
				const asked = propRequest(request.body as Element | undefined);
				const depth = depthOf(request, "1");
				const link = await open(request.params.slug, app.clock.now());
				return multi(
					reply,
					propfind(target, depth, asked, book(link, await current(ctx, link, app.clock.now()))),
				);
			},
		});
		app.route({
			method: "REPORT",
			url,
			config: gateLimit,
			...hidden,
			handler: async (request: DavRequest, reply) => {
				const r = parseReport(request.body as Element | undefined);
				const depth = depthOf(request, "0");
				const now = app.clock.now();
				const link = await open(request.params.slug, now);
				const onCard = target === "card";
				const reaches = reachesCard(r, place(link.slug), onCard, depth, origin);
				const model = readsValues(r, reaches)
					? await readWithView(ctx, link, {}, now, "carddav")
					: await current(ctx, link, now);
				return multi(reply, report(r, book(link, model), depth, onCard, origin));
			},
		});
	}
	// Refused in onRequest, before the body is read: whatever its type or size, a write is 405
	// with `Allow` (not 415 or 413), also to a name in the book other than the card.
	for (const url of [...collectionUrls, cardUrl, "/dav/s/:slug/*"]) {
		app.route({ method: WRITES, url, ...hidden, onRequest: refuseWrite, handler: refuseWrite });
	}

	app.route({
		method: "GET",
		url: cardUrl,
		config: gateLimit,
		...listed(
			cardUrl,
			"The addressbook's one card: the share as vCard 4.0",
			'A read of the share through every gate (a password or handshake share is never served here: 404 `link_not_found`). Takes one view (read log kind `addressbook`); `If-None-Match` with the current `ETag` answers 304 without one; HEAD takes none. See docs/api.md "Addressbook".',
			{
				200: {
					description: "The card (text/vcard; charset=utf-8)",
					content: { "text/vcard": { schema: Type.String() } },
				},
				304: { description: "Not modified: no body, no view taken." },
			},
		),
		handler: async (request: DavRequest, reply) => {
			const now = app.clock.now();
			const link = await open(request.params.slug, now);
			const etag = (model: Book["model"]) => etagOf(model, "vcf", "en");
			const read = await readShare(
				ctx,
				link,
				{
					input: {},
					ifNoneMatch: parseIfNoneMatch(request.headers["if-none-match"]),
					head: request.method === "HEAD",
					etag,
					reader: "carddav",
					client: {},
				},
				now,
			);
			reply.header("etag", etag(read.model)).header("cache-control", "private, no-cache");
			if (read.kind === "unchanged") return reply.code(304).send();
			reply.type(mediaType("vcf"));
			return reply.send(read.kind === "headers" ? "" : renderData(read.model, "vcf"));
		},
	});
	for (const url of collectionUrls) {
		app.route({
			method: "GET",
			url,
			config: probeLimit,
			...listed(
				url,
				"A share's read-only CardDAV addressbook (RFC 6352) holding one card",
				'The address a contacts app is given. Besides GET (a short text) it answers OPTIONS, PROPFIND (Depth 0 or 1) and REPORT (`addressbook-multiget`, `addressbook-query`), which OpenAPI cannot list; writes answer 405 `method_not_allowed`. Takes no view. See docs/api.md "Addressbook".',
				{
					200: {
						description: "A line of text for a person who opens the address in a browser",
						content: { "text/plain": { schema: Type.String() } },
					},
				},
			),
			handler: async (request: DavRequest, reply) => {
				await open(request.params.slug, app.clock.now());
				return reply
					.type("text/plain; charset=utf-8")
					.header("cache-control", "no-store")
					.send("A read-only CardDAV address book: add this address to a contacts app.\n");
			},
		});
	}
};

async function refuseWrite(_request: FastifyRequest, reply: FastifyReply): Promise<never> {
	reply.header("allow", ALLOW);
	throw new AppError("method_not_allowed", "The address book is read-only");
}
