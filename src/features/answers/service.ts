// Answering a request on this server (spec "Requests and remote answers", submission rules) and
// the grant events of answers (spec "Events"). An answer is a link in the responder's own
// workspace: typed values are minted as records there, vault-linked fields grant the responder's
// existing records, and the link grants both. The link's id is the `responseId`, stable across
// answers by the same account: answering again updates, never duplicates.
import type { Kysely, Transaction } from "kysely";
import type { Database, RequestAnswerTable } from "../../db/schema.ts";
import type { Caller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { newId, randomToken } from "../../lib/crypto.ts";
import { verifyPassword } from "../../lib/password.ts";
import type { GrantEventName } from "../callbacks/payloads.ts";
import {
	enqueueGrantEvent,
	enqueueGrantEvents,
	enqueueSubmission,
	type GrantEventInput,
} from "../callbacks/service.ts";
import { type ProvenIdentity, verifyChallenge } from "../challenges/service.ts";
import { invalidField, isForeignKeyViolation } from "../collections/fields.ts";
import * as identityStore from "../identity/store.ts";
import { createNotification } from "../notifications/service.ts";
import { effectiveStatus as requestStatus } from "../requests/service.ts";
import * as requestStore from "../requests/store.ts";
import type { GrantHooks, LinkStatusChange, RecordsChange } from "../shares/grant-hooks.ts";
import { effectiveStatus as linkStatus, readGrants } from "../shares/service.ts";
import * as linkStore from "../shares/store.ts";
import * as recordStore from "../vault/records/store.ts";
import type { TemplateItem } from "../vault/templates/collection.ts";
import * as store from "./store.ts";

type Db = Kysely<Database> | Transaction<Database>;

export const MAX_VALUE_LENGTH = 10_000;
export const MAX_FIELDS = 200;

export interface AnswerInput {
	password?: string | undefined;
	identifier?: string | undefined;
	senderName?: string | undefined;
	/** Template key -> value typed directly. */
	values?: Record<string, string> | undefined;
	/** Template key -> id of one of the responder's vault records. */
	entries?: Record<string, string> | undefined;
	identityId?: string | undefined;
	challengeNonce?: string | undefined;
	challengeSignature?: string | undefined;
}

export interface AnswerDeps {
	db: Kysely<Database>;
	now: number;
}

// ---- typed values ----

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().\-/]{2,39}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Checks a typed value against its item's type; answers the value to store (trimmed). */
export function checkValue(key: string, type: string, raw: string): string {
	const value = raw.trim();
	const bad = (what: string) => invalidField(`values.${key}`, what);
	if (value === "") throw bad("must not be blank");
	if (value.length > MAX_VALUE_LENGTH) throw bad(`must be at most ${MAX_VALUE_LENGTH} characters`);
	switch (type) {
		case "email":
			if (!EMAIL.test(value)) throw bad("must be an email address");
			break;
		case "phone":
			if (!PHONE.test(value)) throw bad("must be a phone number");
			break;
		case "date": {
			const ms = Date.parse(`${value}T00:00:00Z`);
			if (!DATE.test(value) || Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
				throw bad("must be a date, YYYY-MM-DD");
			}
			break;
		}
		case "number":
			if (!NUMBER.test(value) || !Number.isFinite(Number(value))) throw bad("must be a number");
			break;
		case "url": {
			let ok = false;
			try {
				const u = new URL(value);
				ok = u.protocol === "https:" || u.protocol === "http:";
			} catch {
				ok = false;
			}
			if (!ok) throw bad("must be an absolute http or https URL");
			break;
		}
		case "file":
			throw bad("is a file: link a file record of your vault in `entries`");
		default:
			break;
	}
	return value;
}

interface Plan {
	/** Template key -> value to mint, with the item it answers. */
	typed: Map<string, { value: string; label: string }>;
	/** Template key -> responder record id. */
	linked: Map<string, string>;
	/** Keys in answer order: the template's, then extras in the order given. */
	order: string[];
}

/** Checks the values and entries against the template; nothing is written. */
async function plan(
	db: Db,
	workspaceId: string,
	items: TemplateItem[],
	allowExtra: boolean,
	input: AnswerInput,
): Promise<Plan> {
	const values = input.values ?? {};
	const entries = input.entries ?? {};
	if (Object.keys(values).length + Object.keys(entries).length > MAX_FIELDS) {
		throw invalidField("values", `at most ${MAX_FIELDS} fields in all`);
	}
	const byKey = new Map(items.map((i) => [i.key, i]));
	const typed: Plan["typed"] = new Map();
	const linked: Plan["linked"] = new Map();
	for (const [key, raw] of Object.entries(values)) {
		const item = byKey.get(key);
		if (!item && !allowExtra) throw invalidField(`values.${key}`, "is not asked for by this request");
		if (!/^[a-z0-9_-]{1,64}$/.test(key)) throw invalidField(`values.${key}`, "is not a valid key");
		if (Object.hasOwn(entries, key))
			throw invalidField(`values.${key}`, "is given both typed and as a vault entry");
		typed.set(key, { value: checkValue(key, item?.type ?? "text", raw), label: item?.label ?? key });
	}
	for (const [key, id] of Object.entries(entries)) {
		if (!byKey.has(key) && !allowExtra)
			throw invalidField(`entries.${key}`, "is not asked for by this request");
		if (!/^[a-z0-9_-]{1,64}$/.test(key)) throw invalidField(`entries.${key}`, "is not a valid key");
		linked.set(key, id);
	}
	for (const item of items) {
		if (item.required && !typed.has(item.key) && !linked.has(item.key)) {
			throw invalidField(`values.${item.key}`, "is required");
		}
	}
	const records = new Map(
		(await store.recordsOfWorkspace(db, workspaceId, [...new Set(linked.values())])).map((r) => [r.id, r]),
	);
	for (const [key, id] of linked) {
		const record = records.get(id);
		if (!record) throw invalidField(`entries.${key}`, "is not a record of your workspace");
		const type = byKey.get(key)?.type as string | undefined;
		if (type === "file" && record.kind !== "file")
			throw invalidField(`entries.${key}`, "must be a file record");
		if (type !== undefined && type !== "file" && record.kind === "file") {
			throw invalidField(`entries.${key}`, "must be a value record");
		}
	}
	const extras = [...new Set([...typed.keys(), ...linked.keys()])].filter((k) => !byKey.has(k));
	return {
		typed,
		linked,
		order: [...items.map((i) => i.key).filter((k) => typed.has(k) || linked.has(k)), ...extras],
	};
}

// ---- answering ----

export interface AnswerResult {
	ok: true;
	responseId: string;
	linkId: string;
	completed: boolean;
	updated: boolean;
	identity: string;
}

export async function submitAnswer(
	deps: AnswerDeps,
	caller: Caller,
	slug: string,
	input: AnswerInput,
): Promise<AnswerResult> {
	const { db, now } = deps;
	// An answer is kept in the responder's own vault: it needs a person signed in on this server.
	if (caller.kind !== "session") throw new AppError("request_account_required");
	const request = await requestStore.findPublicRequest(db, slug);
	if (!request) throw new AppError("not_found", "No request has this slug");
	const status = requestStatus(request, now);
	if (status === "closed") throw new AppError("request_closed");
	if (status === "expired") throw new AppError("request_expired");

	if (request.password_hash !== null) {
		if (typeof input.password !== "string" || input.password === "")
			throw new AppError("link_password_required");
		if (!(await verifyPassword(input.password, request.password_hash)))
			throw new AppError("link_password_invalid");
	}
	const identifier = (input.identifier ?? "").trim();
	if (request.requires_identifier === 1 && identifier === "") {
		throw invalidField("identifier", "is required by this request");
	}

	// An identity counts only when its challenge verified; a bare `identityId` is dropped.
	let proven: ProvenIdentity | undefined;
	const answered = Boolean(input.challengeNonce || input.challengeSignature);
	if (request.require_handshake === 1 || answered) {
		proven = await verifyChallenge(
			db,
			{
				scope: "request",
				slug,
				nonce: input.challengeNonce,
				signature: input.challengeSignature,
				...(input.identityId ? { identityId: input.identityId } : {}),
			},
			now,
		);
		if (request.identity_scope === "from_root" && proven.id === undefined) {
			throw new AppError("remote_identity_invalid", "This request takes identities this server certified");
		}
	}

	const items = JSON.parse(request.items) as TemplateItem[];
	const existing = await store.findAnswer(db, request.id, caller.accountId);
	if (existing && existing.workspace !== caller.workspaceId) {
		throw new AppError(
			"conflict",
			"Your answer is kept in another workspace: answer again from it (X-Workspace)",
			{
				extra: { workspace: existing.workspace },
			},
		);
	}
	const workspaceId = caller.workspaceId;
	const p = await plan(db, workspaceId, items, request.allow_extra_fields === 1, input);
	const data = Object.fromEntries([...p.typed].map(([k, v]) => [k, v.value]));
	const senderName = (input.senderName ?? "").trim().slice(0, 200);

	// An entry deleted between the checks above and this write breaks a foreign key: refused, nothing kept.
	const result = await db
		.transaction()
		.execute(async (trx) => {
			const linkId = existing?.id ?? newId();
			const oldMinted: Record<string, string> = existing ? JSON.parse(existing.minted) : {};
			const oldEntries: Record<string, string> = existing ? JSON.parse(existing.entries) : {};
			const minted: Record<string, string> = {};
			let valuesChanged = false;

			// Typed values: update the record minted for the key before, or mint one.
			for (const [key, { value, label }] of p.typed) {
				const prior = oldMinted[key]
					? await recordStore.findRecord(trx, workspaceId, oldMinted[key])
					: undefined;
				if (prior) {
					if (prior.value !== value) {
						valuesChanged = true;
						await recordStore.updateRecord(trx, prior.id, { value }, now);
					}
					minted[key] = prior.id;
					continue;
				}
				valuesChanged = true;
				const id = newId();
				await recordStore.insertRecord(trx, {
					id,
					workspace: workspaceId,
					key,
					name: label.slice(0, 200),
					kind: "value",
					value,
					section: null,
					hidden: 0,
					alias: null,
					identity: null,
					file_key: null,
					file_name: null,
					file_type: null,
					file_size: null,
					file_sha256: null,
					version: 1,
					created: now,
					updated: now,
				});
				minted[key] = id;
			}
			// Minted records the new answer no longer uses go, unless the responder built on them.
			for (const [key, id] of Object.entries(oldMinted)) {
				if (minted[key] === id) continue;
				valuesChanged = true;
				if (!(await recordStore.hasAliases(trx, id))) await recordStore.deleteRecord(trx, id);
			}
			const entries = Object.fromEntries(p.linked);
			const entriesChanged =
				JSON.stringify(Object.entries(entries).sort()) !== JSON.stringify(Object.entries(oldEntries).sort());

			// The link: kept when it stands; made again (same id) when it was revoked or deleted.
			const link = await linkStore.findLink(trx, workspaceId, linkId);
			const restarted = !link || link.status === "revoked";
			// The share names the identity only when it is one of the workspace holding the answer.
			const identityHere =
				proven?.id && (await identityStore.findIdentityInWorkspace(trx, workspaceId, proven.id));
			if (restarted) {
				if (link) await linkStore.deleteLink(trx, linkId);
				await linkStore.insertLink(trx, {
					id: linkId,
					workspace: workspaceId,
					slug: randomToken(32),
					label: `Answer: ${request.label}`.slice(0, 200),
					status: "active",
					password_hash: null,
					max_views: null,
					view_count: 0,
					expires_at: null,
					require_handshake: 0,
					stamp: null,
					purpose: "",
					ref: null,
					identity: identityHere ? (proven?.id ?? null) : null,
					handed_over: 0,
					sign_in_client: null,
					created_by: caller.accountId,
					created: now,
					updated: now,
				});
			}
			const granted = p.order
				.map((k) => minted[k] ?? p.linked.get(k))
				.filter((id): id is string => id !== undefined);
			await linkStore.replaceGrants(trx, linkId, [...new Set(granted)], []);
			if (!restarted) await linkStore.updateLink(trx, linkId, { updated: now });

			const row: RequestAnswerTable = {
				id: linkId,
				request: request.id,
				account: caller.accountId,
				workspace: workspaceId,
				identity: proven?.id ?? null,
				identifier,
				sender_name: senderName,
				data: JSON.stringify(data),
				server: null,
				minted: JSON.stringify(minted),
				entries: JSON.stringify(entries),
				created: existing?.created ?? now,
				updated: now,
			};
			if (existing) await store.updateAnswer(trx, linkId, row);
			else await store.insertAnswer(trx, row);

			// A new and an updated answer both fire; answering again with other entries is a change.
			await enqueueSubmission(
				trx,
				{
					requestId: request.id,
					responseId: linkId,
					// Spec: the payload's identity is empty when no handshake was required.
					...(proven?.id && request.require_handshake === 1 ? { identity: proven.id } : {}),
					identifier,
					senderName,
					data,
				},
				now,
			);
			if (existing && (valuesChanged || entriesChanged || restarted)) {
				const statusNow = restarted ? "active" : (link?.status ?? "active");
				await enqueueGrantEvent(
					trx,
					{ requestId: request.id, responseId: linkId, event: "grant.changed", status: statusNow, at: now },
					now,
				);
			}
			return { linkId, identity: proven?.id ?? "" };
		})
		.catch((err: unknown) => {
			if (isForeignKeyViolation(err))
				throw new AppError("conflict", "An entry changed while answering; send the answer again");
			throw err;
		});
	return {
		ok: true,
		responseId: result.linkId,
		linkId: result.linkId,
		completed: true,
		updated: existing !== undefined,
		identity: result.identity,
	};
}

// ---- grant events ----

async function announce(db: Db, linkId: string, event: GrantEventName, status: string, now: number) {
	const answer = await store.answerOfLink(db, linkId);
	if (!answer) return;
	await enqueueGrantEvent(
		db,
		{ requestId: answer.request, responseId: answer.id, event, status, at: now },
		now,
	);
	if (event === "grant.revoked") {
		// The requester learns in-app too (the request's creator, else its workspace's owner).
		await createNotification(
			db,
			{
				account: answer.request_account ?? answer.request_owner,
				workspace: answer.request_workspace,
				kind: "answer_revoked",
				title: `An answer to "${answer.request_label}" was revoked`,
				body: "The responder revoked the answer; its values are no longer readable.",
				data: { request: answer.request, responseId: answer.id },
			},
			now,
		);
	}
}

/** Pause and resume change an answer; revoking revokes it; reaching its expiry or view cap expires it. */
export async function onLinkStatus(db: Db, change: LinkStatusChange, now: number) {
	const event: GrantEventName =
		change.to === "revoked" ? "grant.revoked" : change.to === "expired" ? "grant.expired" : "grant.changed";
	await announce(db, change.link, event, change.to, now);
}

export async function onLinkDeleted(db: Db, linkId: string, now: number) {
	await announce(db, linkId, "grant.revoked", "revoked", now);
}

/**
 * A record change reaches every active answer resolving it, aliases and sections included:
 * `grant.changed`, or for a deletion that leaves the answer nothing, the answer is revoked.
 */
export async function onRecordsChanged(db: Db, change: RecordsChange, now: number) {
	const links = await store.answerLinksResolving(db, change.records);
	const changed: GrantEventInput[] = [];
	for (const link of links) {
		if (change.deleted && (await store.otherGrantedCount(db, link.id, change.records)) === 0) {
			const revoked = await linkStore.changeStatus(db, link.id, ["active"], "revoked", now);
			if (revoked) await announce(db, link.id, "grant.revoked", "revoked", now);
			continue;
		}
		changed.push({
			requestId: link.request,
			responseId: link.id,
			event: "grant.changed",
			status: "active",
			at: now,
		});
	}
	await enqueueGrantEvents(db, changed, now);
}

/** A deleted workspace takes its answers with it: each still standing is revoked. */
export async function onWorkspaceDeleted(db: Db, workspaceId: string, now: number) {
	for (const answer of await store.answersInWorkspace(db, workspaceId)) {
		if (answer.status === "active" || answer.status === "paused")
			await announce(db, answer.id, "grant.revoked", "revoked", now);
	}
}

export function registerAnswerHooks(hooks: GrantHooks) {
	hooks.onLinkStatus.push(onLinkStatus);
	hooks.onLinkDeleted.push(onLinkDeleted);
	hooks.onRecordsChanged.push(onRecordsChanged);
}

/** Answers whose expiry passed with nobody reading them: expire them and announce it. */
export async function sweepExpiredAnswers(
	db: Kysely<Database>,
	hooks: GrantHooks,
	now: number,
): Promise<number> {
	let expired = 0;
	for (const { id } of await store.expiredAnswerLinks(db, now, 500)) {
		await db.transaction().execute(async (trx) => {
			const changed = await linkStore.changeStatus(trx, id, ["active"], "expired", now);
			if (!changed) return;
			expired++;
			for (const hook of hooks.onLinkStatus)
				await hook(trx, { link: id, from: "active", to: "expired" }, now);
		});
	}
	return expired;
}

// ---- what a request collected ----

export async function requestLinks(
	db: Kysely<Database>,
	request: { id: string; items: string },
	page: number,
	perPage: number,
	now: number,
) {
	const requestId = request.id;
	const items = JSON.parse(request.items) as TemplateItem[];
	const labels = new Map(items.map((i) => [i.key, i.label]));
	const [total, rows] = await Promise.all([
		store.countAnswers(db, requestId),
		store.answersOfRequest(db, requestId, perPage, (page - 1) * perPage),
	]);
	// Template key -> record id: the linked entries and the records minted from typed values.
	const keysOf = new Map(
		rows.map((r) => [r.id, { ...JSON.parse(r.entries), ...JSON.parse(r.minted) } as Record<string, string>]),
	);
	const q = linkStore.publicQueries(db as Kysely<Database>);
	const out = [];
	for (const row of rows) {
		const status =
			row.status === null ? "revoked" : linkStatus({ status: row.status, expires_at: row.expires_at }, now);
		let values: {
			key: string;
			label: string;
			recordId: string;
			type: "value" | "file";
			value: string | null;
			file: { name: string; type: string; size: number; sha256: string } | null;
		}[] = [];
		if (status === "active" && row.link_workspace) {
			const { records } = await readGrants({ db, q }, { id: row.id, workspace: row.link_workspace });
			const byId = new Map(records.map((r) => [r.id, r]));
			values = Object.entries(keysOf.get(row.id) ?? {}).flatMap(([key, id]) => {
				const r = byId.get(id);
				if (!r) return [];
				return [
					{
						key,
						label: labels.get(key) ?? key,
						recordId: r.id,
						type: r.kind,
						value: r.kind === "file" ? null : r.alias !== null ? (r.target_value ?? "") : (r.value ?? ""),
						file:
							r.kind === "file"
								? {
										name: r.file_name ?? "file",
										type: r.file_type ?? "",
										size: r.file_size ?? 0,
										sha256: r.file_sha256 ?? "",
									}
								: null,
					},
				];
			});
			const order = new Map(items.map((i, n) => [i.key, n]));
			values.sort((a, b) => (order.get(a.key) ?? 1e9) - (order.get(b.key) ?? 1e9));
		}
		out.push({
			responseId: row.id,
			linkId: row.id,
			slug: status === "active" ? (row.slug ?? "") : "",
			remote: row.server !== null,
			...(row.server !== null ? { server: row.server } : {}),
			status,
			identity: row.identity ?? "",
			identifier: row.identifier,
			senderName: row.sender_name,
			values,
			created: new Date(row.created).toISOString(),
			updated: new Date(row.updated).toISOString(),
		});
	}
	return { page, perPage, totalItems: total, totalPages: Math.ceil(total / perPage), items: out };
}
