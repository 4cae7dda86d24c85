/// <reference lib="es2024.string" />
// Text neither database can store faithfully is refused before any query runs, the same on both:
// PostgreSQL rejects NUL (U+0000) in text with an error, and a lone UTF-16 surrogate becomes U+FFFD
// on its way to UTF-8 in either. A path segment holding such text names nothing (404, with the
// route's own code for an unknown id); a body or query member holding it is 400 `validation_failed`.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError, type ErrorCode } from "./errors.ts";

declare module "fastify" {
	interface FastifyContextConfig {
		/** The code this route answers for an unknown id or slug in its path (default `not_found`). */
		notFound?: ErrorCode;
	}
}

/** True when `text` can be stored and read back unchanged: no NUL, no lone surrogate. */
export function storableText(text: string): boolean {
	return !text.includes("\0") && text.isWellFormed();
}

/** The refusal for a body or query member, named as schema errors name them (`body.values.iban`, `querystring.filter`). */
export function unstorableField(field: string, memberName = false): AppError {
	const what = memberName ? "has a member name with" : "holds";
	return new AppError("validation_failed", `${field} ${what} a NUL character or a lone surrogate`, {
		extra: { field },
	});
}

/** Global: registered once in buildApp, ahead of each route's own preValidation and its schema. */
export function registerTextGuard(app: FastifyInstance): void {
	app.addHook("preValidation", (request, _reply, done) => {
		done(unstorableInput(request));
	});
}

function unstorableInput(request: FastifyRequest): AppError | undefined {
	const params = request.params as Record<string, unknown> | undefined;
	if (params) {
		for (const key in params) {
			const value = params[key];
			if (typeof value === "string" && !storableText(value)) {
				// Worded as the route words an unknown id: the same code, its plain title.
				return new AppError(request.routeOptions.config.notFound ?? "not_found");
			}
		}
	}
	const query = request.query as Record<string, unknown> | undefined;
	if (query) {
		for (const key in query) {
			if (!storableText(key)) return unstorableField("querystring", true);
			const value = query[key];
			if (typeof value === "string" ? !storableText(value) : !allStorable(value)) {
				return unstorableField(`querystring.${key}`);
			}
		}
	}
	const body = request.body;
	if (body === undefined || body === null) return undefined;
	const bad = unstorablePath(body);
	if (bad === undefined) return undefined;
	return unstorableField(bad.path === "" ? "body" : `body.${bad.path}`, bad.memberName);
}

/** A repeated query key arrives as an array of strings. */
function allStorable(value: unknown): boolean {
	if (!Array.isArray(value)) return true;
	for (const item of value) if (typeof item === "string" && !storableText(item)) return false;
	return true;
}

interface Frame {
	value: object;
	key: string;
	up: Frame | undefined;
}

/**
 * Where in a parsed JSON value the first unstorable string is (`values.iban`, `items.0`; `""` for
 * the root; a bad member name points at its object), or undefined. Walks with its own stack, so a
 * deeply nested body cannot overflow the call stack.
 */
export function unstorablePath(root: unknown): { path: string; memberName: boolean } | undefined {
	if (typeof root === "string") return storableText(root) ? undefined : { path: "", memberName: false };
	if (typeof root !== "object" || root === null) return undefined;
	const stack: Frame[] = [{ value: root, key: "", up: undefined }];
	for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
		const node = frame.value as Record<string, unknown>;
		const array = Array.isArray(node);
		for (const key in node) {
			if (!array && !storableText(key)) return { path: pathOf(frame), memberName: true };
			const value = node[key];
			if (typeof value === "string") {
				if (!storableText(value)) return { path: pathOf({ value: node, key, up: frame }), memberName: false };
			} else if (typeof value === "object" && value !== null) {
				stack.push({ value, key, up: frame });
			}
		}
	}
	return undefined;
}

/** The dotted path of a frame, shortened for deep or long paths: the field names a place, it does not echo the body. */
function pathOf(frame: Frame): string {
	const keys: string[] = [];
	for (let f: Frame | undefined = frame; f?.up !== undefined; f = f.up) keys.push(f.key);
	keys.reverse();
	const path = keys.length > 16 ? `${keys.slice(0, 16).join(".")}.…` : keys.join(".");
	return path.length > 200 ? `${path.slice(0, 200).replace(/[\uD800-\uDBFF]$/, "")}…` : path;
}
