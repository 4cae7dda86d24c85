// What the requester takes away from a request's answers: the answers as CSV (values read live at
// export, GET /api/requests/{id}/links.csv), and an answered file, opened through the answer's share
// like any shared file: a resolve (the share's gates and view count apply) then its download token
// (stamped when the responder watermarked the share). docs/console.md "Requests".
import { ApiError, request } from "../../api.ts";
import { activeWorkspace, sessionToken } from "../../session.ts";

function save(href: string, name: string): void {
	const link = document.createElement("a");
	link.href = href;
	link.download = name;
	link.hidden = true;
	document.body.append(link);
	link.click();
	link.remove();
}

export async function downloadAnswersCsv(requestId: string, label: string): Promise<void> {
	const headers: Record<string, string> = { authorization: `Bearer ${sessionToken.get() ?? ""}` };
	const workspace = activeWorkspace.get();
	if (workspace) headers["x-workspace"] = workspace;
	const res = await fetch(`/api/requests/${encodeURIComponent(requestId)}/links.csv`, {
		headers,
		credentials: "omit",
	}).catch(() => {
		throw new ApiError(0, "network", {});
	});
	if (!res.ok) {
		const problem = (await res.json().catch(() => ({}))) as { code?: string };
		throw new ApiError(res.status, problem.code ?? `http_${res.status}`, problem);
	}
	const url = URL.createObjectURL(await res.blob());
	save(url, `${label} answers.csv`);
	setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

interface Resolved {
	records: { id: string; downloadToken?: string }[];
}

/** Opens the file `recordId` of the answer's share `slug` through the public share API. */
export async function openAnsweredFile(slug: string, recordId: string, name: string): Promise<void> {
	const path = `/api/public/links/${encodeURIComponent(slug)}`;
	const { data } = await request<Resolved>("POST", path, { auth: false, body: {} });
	const token = data.records.find((r) => r.id === recordId)?.downloadToken;
	if (!token) throw new ApiError(404, "record_not_found", {});
	save(`${path}/files/${encodeURIComponent(recordId)}?dl=${encodeURIComponent(token)}`, name);
}
