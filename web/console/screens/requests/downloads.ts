// What the requester takes away from a request's answers: the answers as CSV (values read live at
// export, GET /api/requests/{id}/links.csv), and an answered file, kept here or on the responder's
// own server, opened through the answer's share like any shared file with a one-time address
// (POST /api/requests/{id}/links/{responseId}/files/{key}; stamped when the responder watermarked
// the share). docs/console.md "Requests".
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

/**
 * Opens the file an answer gives under `key`: the server hands a one-time address (on this server
 * for an answer kept here, on the responder's server for a remote one) that the browser downloads
 * once, through the answer's share with its gates and watermark, taking no view.
 */
export async function openAnsweredFile(
	requestId: string,
	responseId: string,
	key: string,
	name: string,
): Promise<void> {
	const path = `/api/requests/${encodeURIComponent(requestId)}/links/${encodeURIComponent(responseId)}/files/${encodeURIComponent(key)}`;
	const { data } = await request<{ url: string }>("POST", path, { body: {} });
	save(data.url, name);
}
