// A request's answers as CSV (`GET /api/requests/{id}/links.csv`, issue 39.3): one row per answer,
// its values read live through each answer's grant at the moment of export, exactly as
// `GET /api/requests/{id}/links` reads them (a share's gates for an answer kept here, a bulk grant
// read for one kept on another server). An answer that is not active has its status and no values.
import { stringify } from "csv-stringify/sync";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { inertCell } from "../../lib/csv-cell.ts";
import { findWorkspaceRequest } from "../requests/service.ts";
import type { TemplateItem } from "../vault/templates/service.ts";
import { type RemoteReader, requestLinks } from "./collected.ts";

/** Answers read per page while exporting (the listing's own bound). */
const PAGE = 500;

const FIXED = [
	"responseId",
	"status",
	"server",
	"identity",
	"identifier",
	"senderName",
	"created",
	"updated",
];

export async function answersCsv(
	db: Kysely<Database>,
	workspaceId: string,
	requestId: string,
	now: number,
	readRemote?: RemoteReader,
): Promise<{ label: string; csv: string }> {
	const request = await findWorkspaceRequest(db, workspaceId, requestId);
	const items = JSON.parse(request.items) as TemplateItem[];
	const answers = [];
	for (let page = 1; ; page++) {
		const got = await requestLinks(db, workspaceId, requestId, page, PAGE, now, readRemote);
		answers.push(...got.items);
		if (page >= got.totalPages) break;
	}
	// The template's keys in order, then any key an answer gave beyond it (allowExtraFields).
	const keys = items.map((i) => i.key);
	for (const a of answers) for (const v of a.values) if (!keys.includes(v.key)) keys.push(v.key);
	const rows: string[][] = [[...FIXED, ...keys]];
	for (const a of answers) {
		const byKey = new Map(a.values.map((v) => [v.key, v.value ?? v.file?.name ?? ""]));
		rows.push(
			[
				a.responseId,
				a.status,
				a.server ?? "",
				a.identity,
				a.identifier,
				a.senderName,
				a.created,
				a.updated,
				...keys.map((k) => byKey.get(k) ?? ""),
			].map(inertCell),
		);
	}
	const csv = stringify(rows, {
		bom: true,
		record_delimiter: "windows",
		quote_record_delimiter: true,
		quoted_match: ";",
	});
	return { label: request.label, csv };
}
