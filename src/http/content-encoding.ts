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
	app.addHook("preParsing", async (request) => {
		const coding = request.headers["content-encoding"];
		if (coding === undefined || !hasBody(request.headers)) return;
		const codings = coding
			.split(",")
			.map((c) => c.trim().toLowerCase())
			.filter((c) => c !== "" && c !== "identity");
		if (codings.length === 0) return;
		throw new AppError(
			"unsupported_media_type",
			`Request bodies are read as sent: Content-Encoding ${codings.join(", ")} is not accepted; send the body uncompressed`,
			{ headers: { "accept-encoding": "identity" } },
		);
	});
}
