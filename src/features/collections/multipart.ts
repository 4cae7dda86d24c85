// `multipart/form-data` bodies: text parts become fields (typed by the collection's JSON schema),
// and the one part named `file` streams straight into the blob store under a fresh key with the
// MAX_FILE_SIZE cap. Nothing is buffered whole; a refused or broken upload leaves no blob behind.
import { pipeline } from "node:stream";
import type { Multipart } from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import type { TObject, TSchema } from "typebox";
import { AppError } from "../../http/errors.ts";
import { storableText, unstorableField, unstorablePath } from "../../http/text-guard.ts";
import { type BlobStore, BlobTooLargeError } from "../../lib/blob-store.ts";
import { multipartBoundary, PartCounter } from "../../lib/part-count.ts";
import { HeadCapture, sanitizeFilename, sniffContentType } from "../../lib/sniff.ts";
import type { StoredUpload } from "./registry.ts";

export const MULTIPART_LIMITS = { fields: 16, fieldSize: 16 * 1024, parts: 20 } as const;
/** What a form may add around the file: every field at its limit plus part headers. */
export const MULTIPART_OVERHEAD = MULTIPART_LIMITS.fields * MULTIPART_LIMITS.fieldSize + 64 * 1024;

export function isMultipart(request: FastifyRequest): boolean {
	return request.mediaType === "multipart/form-data";
}

/** Refuses by Content-Length alone when the body cannot fit under the cap, before reading a byte. */
export function refuseOversized(request: FastifyRequest, maxFileSize: number): void {
	if (maxFileSize < 0) return;
	const length = Number(request.headers["content-length"]);
	if (Number.isFinite(length) && length > maxFileSize + MULTIPART_OVERHEAD) {
		throw new AppError("file_too_large", `The upload is larger than the ${maxFileSize}-byte cap`, {
			extra: { maxFileSize },
		});
	}
}

export interface MultipartBody {
	fields: Record<string, unknown>;
	upload?: StoredUpload;
}

export async function readMultipart(
	request: FastifyRequest,
	schema: TObject,
	blobs: BlobStore,
	maxFileSize: number,
): Promise<MultipartBody> {
	const fields: Record<string, unknown> = Object.create(null);
	let upload: StoredUpload | undefined;
	const boundary = multipartBoundary(request.headers["content-type"]);
	const counter = boundary === undefined ? undefined : new PartCounter(boundary);
	let unwatch: (() => void) | undefined;
	try {
		const parts = request
			.parts({
				limits: {
					...MULTIPART_LIMITS,
					files: 1,
					// One byte past the cap so the blob store's running check sees the overflow.
					fileSize: maxFileSize < 0 ? Number.POSITIVE_INFINITY : maxFileSize + 1,
				},
			})
			[Symbol.asyncIterator]();
		// The first next() pipes the body into the parser; counting starts after, so the parser
		// always has the bytes first and nothing is read before it listens.
		const first = parts.next();
		unwatch = counter?.watch(request.raw);
		let seen = 0;
		for (let step = await first; !step.done; step = await parts.next()) {
			const part = step.value;
			seen += 1;
			if (part.type === "file") {
				if (part.fieldname !== "file" || upload) {
					part.file.resume();
					throw invalid(part.fieldname, "only one part, named file, may carry bytes");
				}
				upload = await store(part, blobs, maxFileSize);
				continue;
			}
			if (!storableText(part.fieldname)) throw unstorableField("body", true);
			if (part.fieldname === "file") throw invalid("file", "must be a file part");
			if (part.valueTruncated || part.fieldnameTruncated) {
				throw invalid(part.fieldname, `is longer than ${MULTIPART_LIMITS.fieldSize} bytes`);
			}
			if (typeof part.value === "string" && !storableText(part.value)) {
				throw unstorableField(`body.${part.fieldname}`);
			}
			if (part.fieldname === JSON_PAYLOAD) {
				mergeJsonPayload(fields, part.value);
				continue;
			}
			if (Object.hasOwn(fields, part.fieldname)) throw invalid(part.fieldname, "appears twice");
			fields[part.fieldname] = coerce(schema.properties[part.fieldname], part.value);
		}
		// A part the parser skipped would vanish silently: a file part lost that way would leave
		// a record without its file.
		if (counter && counter.parts > seen) {
			throw new AppError(
				"bad_request",
				"Malformed multipart body: a part has no form-data Content-Disposition, or a line break in its name or file name",
			);
		}
	} catch (err) {
		if (upload) await blobs.delete(upload.key).catch(() => undefined);
		throw mapError(err);
	} finally {
		unwatch?.();
	}
	return upload ? { fields, upload } : { fields };
}

async function store(
	part: Extract<Multipart, { type: "file" }>,
	blobs: BlobStore,
	maxFileSize: number,
): Promise<StoredUpload> {
	const head = new HeadCapture();
	// pipeline() carries an error either way: a broken request destroys the blob write, and a
	// refused blob write (too large) destroys the request's file stream.
	pipeline(part.file, head, () => undefined);
	const blob = await blobs.put(head, { maxBytes: maxFileSize });
	return {
		key: blob.key,
		size: blob.size,
		sha256: blob.sha256,
		type: sniffContentType(head.head()),
		name: sanitizeFilename(part.filename),
	};
}

/**
 * PocketBase's SDK turns an object holding a file into a form, and sends each member that is not
 * text (null, an array, an object) as its own `@jsonPayload` part: `{"section":null}`. Its members
 * join the fields, typed as JSON, and meet the same schema.
 */
const JSON_PAYLOAD = "@jsonPayload";

function mergeJsonPayload(fields: Record<string, unknown>, text: unknown): void {
	let payload: unknown;
	try {
		payload = JSON.parse(String(text));
	} catch {
		throw invalid(JSON_PAYLOAD, "is not valid JSON");
	}
	if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
		throw invalid(JSON_PAYLOAD, "must be a JSON object");
	}
	// JSON escapes (`\u0000`) decode only now: the text check above did not see them.
	const bad = unstorablePath(payload);
	if (bad) throw unstorableField(bad.path === "" ? "body" : `body.${bad.path}`, bad.memberName);
	for (const [name, value] of Object.entries(payload)) {
		if (Object.hasOwn(fields, name)) throw invalid(name, "appears twice");
		fields[name] = value;
	}
}

/** Form fields are text: read them as the JSON schema types the member. */
function coerce(schema: TSchema | undefined, value: unknown): unknown {
	if (schema === undefined || typeof value !== "string") return value;
	const types = typesOf(schema);
	if (value === "" && types.has("null")) return null;
	if (types.has("boolean") && (value === "true" || value === "false")) return value === "true";
	if ((types.has("integer") || types.has("number")) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
	return value;
}

function typesOf(schema: TSchema): Set<string> {
	const out = new Set<string>();
	const s = schema as { type?: string | string[]; anyOf?: TSchema[] };
	for (const t of Array.isArray(s.type) ? s.type : s.type ? [s.type] : []) out.add(t);
	for (const sub of s.anyOf ?? []) for (const t of typesOf(sub)) out.add(t);
	return out;
}

function invalid(field: string, message: string): AppError {
	return new AppError("validation_failed", `body.${field} ${message}`, {
		extra: { field: `body.${field}` },
	});
}

function mapError(err: unknown): unknown {
	if (err instanceof AppError) return err;
	if (err instanceof BlobTooLargeError) {
		return new AppError("file_too_large", `The file is larger than the ${err.maxBytes}-byte cap`, {
			extra: { maxFileSize: err.maxBytes },
		});
	}
	const code = (err as { code?: string }).code;
	switch (code) {
		case "FST_FILES_LIMIT":
			return invalid("file", "only one file per request");
		case "FST_FIELDS_LIMIT":
		case "FST_PARTS_LIMIT":
			return new AppError("body_too_large", `At most ${MULTIPART_LIMITS.fields} fields`);
		case "FST_PROTO_VIOLATION":
			return new AppError("validation_failed", "A field name is reserved");
		case "FST_INVALID_JSON_FIELD_ERROR":
			return new AppError("validation_failed", "A JSON field is not valid JSON");
		default:
			break;
	}
	// A failing disk is ours (500); a vanished client or malformed multipart (no boundary, a
	// truncated body) is the client's.
	const gone = code === "ECONNRESET" || code === "EPIPE" || code === "ERR_STREAM_PREMATURE_CLOSE";
	if ((err as { syscall?: string }).syscall !== undefined && !gone) return err;
	const message = err instanceof Error ? err.message : String(err);
	return new AppError("bad_request", `Malformed multipart body: ${message}`);
}

const LINGER = { bytes: 8 * 1024 * 1024, ms: 2000 };

/**
 * An upload refused before it was read whole (401, 404, 413...): reads and drops a little more,
 * then closes, instead of reading the rest of a possibly huge body or closing at once (a reset
 * that can destroy the answer before the client reads it: nginx's "lingering close").
 */
export function lingeringClose(raw: FastifyRequest["raw"]): void {
	let read = 0;
	// (`app.inject` requests have a socket stand-in without destroy.)
	const close = () => raw.socket.destroy?.();
	const timer = setTimeout(close, LINGER.ms);
	timer.unref();
	raw.on("data", (chunk: Buffer) => {
		read += chunk.length;
		if (read > LINGER.bytes) {
			clearTimeout(timer);
			close();
		}
	});
	// The body ended within the linger: the connection is clean and may be reused.
	raw.on("end", () => clearTimeout(timer));
	raw.resume();
}
