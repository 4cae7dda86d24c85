// The rules of requests (spec "Request", "Request status", "Callback URL policy"): what a request
// asks for (inline TemplateItems or a template's, copied at save), its status, its password, its
// callback URL, and the public probe. Answering is built on top (`request_answers`).
import type { Kysely, Transaction } from "kysely";
import type { Database, RequestTable } from "../../db/schema.ts";
import { type AccountCaller, requireScope } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { newId, randomToken } from "../../lib/crypto.ts";
import { hashPassword } from "../../lib/password.ts";
import { type CallbackPolicy, checkCallbackUrl } from "../callbacks/service.ts";
import { invalidField, iso, isoOrNull, parseExpiry } from "../collections/fields.ts";
import { checkIdentityOwnership } from "../identity/service.ts";
import { type ServerClaim, sharerOf } from "../server/service.ts";
import { checkItems, type TemplateItem, templateItems } from "../vault/templates/service.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** Stored `open` or `closed`; an open request at or past `expiresAt` reads as `expired`. */
export type RequestStatus = RequestTable["status"] | "expired";
export const IDENTITY_SCOPES = ["any", "from_root"] as const;
/** 192 bits from the CSPRNG (32 base64url characters): the capability a responder holds. */
const SLUG_BYTES = 24;

export function effectiveStatus(
	row: Pick<RequestTable, "status" | "expires_at">,
	now: number,
): RequestStatus {
	return row.status === "open" && row.expires_at !== null && row.expires_at <= now ? "expired" : row.status;
}

/** The members a create or update may carry; absent members stay as they are on update. */
export interface RequestInput {
	label?: string;
	items?: TemplateItem[];
	template?: string;
	status?: RequestTable["status"];
	password?: string | null;
	requiresIdentifier?: boolean;
	requireHandshake?: boolean;
	allowExtraFields?: boolean;
	identityScope?: RequestTable["identity_scope"];
	expiresAt?: string | null;
	callbackUrl?: string | null;
	identity?: string | null;
	allowAnswerSignup?: boolean;
	answerSignupLimit?: number;
}

/** Answer-only accounts one request may create by default, and at most (docs/api.md "Answer-only sign-ups"). */
export const ANSWER_SIGNUP_LIMIT_DEFAULT = 20;
export const ANSWER_SIGNUP_LIMIT_MAX = 1000;

export interface SaveContext {
	db: Kysely<Database>;
	caller: AccountCaller;
	now: number;
	policy: CallbackPolicy;
}

function checkLabel(label: string): string {
	const trimmed = label.trim();
	if (trimmed === "") throw invalidField("label", "must not be blank");
	return trimmed;
}

/** The columns `input` sets, each checked; shared by create and update. */
async function columns(ctx: SaveContext, input: RequestInput): Promise<Partial<RequestTable>> {
	const { db, caller, now, policy } = ctx;
	const out: Partial<RequestTable> = {};
	if (input.label !== undefined) out.label = checkLabel(input.label);
	if (input.items !== undefined && input.template !== undefined) {
		throw invalidField("template", "and items cannot both be given: name a template or list the items");
	}
	if (input.items !== undefined) {
		out.items = checkItems(input.items);
		out.template = null;
	}
	if (input.template !== undefined) {
		// Reading a template needs its own scope: an API key without it learns nothing through a request.
		requireScope(caller, "template:read");
		const items = await templateItems(db, caller.workspaceId, input.template);
		if (!items) throw invalidField("template", "names no template of this workspace");
		if (items.length === 0) throw invalidField("template", "has no items");
		out.items = checkItems(items);
		out.template = input.template;
	}
	if (input.status !== undefined) out.status = input.status;
	if (input.password !== undefined) {
		out.password_hash = input.password === null ? null : await hashPassword(input.password);
	}
	if (input.requiresIdentifier !== undefined) out.requires_identifier = input.requiresIdentifier ? 1 : 0;
	if (input.requireHandshake !== undefined) out.require_handshake = input.requireHandshake ? 1 : 0;
	if (input.allowExtraFields !== undefined) out.allow_extra_fields = input.allowExtraFields ? 1 : 0;
	if (input.identityScope !== undefined) out.identity_scope = input.identityScope;
	if (input.expiresAt !== undefined) {
		out.expires_at = input.expiresAt === null ? null : parseExpiry(input.expiresAt, now);
	}
	if (input.callbackUrl !== undefined) {
		out.callback_url = input.callbackUrl === null ? null : await checkCallbackUrl(input.callbackUrl, policy);
	}
	if (input.allowAnswerSignup !== undefined) out.allow_answer_signup = input.allowAnswerSignup ? 1 : 0;
	if (input.answerSignupLimit !== undefined) {
		const n = input.answerSignupLimit;
		if (!Number.isInteger(n) || n < 1 || n > ANSWER_SIGNUP_LIMIT_MAX) {
			throw invalidField("answerSignupLimit", `must be a whole number from 1 to ${ANSWER_SIGNUP_LIMIT_MAX}`);
		}
		out.answer_signup_limit = n;
	}
	if (input.identity !== undefined) {
		if (input.identity !== null) await checkIdentityOwnership(db, caller, input.identity);
		out.identity = input.identity;
	}
	return out;
}

export async function createRequest(ctx: SaveContext, input: RequestInput): Promise<string> {
	if (input.items === undefined && input.template === undefined) {
		throw invalidField("items", "is required unless a template is named");
	}
	const set = await columns(ctx, input);
	const id = newId();
	await store.insertRequest(ctx.db, {
		id,
		workspace: ctx.caller.workspaceId,
		account: ctx.caller.accountId,
		slug: randomToken(SLUG_BYTES),
		label: set.label as string,
		items: set.items as string,
		template: set.template ?? null,
		status: set.status ?? "open",
		password_hash: set.password_hash ?? null,
		requires_identifier: set.requires_identifier ?? 0,
		require_handshake: set.require_handshake ?? 0,
		allow_extra_fields: set.allow_extra_fields ?? 0,
		identity_scope: set.identity_scope ?? "any",
		identity: set.identity ?? null,
		expires_at: set.expires_at ?? null,
		callback_url: set.callback_url ?? null,
		allow_answer_signup: set.allow_answer_signup ?? 0,
		answer_signup_limit: set.answer_signup_limit ?? ANSWER_SIGNUP_LIMIT_DEFAULT,
		answer_signups: 0,
		created: ctx.now,
		updated: ctx.now,
	});
	return id;
}

export async function updateRequest(ctx: SaveContext, row: RequestTable, input: RequestInput): Promise<void> {
	const set = await columns(ctx, input);
	if (Object.keys(set).length > 0) await store.updateRequest(ctx.db, row.id, { ...set, updated: ctx.now });
}

/** The record as served: never the password hash. */
export function requestRecord(row: RequestTable, now: number) {
	return {
		id: row.id,
		workspace: row.workspace,
		slug: row.slug,
		label: row.label,
		status: effectiveStatus(row, now),
		items: JSON.parse(row.items) as TemplateItem[],
		template: row.template,
		requiresPassword: row.password_hash !== null,
		requiresIdentifier: row.requires_identifier === 1,
		requireHandshake: row.require_handshake === 1,
		allowExtraFields: row.allow_extra_fields === 1,
		identityScope: row.identity_scope,
		identity: row.identity,
		expiresAt: isoOrNull(row.expires_at),
		callbackUrl: row.callback_url,
		allowAnswerSignup: row.allow_answer_signup === 1,
		answerSignupLimit: row.answer_signup_limit,
		answerSignups: row.answer_signups,
		created: iso(row.created),
		updated: iso(row.updated),
	};
}

/** `GET /api/public/requests/{slug}`: the gates, the questions, who asks and which server speaks. */
export async function probeRequest(
	db: Db,
	slug: string,
	server: ServerClaim,
	now: number,
	allowAnswerSignups: boolean,
) {
	const row = await store.findPublicRequest(db, slug);
	if (!row) throw new AppError("not_found", "No request has this slug");
	const status = effectiveStatus(row, now);
	return {
		label: row.label,
		status,
		requiresPassword: row.password_hash !== null,
		requiresIdentifier: row.requires_identifier === 1,
		requireHandshake: row.require_handshake === 1,
		allowExtraFields: row.allow_extra_fields === 1,
		identityScope: row.identity_scope,
		answerSignup:
			allowAnswerSignups &&
			row.allow_answer_signup === 1 &&
			status === "open" &&
			row.answer_signups < row.answer_signup_limit,
		answerSignupsUsedUp:
			allowAnswerSignups && row.allow_answer_signup === 1 && row.answer_signups >= row.answer_signup_limit,
		template: JSON.parse(row.items) as TemplateItem[],
		requester: sharerOf(
			{
				name: row.requester_name,
				identity: row.identity,
				identity_fingerprint: row.identity_fingerprint,
				identity_name: row.identity_name,
			},
			server,
		),
		server,
	};
}

/**
 * A request by slug that still takes answers (the request's own status gate, before the password
 * and handshake gates it shares with shares): unknown 404, `request_closed`, `request_expired`.
 */
export async function openForAnswers(db: Db, slug: string, now: number): Promise<store.PublicRequestRow> {
	const request = await store.findPublicRequest(db, slug);
	if (!request) throw new AppError("not_found", "No request has this slug");
	const status = effectiveStatus(request, now);
	if (status === "closed") throw new AppError("request_closed");
	if (status === "expired") throw new AppError("request_expired");
	return request;
}

/** A request of the workspace (another workspace's reads as unknown), for what it collected. */
export async function findWorkspaceRequest(db: Db, workspaceId: string, id: string): Promise<RequestTable> {
	const found = await store.findRequest(db, workspaceId, id);
	if (!found) throw new AppError("not_found", "No request with this id in this workspace");
	return found;
}

/**
 * The request an answer-only sign-up is begun for (by slug): it must exist (404), the operator must
 * allow such sign-ups (403 `signups_disabled`), and the request must be open and allow them (403
 * `answer_signup_not_allowed`). Its id.
 */
export async function answerSignupRequest(
	db: Db,
	slug: string,
	allowed: boolean,
	now: number,
): Promise<string> {
	const request = await store.findPublicRequest(db, slug);
	if (!request) throw new AppError("not_found", "No request has this slug");
	if (!allowed) {
		throw new AppError("signups_disabled", "The operator does not allow answer-only sign-ups on this server");
	}
	if (request.allow_answer_signup !== 1 || effectiveStatus(request, now) !== "open") {
		throw new AppError("answer_signup_not_allowed");
	}
	if (request.answer_signups >= request.answer_signup_limit) throw limitReached(request.answer_signup_limit);
	return request.id;
}

const limitReached = (limit: number) =>
	new AppError(
		"answer_signup_limit_reached",
		`This request's answer link has created the ${limit} accounts its requester allowed`,
		{ extra: { limit } },
	);

/**
 * At the sign-up's finish, in its transaction: takes one of the request's answer-only sign-ups in
 * one conditional update (the request still allows them, is open, and has one left), so two
 * finishes on two server processes cannot both take the last. Refused `answer_signup_not_allowed`
 * or `answer_signup_limit_reached`; the transaction's rollback gives the sign-up back.
 */
export async function takeAnswerSignup(db: Db, id: string, allowed: boolean, now: number): Promise<void> {
	if (!allowed) throw new AppError("answer_signup_not_allowed", "The operator forbids answer-only sign-ups");
	const taken = await db
		.updateTable("requests")
		.set((eb) => ({ answer_signups: eb("answer_signups", "+", 1) }))
		.where("id", "=", id)
		.where("allow_answer_signup", "=", 1)
		.where("status", "=", "open")
		.where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
		.whereRef("answer_signups", "<", "answer_signup_limit")
		.executeTakeFirst();
	if (Number(taken.numUpdatedRows) === 1) return;
	const row = await db
		.selectFrom("requests")
		.select(["status", "expires_at", "allow_answer_signup", "answer_signups", "answer_signup_limit"])
		.where("id", "=", id)
		.executeTakeFirst();
	if (row && row.allow_answer_signup === 1 && effectiveStatus(row, now) === "open") {
		throw limitReached(row.answer_signup_limit);
	}
	throw new AppError("answer_signup_not_allowed", "The request no longer admits an answer-only sign-up");
}

/** One request's answer-only sign-ups, for the operator (`svc admin answer-signups`). */
export interface AnswerSignupCount {
	request: string;
	label: string;
	workspace: string;
	allowed: boolean;
	total: number;
	/** The request's `answerSignupLimit`. */
	limit: number;
	lastDay: number;
}

/** Answer-only sign-ups per request that ever admitted one or allows them now, most first. */
export async function answerSignupCounts(db: Db, now: number): Promise<AnswerSignupCount[]> {
	const rows = await store.answerSignupCounts(db, now - 86_400_000);
	return rows.map((r) => ({
		request: r.id,
		label: r.label,
		workspace: r.workspace_name,
		allowed: r.allow_answer_signup === 1,
		total: Number(r.total),
		limit: Number(r.answer_signup_limit),
		lastDay: Number(r.last_day ?? 0),
	}));
}
