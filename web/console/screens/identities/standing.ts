// An identity's published standing: GET /api/identities/{fingerprint}/status (no credential), the
// signed answer verifiers see. Read past the browser's cache (the answer is public for five
// minutes), so a revocation made here shows at once.
import { ApiError, type Problem } from "../../api.ts";

export interface Standing {
	status: "active" | "revoked" | "unknown";
	domain: string;
	/** ISO 8601: when the server signed it, and until when a verifier may keep it. */
	issued: string;
	expires: string;
}

interface Payload {
	type: string;
	fingerprint: string;
	status: Standing["status"];
	domain: string;
	iat: number;
	exp: number;
}

function decodePayload(payload: string): Payload {
	const base64 = payload.replace(/-/g, "+").replace(/_/g, "/");
	const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
	return JSON.parse(new TextDecoder().decode(bytes)) as Payload;
}

export async function readStanding(fingerprint: string): Promise<Standing> {
	let res: Response;
	try {
		res = await fetch(`/api/identities/${encodeURIComponent(fingerprint)}/status`, {
			headers: { accept: "application/json" },
			credentials: "omit",
			cache: "no-store",
		});
	} catch {
		throw new ApiError(0, "network", {});
	}
	if (!res.ok) {
		const problem = ((await res.json().catch(() => ({}))) ?? {}) as Problem;
		throw new ApiError(
			res.status,
			typeof problem.code === "string" ? problem.code : `http_${res.status}`,
			problem,
		);
	}
	const { payload } = (await res.json()) as { payload: string; signature: string };
	const p = decodePayload(payload);
	return {
		status: p.status,
		domain: p.domain,
		issued: new Date(p.iat * 1000).toISOString(),
		expires: new Date(p.exp * 1000).toISOString(),
	};
}
