// Downloads a file record's bytes: a two-minute token from POST /api/files/token, then the browser
// fetches GET /api/files/{id}?token= itself (docs/api.md "Files"), so large files never pass
// through script memory.
import { request } from "../../api.ts";
import type { VaultRecord } from "./types.ts";

export async function downloadFile(entry: VaultRecord): Promise<void> {
	const { data } = await request<{ token: string; expiresAt: string }>("POST", "/api/files/token");
	const link = document.createElement("a");
	link.href = `/api/files/${encodeURIComponent(entry.id)}?token=${encodeURIComponent(data.token)}`;
	link.download = entry.file?.name ?? entry.name;
	link.hidden = true;
	document.body.append(link);
	link.click();
	link.remove();
}
