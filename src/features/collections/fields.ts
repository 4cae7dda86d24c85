// Small shared pieces of collection modules: schema helpers, time formatting, field refusals and
// the database error shapes both dialects produce for a broken unique or foreign key.
import { type TSchema, Type } from "typebox";
import { AppError } from "../../http/errors.ts";
import { parseIsoInstant } from "../../lib/iso-date.ts";

export const KEY_PATTERN = "^[a-z0-9_-]{1,64}$";

export function Nullable<T extends TSchema>(schema: T, description?: string) {
	return Type.Union([schema, Type.Null()], description ? { description } : {});
}

export const Timestamp = (description: string) => Type.String({ format: "date-time", description });

export function iso(ms: number): string {
	return new Date(ms).toISOString();
}

export function isoOrNull(ms: number | null): string | null {
	return ms === null ? null : iso(ms);
}

/** 400 `validation_failed` naming the body member, the same shape schema validation gives. */
export function invalidField(field: string, message: string): AppError {
	return new AppError("validation_failed", `body.${field} ${message}`, { extra: { field: `body.${field}` } });
}

/**
 * An `expiresAt` member: an ISO 8601 date-time (a date alone is refused: it names no instant;
 * without a zone it is UTC) that exists (`2030-02-30T00:00:00Z` is refused, not rolled over) and
 * lies in the future. Answers the instant in milliseconds.
 */
export function parseExpiry(value: string, now: number, field = "expiresAt"): number {
	const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? parseIsoInstant(value, { zoneless: true }) : undefined;
	if (ms === undefined) {
		throw invalidField(field, "must be an ISO 8601 date-time that exists");
	}
	if (ms <= now) throw invalidField(field, "must be in the future");
	return ms;
}
