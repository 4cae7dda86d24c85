// The bulk read of grants (spec "Grants between servers", bulk read rules): each grant is asked for
// with its own token, and answers in the order asked. A grant that does not exist, one never handed
// out with a token and a wrong token answer the same `not_found` item: the same body, and the same
// work (one look-up, one hash, one constant-time compare against a stand-in hash when nothing was
// found). Reading a grant consumes no view: views cap the readers of a slug, and a grant is read
// by the server that holds it every `maxAge` seconds (docs/api.md "Grants between servers"). Its
// gates are the shares feature's for the `grantRead` reader: the status as it stands, values only
// while active.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { safeEqual, sha256Hex } from "../../lib/crypto.ts";
import { grantsOf, passGrantToken } from "../shares/service.ts";
import { currentValue, fileMeta } from "../vault/service.ts";
import * as store from "./store.ts";

export interface GrantAsk {
	id: string;
	token: string;
	etag?: string | undefined;
}

export interface GrantValue {
	key: string;
	type: "value" | "file";
	value: string | null;
	file: { name: string; type: string; size: number; sha256: string } | null;
}

export type GrantItem =
	| { id: string; status: "not_found"; code: "not_found"; maxAge: number; notModified: false }
	| {
			id: string;
			status: "active" | "paused" | "revoked" | "expired";
			etag: string;
			maxAge: number;
			notModified: boolean;
			values?: GrantValue[];
	  };

/** The current values a grant answers, by key in the order the grant lists them. */
export async function grantValues(
	db: Kysely<Database>,
	grant: { id: string; workspace: string; keys: string },
): Promise<GrantValue[]> {
	const { records } = await grantsOf(db, { id: grant.id, workspace: grant.workspace });
	const byId = new Map(records.map((r) => [r.id, r]));
	const keys = new Map<string, string>(Object.entries(JSON.parse(grant.keys) as Record<string, string>));
	const out: GrantValue[] = [];
	for (const [key, recordId] of keys) {
		const r = byId.get(recordId);
		if (!r) continue;
		out.push({ key, type: r.kind, value: currentValue(r), file: fileMeta(r) });
	}
	return out;
}

/** A weak entity tag over what the reader would see: the status and the values. */
export function grantEtag(status: string, values: GrantValue[] | undefined): string {
	return `W/"${sha256Hex(JSON.stringify([status, values ?? null])).slice(0, 32)}"`;
}

type GrantRow = NonNullable<Awaited<ReturnType<typeof store.grantById>>>;

async function answer(
	db: Kysely<Database>,
	ask: GrantAsk,
	row: GrantRow | undefined,
	maxAge: number,
	now: number,
): Promise<GrantItem> {
	// A revoked sign-in link is no grant either: the next sign-in that shares makes a new one.
	const passed = passGrantToken(row, ask.token, now);
	if (!row || !passed)
		return { id: ask.id, status: "not_found", code: "not_found", maxAge, notModified: false };
	const { status, values: readable } = passed;
	const values = readable ? await grantValues(db, row) : undefined;
	const etag = grantEtag(status, values);
	if (ask.etag !== undefined && safeEqual(ask.etag, etag)) {
		return { id: ask.id, status, etag, maxAge, notModified: true };
	}
	return { id: ask.id, status, etag, maxAge, notModified: false, ...(values ? { values } : {}) };
}

/**
 * One item per grant asked for, in the same order. The grants are looked up in one statement; each
 * is then answered on its own: the same hash and compare for a grant not found as for one found.
 */
export async function resolveGrants(
	db: Kysely<Database>,
	asks: readonly GrantAsk[],
	maxAge: number,
	now: number,
): Promise<GrantItem[]> {
	const rows = new Map(
		(await store.grantsByIds(db, [...new Set(asks.map((a) => a.id))])).map((r) => [r.id, r]),
	);
	const out: GrantItem[] = [];
	for (const ask of asks) out.push(await answer(db, ask, rows.get(ask.id), maxAge, now));
	return out;
}

/**
 * Whether a grant still stands for the holder of `token`, as userinfo lists it: the bulk read would
 * answer it (found, with this very token, not a sign-in link the person revoked) and it is active
 * or paused. A revoked, expired or deleted grant, or a token a later sign-in replaced, does not.
 */
export async function grantStands(
	db: Kysely<Database>,
	id: string,
	token: string,
	now: number,
): Promise<boolean> {
	const [row] = await store.grantsByIds(db, [id]);
	const status = passGrantToken(row, token, now)?.status;
	return status === "active" || status === "paused";
}
