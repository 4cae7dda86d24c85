// A file an answer grants, opened by the requester like any shared file (issue 39.3): the bytes
// never leave the responder's server except to the requester's browser, through a one-time
// `downloadToken` of the answer's share, served by the share's own file route (its gates, and a
// stamped copy on a watermarked share).
//   - the responder's half, `POST /api/grants/files`: the grant's holder presents the grant id,
//     token and key; the grant is checked as the bulk read checks it (passGrantToken) and a token is
//     minted that takes no view (the read log's `file` read with view 0);
//   - the requester's half, `POST /api/requests/{id}/links/{responseId}/files/{key}`: for a remote
//     answer, the responder's server is asked as itself (its DNS pin) and the address handed to the
//     requester's browser is built from that pinned base, never from what the other server says;
//     for an answer kept here, the token is minted here the same way.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError, errorCodes } from "../../http/errors.ts";
import { PEER_UNREACHABLE, type PeerOptions, resolvePeerKey } from "../../lib/peer.ts";
import { postPeerJson } from "../../lib/peer-client.ts";
import { findWorkspaceRequest } from "../requests/service.ts";
import { isWatermarked, mintViewlessDownload, passGrantToken, peekStatus } from "../shares/service.ts";
import * as store from "./store.ts";

export interface GrantFileAsk {
	id: string;
	token: string;
	key: string;
}

export interface GrantFile {
	slug: string;
	recordId: string;
	downloadToken: string;
	file: { name: string; type: string; size: number };
}

const noGrant = () => new AppError("not_found", "No grant has this id and token");

/** The watermark line of a file read through a grant: who it was sent to is the grant's holder. */
function grantLine(stamp: string, holder: string, now: number): string {
	return `${stamp} | ${holder} | ${new Date(now).toISOString().slice(0, 10)}`;
}

/**
 * The responder's half: a one-time download of the file the grant answers under `key`. A wrong
 * token, an unknown grant and one never handed out with a token are the same 404 `not_found` (the
 * same work, as the bulk read does them); a grant not active is 404 `link_paused`, `link_revoked`
 * or `link_expired`; a key that names no file the share still grants is 404 `record_not_found`.
 */
export async function grantFile(db: Kysely<Database>, ask: GrantFileAsk, now: number): Promise<GrantFile> {
	const [row] = await store.grantsByIds(db, [ask.id]);
	const passed = passGrantToken(row, ask.token, now);
	if (!row || !passed) throw noGrant();
	const { status, values } = passed;
	if (!values) throw new AppError(`link_${status as "paused" | "revoked" | "expired"}`);
	const keys = new Map<string, string>(Object.entries(JSON.parse(row.keys) as Record<string, string>));
	const recordId = keys.get(ask.key);
	const line = isWatermarked(row) ? grantLine(row.stamp ?? "", row.peer ?? "grant", now) : null;
	const minted = recordId
		? await mintViewlessDownload(db, { id: row.id, workspace: row.workspace }, recordId, line, now)
		: undefined;
	if (!recordId || !minted)
		throw new AppError("record_not_found", "The grant answers no file under this key");
	const { name, type, size } = minted.file;
	return { slug: row.slug, recordId, downloadToken: minted.token, file: { name, type, size } };
}

export interface AnswerFileDeps {
	db: Kysely<Database>;
	peer: PeerOptions;
	/** This server's origin: where the file of an answer kept here is downloaded. */
	origin: string;
	now: number;
}

export interface AnswerFile {
	/** Where the requester's browser downloads it once, within ten minutes. */
	url: string;
	name: string;
	type: string;
	size: number;
}

const unreachable = (detail: string) =>
	new AppError("remote_unreachable", `The responder's server ${PEER_UNREACHABLE}`, { internal: detail });

const fileUrl = (base: string, f: GrantFile) =>
	`${base}/api/public/links/${encodeURIComponent(f.slug)}/files/${encodeURIComponent(f.recordId)}?dl=${encodeURIComponent(f.downloadToken)}`;

/** What the responder's server answered, if it has the shape of a GrantFile. */
function asGrantFile(body: unknown): GrantFile | undefined {
	const b = (body ?? {}) as Record<string, unknown>;
	const f = (b.file ?? {}) as Record<string, unknown>;
	const ok =
		typeof b.slug === "string" &&
		/^[A-Za-z0-9_-]{1,128}$/.test(b.slug) &&
		typeof b.recordId === "string" &&
		/^[A-Za-z0-9_-]{1,128}$/.test(b.recordId) &&
		typeof b.downloadToken === "string" &&
		b.downloadToken.length <= 256 &&
		typeof f.name === "string" &&
		typeof f.size === "number";
	if (!ok) return undefined;
	return {
		slug: b.slug as string,
		recordId: b.recordId as string,
		downloadToken: b.downloadToken as string,
		file: {
			name: String(f.name).slice(0, 255),
			type: typeof f.type === "string" ? f.type.slice(0, 255) : "application/octet-stream",
			size: Number(f.size),
		},
	};
}

/**
 * The requester's half: the file an answer of request `requestId` (in the caller's workspace) gives
 * under `key`, as a one-time address for the requester's browser. 404 `not_found` for an answer
 * that is not this request's.
 */
export async function answerFile(
	deps: AnswerFileDeps,
	workspaceId: string,
	requestId: string,
	responseId: string,
	key: string,
): Promise<AnswerFile> {
	const { db, now } = deps;
	const request = await findWorkspaceRequest(db, workspaceId, requestId);
	const row = await db
		.selectFrom("request_answers")
		.leftJoin("links", "links.id", "request_answers.id")
		.select([
			"request_answers.server",
			"request_answers.grant_id",
			"request_answers.grant_token",
			"request_answers.minted",
			"request_answers.entries",
			"links.workspace as link_workspace",
			"links.slug",
			"links.status",
			"links.expires_at",
			"links.max_views",
			"links.view_count",
			"links.stamp",
			"links.purpose",
		])
		.where("request_answers.id", "=", responseId)
		.where("request_answers.request", "=", request.id)
		.executeTakeFirst();
	if (!row) throw new AppError("not_found", "This request has no such answer");

	if (row.server === null) {
		// Kept here: its share read as the requester reads it (the remoteAnswer reader), values while active.
		if (!row.link_workspace || row.slug === null || row.status === null) throw new AppError("link_revoked");
		const { status, values } = peekStatus(
			"remoteAnswer",
			{
				status: row.status,
				expires_at: row.expires_at,
				max_views: row.max_views,
				view_count: row.view_count ?? 0,
			},
			now,
		);
		if (!values) throw new AppError(`link_${status as "paused" | "revoked" | "expired"}`);
		const keys = new Map<string, string>(
			Object.entries({ ...JSON.parse(row.entries), ...JSON.parse(row.minted) } as Record<string, string>),
		);
		const recordId = keys.get(key);
		const stamped = row.stamp !== null || row.purpose === "application";
		const line = stamped ? grantLine(row.stamp ?? "", "requester", now) : null;
		const minted = recordId
			? await mintViewlessDownload(db, { id: responseId, workspace: row.link_workspace }, recordId, line, now)
			: undefined;
		if (!recordId || !minted)
			throw new AppError("record_not_found", "The answer gives no file under this key");
		const f = { slug: row.slug, recordId, downloadToken: minted.token, file: minted.file };
		return { url: fileUrl(deps.origin, f), name: f.file.name, type: f.file.type, size: f.file.size };
	}

	// Kept on the responder's server: asked as itself, with the grant's token.
	if (!row.grant_id || !row.grant_token) throw new AppError("link_revoked");
	const pin = await resolvePeerKey(row.server, deps.peer);
	if (pin.state !== "verified") throw unreachable(`${row.server}: ${pin.reason}`);
	let answer: { status: number; body: unknown };
	try {
		answer = await postPeerJson(
			`${pin.base}/api/grants/files`,
			{ id: row.grant_id, token: row.grant_token, key },
			{ ...deps.peer, timeoutMs: deps.peer.timeoutMs ?? 10_000 },
		);
	} catch (err) {
		throw unreachable(`${row.server}: ${(err as Error).message}`);
	}
	if (answer.status === 200) {
		const f = asGrantFile(answer.body);
		if (!f) throw unreachable(`${row.server}/api/grants/files answered 200 without a file`);
		return { url: fileUrl(pin.base, f), name: f.file.name, type: f.file.type, size: f.file.size };
	}
	// Its refusal, when it is one of the grant's: the grant gone is a revoked answer to the requester.
	const code = String((answer.body as { code?: unknown } | undefined)?.code ?? "");
	if (answer.status === 404 && code === "not_found") throw new AppError("link_revoked");
	const known = ["link_paused", "link_revoked", "link_expired", "record_not_found"] as const;
	const hit = known.find((k) => k === code);
	if (answer.status === 404 && hit && Object.hasOwn(errorCodes, hit)) throw new AppError(hit);
	throw unreachable(`${row.server}/api/grants/files answered ${answer.status}`);
}
