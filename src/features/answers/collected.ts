// What a request collected (`GET /api/requests/{id}/links`): its answers in the order they first
// came, each with its status and, while it is active, the current values read through the answer's
// share, exactly as a reader of the share would read them.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { findWorkspaceRequest } from "../requests/service.ts";
import { grantsOf, peekStatus } from "../shares/service.ts";
import { currentValue, fileMeta } from "../vault/service.ts";
import type { TemplateItem } from "../vault/templates/service.ts";
import * as store from "./store.ts";

type AnswerRow = Awaited<ReturnType<typeof store.answersOfRequest>>[number];

/** The answer's values by template key (linked entries and records minted from typed values), in template order. */
async function valuesOf(db: Kysely<Database>, row: AnswerRow, items: TemplateItem[]) {
	if (!row.link_workspace) return [];
	const { records } = await grantsOf(db, { id: row.id, workspace: row.link_workspace });
	const byId = new Map(records.map((r) => [r.id, r]));
	const keys: Record<string, string> = { ...JSON.parse(row.entries), ...JSON.parse(row.minted) };
	const labels = new Map(items.map((i) => [i.key, i.label]));
	const values = Object.entries(keys).flatMap(([key, id]) => {
		const r = byId.get(id);
		if (!r) return [];
		return [
			{
				key,
				label: labels.get(key) ?? key,
				recordId: r.id,
				type: r.kind,
				value: currentValue(r),
				file: fileMeta(r),
			},
		];
	});
	const order = new Map(items.map((i, n) => [i.key, n]));
	return values.sort((a, b) => (order.get(a.key) ?? 1e9) - (order.get(b.key) ?? 1e9));
}

/** Reads remote answers' values (grouped by server, one bulk read each); undefined when the server cannot be asked. */
export type RemoteReader = (
	server: string,
	/** `changedAt`: when a signed event last told of a change (ms); values kept from before are read again. */
	grants: { id: string; token: string; changedAt: number }[],
) => Promise<Map<string, { status: string; values: RemoteValue[] }> | undefined>;

export interface RemoteValue {
	key: string;
	type: "value" | "file";
	value: string | null;
	file: { name: string; type: string; size: number; sha256: string } | null;
}

export async function requestLinks(
	db: Kysely<Database>,
	workspaceId: string,
	requestId: string,
	page: number,
	perPage: number,
	now: number,
	readRemote?: RemoteReader,
) {
	const request = await findWorkspaceRequest(db, workspaceId, requestId);
	const items = JSON.parse(request.items) as TemplateItem[];
	const [total, rows] = await Promise.all([
		store.countAnswers(db, request.id),
		store.answersOfRequest(db, request.id, perPage, (page - 1) * perPage),
	]);
	// Remote answers: one bulk read per server for the page.
	const byServer = new Map<string, { id: string; token: string; changedAt: number }[]>();
	for (const row of rows) {
		if (row.server === null || !row.grant_id || !row.grant_token) continue;
		const list = byServer.get(row.server) ?? [];
		list.push({ id: row.grant_id, token: row.grant_token, changedAt: row.remote_at ?? 0 });
		byServer.set(row.server, list);
	}
	const remote = new Map<string, Map<string, { status: string; values: RemoteValue[] }> | undefined>();
	for (const [server, grants] of byServer)
		remote.set(server, readRemote ? await readRemote(server, grants) : undefined);
	const labels = new Map(items.map((i) => [i.key, i.label]));
	const out = [];
	for (const row of rows) {
		if (row.server !== null) {
			const read = remote.get(row.server);
			const got = read?.get(row.grant_id ?? "");
			const status = got
				? got.status === "not_found"
					? "revoked"
					: got.status
				: (row.remote_status ?? "active");
			out.push({
				responseId: row.id,
				linkId: row.id,
				slug: "",
				remote: true,
				server: row.server,
				status,
				...(read === undefined ? { unreachable: true } : {}),
				identity: row.identity ?? "",
				identifier: row.identifier,
				senderName: row.sender_name,
				values:
					got && status === "active"
						? got.values.map((v) => ({
								key: v.key,
								label: labels.get(v.key) ?? v.key,
								recordId: "",
								type: v.type,
								value: v.value,
								file: v.file,
							}))
						: [],
				created: new Date(row.created).toISOString(),
				updated: new Date(row.updated).toISOString(),
			});
			continue;
		}
		// The answer's share as the `remoteAnswer` reader sees it (shares' gates); a share deleted by
		// its holder reads as revoked.
		const seen =
			row.status === null
				? { status: "revoked" as const, values: false }
				: peekStatus(
						"remoteAnswer",
						{
							status: row.status,
							expires_at: row.expires_at,
							max_views: row.max_views,
							view_count: row.view_count ?? 0,
						},
						now,
					);
		const { status } = seen;
		out.push({
			responseId: row.id,
			linkId: row.id,
			slug: seen.values ? (row.slug ?? "") : "",
			remote: row.server !== null,
			...(row.server !== null ? { server: row.server } : {}),
			status,
			identity: row.identity ?? "",
			identifier: row.identifier,
			senderName: row.sender_name,
			values: seen.values ? await valuesOf(db, row, items) : [],
			created: new Date(row.created).toISOString(),
			updated: new Date(row.updated).toISOString(),
		});
	}
	return { page, perPage, totalItems: total, totalPages: Math.ceil(total / perPage), items: out };
}
