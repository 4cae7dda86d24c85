// Request bodies are read as sent. A body with a Content-Encoding (gzip, deflate, br…) is refused
// before a byte of it is read: 415 `unsupported_media_type`, with `Accept-Encoding: identity` as
// RFC 7694 asks. Nothing on this server inflates what a caller sends, so no request body can grow
// past BODY_LIMIT or MAX_FILE_SIZE on the way in (docs/api.md "Conventions").
import type { FastifyInstance } from "fastify";
import { AppError } from "./errors.ts";

/** Whether the request carries a body (a length above zero, or chunks). */
function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
	const length = headers["content-length"];
	return headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * Global, in preParsing: after every onRequest hook (a read-only route's 405 still wins), before any
 * body parser.
 */
export function refuseEncodedBodies(app: FastifyInstance): void {
	// A callback hook, not an async one: it runs on every request, and a promise per request costs
	// the cheapest routes a measurable share of their throughput (bench/README.md, issue 37).
	app.addHook("preParsing", (request, _reply, payload, done) => {
		done(encodedBodyRefusal(request.headers), payload);
	});
}

/** The refusal of a body sent with a content coding other than identity; undefined when there is none. */
function encodedBodyRefusal(headers: Record<string, string | string[] | undefined>): AppError | undefined {
	const coding = headers["content-encoding"];
	if (typeof coding !== "string" || !hasBody(headers)) return undefined;
	const codings = coding
		.split(",")
		.map((c) => c.trim().toLowerCase())
		.filter((c) => c !== "" && c !== "identity");
	if (codings.length === 0) return undefined;
	return new AppError(
		"unsupported_media_type",
		`Request bodies are read as sent: Content-Encoding ${codings.join(", ")} is not accepted; send the body uncompressed`,
		{ headers: { "accept-encoding": "identity" } },
	);
}
