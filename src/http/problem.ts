// Writes every error as application/problem+json (RFC 9457) with the spec's `code`. Input errors
// never become a 500; a 500 is logged with its request id and reveals nothing.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { AppError, type ErrorCode, errorCodes } from "./errors.ts";

export interface Problem {
	type: string;
	title: string;
	status: number;
	code: string;
	detail: string;
	[extra: string]: unknown;
}

export function problemBody(code: ErrorCode, detail?: string, extra?: Record<string, unknown>): Problem {
	const { status, title } = errorCodes[code];
	return { ...extra, type: "about:blank", title, status, code, detail: detail ?? title };
}

export function sendProblem(reply: FastifyReply, err: AppError): FastifyReply {
	if (err.headers) reply.headers(err.headers);
	return reply
		.code(err.status)
		.type("application/problem+json; charset=utf-8")
		.send({ ...problemBody(err.code, err.message, err.extra), status: err.status });
}

/** Maps Fastify's own errors (parsing, validation, limits) onto our codes. */
export function toAppError(err: FastifyError): AppError | undefined {
	if (err instanceof AppError) return err;
	if (err.validation) {
		const first = err.validation[0];
		const where = err.validationContext ?? "body";
		const field = fieldName(first?.instancePath, first?.params);
		const message = first?.message ?? "is invalid";
		return new AppError("validation_failed", `${where}${field ? `.${field}` : ""} ${message}`, {
			extra: { field: field ? `${where}.${field}` : where },
		});
	}
	switch (err.code) {
		case "FST_ERR_CTP_INVALID_JSON_BODY":
		case "FST_ERR_CTP_EMPTY_JSON_BODY":
			return new AppError("invalid_json", err.message);
		case "FST_ERR_CTP_BODY_TOO_LARGE":
			return new AppError("body_too_large");
		case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
		case "FST_ERR_CTP_INVALID_CONTENT_LENGTH":
			return err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE"
				? new AppError("unsupported_media_type", err.message)
				: new AppError("bad_request", err.message);
		case "FST_ERR_CTP_INVALID_TYPE":
			return new AppError("unsupported_media_type", err.message);
	}
	if (err instanceof SyntaxError && err.statusCode === 400) return new AppError("invalid_json", err.message);
	const status = err.statusCode ?? 500;
	if (status === 413) return new AppError("body_too_large");
	if (status === 415) return new AppError("unsupported_media_type", err.message);
	if (status === 429) return new AppError("rate_limited");
	if (status >= 400 && status < 500) return new AppError("bad_request", err.message);
	return undefined;
}

function fieldName(instancePath: string | undefined, params: Record<string, unknown> | undefined): string {
	const base = (instancePath ?? "").replace(/^\//, "").replaceAll("/", ".");
	const missing = params && typeof params.missingProperty === "string" ? params.missingProperty : "";
	const extra = params && typeof params.additionalProperty === "string" ? params.additionalProperty : "";
	const leaf = missing || extra;
	return [base, leaf].filter(Boolean).join(".");
}

/** A route that needs a body got none (an empty JSON body is none): said so, not "body must be object". */
function missingBody(err: FastifyError, request: FastifyRequest): AppError | undefined {
	if (!err.validation || err.validationContext !== "body" || request.body !== undefined) return undefined;
	return new AppError("validation_failed", "body is required", { extra: { field: "body" } });
}

export function registerProblemHandlers(app: FastifyInstance): void {
	app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
		const mapped = missingBody(err, request) ?? toAppError(err);
		if (mapped) {
			if (mapped.internal !== undefined)
				request.log.warn({ code: mapped.code, detail: mapped.internal }, mapped.message);
			else if (mapped.status >= 500) request.log.error({ err }, "request failed");
			return sendProblem(reply, mapped);
		}
		request.log.error({ err, reqId: request.id }, "unhandled error");
		return sendProblem(reply, new AppError("internal_error", "Internal server error"));
	});

	app.setNotFoundHandler((request, reply) => {
		sendProblem(
			reply,
			new AppError("not_found", `No route for ${request.method} ${request.url.split("?")[0]}`),
		);
	});
}

/**
 * Refusals the router makes before any route runs (Fastify's `frameworkErrors`), as problems too:
 * a malformed URL is 400; a path segment longer than any id or slug can be is 404 like any
 * unknown id.
 */
export function frameworkProblem(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
	if (err.code === "FST_ERR_MAX_PARAM_LENGTH") {
		sendProblem(reply, new AppError("not_found", "No resource has an id this long"));
		return;
	}
	sendProblem(reply, new AppError("bad_request", err.message));
}
