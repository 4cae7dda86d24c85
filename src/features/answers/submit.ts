// Answering a request on this server (spec "Requests and remote answers", submission rules). An
// answer is a share in the responder's own workspace: typed values are minted as records there,
// vault-linked fields grant the responder's existing records, and the share grants both. The
// share's id is the `responseId`, stable across answers by the same account: answering again
// updates, never duplicates. The gates are the request's (gates.ts `passRequestGates`): its
// status, then the password and handshake gates shares use, in that order.
import type { Kysely, Transaction } from "kysely";
import { isForeignKeyViolation } from "../../db/errors.ts";
import type { Database } from "../../db/schema.ts";
import type { Caller } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { newId } from "../../lib/crypto.ts";
import { enqueueGrantEvent, enqueueSubmission } from "../callbacks/service.ts";
import { invalidField } from "../collections/fields.ts";
import { isWorkspaceIdentity } from "../identity/service.ts";
import { renewShare } from "../shares/service.ts";
import { dropMinted, mintValue, recordKinds, setMintedValue } from "../vault/service.ts";
import type { TemplateItem } from "../vault/templates/service.ts";
import { localProof, passRequestGates } from "./gates.ts";
import { notifyAnswered } from "./notices.ts";
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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9][0-9 ().\-/]{2,39}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Checks a typed value against its item's type; answers the value to store (trimmed). */
export function checkValue(key: string, type: string, raw: string, field = `values.${key}`): string {
	const value = raw.trim();
	const bad = (what: string) => invalidField(field, what);
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

export interface Plan {
	/** Template key -> value to mint, with the item it answers. */
	typed: Map<string, { value: string; label: string }>;
	/** Template key -> responder record id. */
	linked: Map<string, string>;
	/** Keys in answer order: the template's, then extras in the order given. */
	order: string[];
}

/** Checks the values and entries against the template; nothing is written. */
export async function plan(
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
		(await recordKinds(db, workspaceId, [...new Set(linked.values())])).map((r) => [r.id, r]),
	);
	for (const [key, id] of linked) {
		const record = records.get(id);
		if (!record) throw invalidField(`entries.${key}`, "is not a record of your workspace");
		const type = byKey.get(key)?.type;
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
	const gates = await passRequestGates(db, slug, input, now, localProof(db, slug, input, now));
	const { request, identifier, proof: proven } = gates;

	const items = JSON.parse(request.items) as TemplateItem[];
	const existing = await store.findAnswer(db, request.id, caller.accountId);
	if (existing && existing.workspace !== caller.workspaceId) {
		throw new AppError(
			"conflict",
			"Your answer is kept in another workspace: answer again from it (X-Workspace)",
			{ extra: { workspace: existing.workspace } },
		);
	}
	const workspaceId = caller.workspaceId;
	const p = await plan(db, workspaceId, items, request.allow_extra_fields === 1, input);
	const data = Object.fromEntries([...p.typed].map(([k, v]) => [k, v.value]));
	const senderName = (input.senderName ?? "").trim().slice(0, 200);

	// An entry deleted between the checks above and this write breaks a foreign key: refused, nothing kept.
	const linkId = await db
		.transaction()
		.execute(async (trx) => {
			const linkId = existing?.id ?? newId();
			// Maps, not plain objects: a template key may be `constructor` or `__proto__`.
			const oldMinted = new Map<string, string>(existing ? Object.entries(JSON.parse(existing.minted)) : []);
			const oldEntries: Record<string, string> = existing ? JSON.parse(existing.entries) : {};
			const { minted, changed: valuesChanged } = await keepMinted(trx, workspaceId, p, oldMinted, now);
			const entries = Object.fromEntries(p.linked);
			const entriesChanged =
				JSON.stringify(Object.entries(entries).sort()) !== JSON.stringify(Object.entries(oldEntries).sort());

			// The share names the identity only when it is one of the workspace holding the answer.
			const identityHere = proven?.id && (await isWorkspaceIdentity(trx, workspaceId, proven.id));
			const granted = p.order
				.map((k) => minted.get(k) ?? p.linked.get(k))
				.filter((id): id is string => id !== undefined);
			const link = await renewShare(
				trx,
				linkId,
				{
					id: linkId,
					workspace: workspaceId,
					label: `Answer: ${request.label}`.slice(0, 200),
					identity: identityHere ? (proven?.id ?? null) : null,
					created_by: caller.accountId,
				},
				[...new Set(granted)],
				now,
			);

			const row = store.answerRow({
				kind: "local",
				id: linkId,
				request: request.id,
				account: caller.accountId,
				workspace: workspaceId,
				identity: proven?.id ?? null,
				identifier,
				sender_name: senderName,
				data: JSON.stringify(data),
				minted: JSON.stringify(Object.fromEntries(minted)),
				entries: JSON.stringify(entries),
				created: existing?.created ?? now,
				updated: now,
			});
			await store.writeAnswer(trx, row, existing !== undefined);

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
			await notifyAnswered(trx, linkId, existing !== undefined, now);
			if (existing && (valuesChanged || entriesChanged || link.restarted)) {
				await enqueueGrantEvent(
					trx,
					{ requestId: request.id, responseId: linkId, event: "grant.changed", status: link.status, at: now },
					now,
				);
			}
			return linkId;
		})
		.catch((err: unknown) => {
			if (isForeignKeyViolation(err))
				throw new AppError("conflict", "An entry changed while answering; send the answer again");
			throw err;
		});
	return {
		ok: true,
		responseId: linkId,
		linkId,
		completed: true,
		updated: existing !== undefined,
		identity: proven?.id ?? "",
	};
}

/**
 * Typed values: the record minted for the key before gets the new value, else one is minted;
 * minted records the answer no longer uses go. Answers the key -> record map and whether any
 * value changed.
 */
export async function keepMinted(
	db: Db,
	workspaceId: string,
	p: Plan,
	oldMinted: ReadonlyMap<string, string>,
	now: number,
): Promise<{ minted: Map<string, string>; changed: boolean }> {
	const minted = new Map<string, string>();
	let changed = false;
	for (const [key, { value, label }] of p.typed) {
		const prior = oldMinted.get(key);
		const updated = prior ? await setMintedValue(db, workspaceId, prior, value, now) : undefined;
		if (prior && updated !== undefined) {
			changed ||= updated;
			minted.set(key, prior);
			continue;
		}
		changed = true;
		minted.set(key, await mintValue(db, workspaceId, { key, name: label.slice(0, 200), value }, now));
	}
	for (const [key, id] of oldMinted) {
		if (minted.get(key) === id) continue;
		changed = true;
		await dropMinted(db, id);
	}
	return { minted, changed };
}
