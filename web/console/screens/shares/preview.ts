// The stamp preview: POST /api/stamp-preview answers a stamped copy of a file as an attachment
// (docs/api.md "Preview"), which the JSON client in api.ts does not read, so this call is made
// here with the session's headers; a refusal becomes the same ApiError as anywhere else.
import { ApiError, type Problem } from "../../api.ts";
import { activeWorkspace, endSession, sessionToken } from "../../session.ts";

export interface StampedCopy {
	blob: Blob;
	/** The file name the server gives it (`<name>-preview<ext>`). */
	name: string;
	type: string;
}

/** `filename*` (RFC 8187) when present, else `filename`, from a Content-Disposition header. */
export function fileNameOf(disposition: string | null, fallback: string): string {
	if (!disposition) return fallback;
	const extended = /filename\*\s*=\s*UTF-8''([^;]+)/i.exec(disposition);
	if (extended?.[1]) {
		try {
			return decodeURIComponent(extended[1].trim());
		} catch {
			// A malformed encoding: fall back to the plain name.
		}
	}
	const plain = /filename\s*=\s*"?([^";]+)"?/i.exec(disposition);
	return plain?.[1]?.trim() || fallback;
}

/** The stamped copy of `record` with `text` (or with a share's own line when `link` is given). */
export async function stampPreview(body: {
	record: string;
	text?: string;
	link?: string;
}): Promise<StampedCopy> {
	const headers: Record<string, string> = { "content-type": "application/json", accept: "*/*" };
	const token = sessionToken.get();
	if (token) headers.authorization = `Bearer ${token}`;
	const workspace = activeWorkspace.get();
	if (token && workspace) headers["x-workspace"] = workspace;
	let res: Response;
	try {
		res = await fetch("/api/stamp-preview", {
			method: "POST",
			headers,
			credentials: "omit",
			body: JSON.stringify(body),
		});
	} catch {
		throw new ApiError(0, "network", {});
	}
	if (!res.ok) {
		let problem: Problem = {};
		try {
			problem = (await res.json()) as Problem;
		} catch {
			// Not JSON: the status still says what happened.
		}
		const code = typeof problem.code === "string" ? problem.code : `http_${res.status}`;
		if (res.status === 401 && code === "not_authenticated" && token) endSession("not_authenticated");
		throw new ApiError(res.status, code, problem);
	}
	const blob = await res.blob();
	const type = (res.headers.get("content-type") ?? blob.type).split(";")[0]?.trim() ?? "";
	return { blob, type, name: fileNameOf(res.headers.get("content-disposition"), "preview") };
}

/** A blob as a `data:` URL: the CSP lets images load from `data:` (not from `blob:`). */
export function dataUrl(blob: Blob): Promise<string> {
	return new Promise((resolve, reject) => {
		const reader = new FileReader();
		reader.onload = () => resolve(String(reader.result));
		reader.onerror = () => reject(reader.error ?? new Error("read failed"));
		reader.readAsDataURL(blob);
	});
}
