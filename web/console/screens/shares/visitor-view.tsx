// "See what visitors see": the share page as a reader who passed its gates gets it
// (GET /api/links/{id}/preview, docs/api.md "The owner's preview"), without a view and without a
// line in the read log, shown in a frame that runs no script and sends no form (sandboxed; of this
// origin, so that the page's stylesheet, which only this origin may load, applies).
import { ApiError, type Problem } from "../../api.ts";
import { useLocale, useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { activeWorkspace, endSession, sessionToken } from "../../session.ts";
import { LoadState, Notice, Page, useLoad } from "../../ui/index.ts";
import { changeMessages } from "./change-messages.ts";
import { messages } from "./messages.ts";
import { type Share, shares } from "./types.ts";

/** The preview's HTML, asked with the session's headers (the JSON client reads JSON only). */
async function previewHtml(id: string, lang: string): Promise<string> {
	const headers: Record<string, string> = { accept: "text/html" };
	const token = sessionToken.get();
	if (token) headers.authorization = `Bearer ${token}`;
	const workspace = activeWorkspace.get();
	if (token && workspace) headers["x-workspace"] = workspace;
	let res: Response;
	try {
		res = await fetch(`/api/links/${encodeURIComponent(id)}/preview?lang=${lang}`, {
			headers,
			credentials: "omit",
		});
	} catch {
		throw new ApiError(0, "network", {});
	}
	if (!res.ok) {
		const problem = ((await res.json().catch(() => ({}))) ?? {}) as Problem;
		const code = typeof problem.code === "string" ? problem.code : `http_${res.status}`;
		if (res.status === 401 && code === "not_authenticated" && token) endSession("not_authenticated");
		throw new ApiError(res.status, code, problem);
	}
	return res.text();
}

async function load(id: string, lang: string): Promise<{ share: Share; html: string }> {
	const [share, html] = await Promise.all([shares.view(id), previewHtml(id, lang)]);
	return { share, html };
}

export function VisitorView({ id }: { id: string }) {
	const lang = useLocale();
	const state = useLoad(() => load(id, lang), [id, lang]);
	return <LoadState state={state}>{(loaded) => <Loaded {...loaded} />}</LoadState>;
}

function Loaded({ share, html }: { share: Share; html: string }) {
	const t = useT(messages);
	const c = useT(changeMessages);
	const label = share.label || t("untitled");
	return (
		<Page title={c("previewTitle", { label })}>
			<p>
				<Link href={`/shares/${encodeURIComponent(share.id)}`}>{c("backToShare")}</Link>
			</p>
			<Notice>
				<p>{c("previewIntro")}</p>
				{share.requiresPassword || share.requireHandshake ? <p>{c("previewGates")}</p> : null}
			</Notice>
			<iframe
				class="share-visitor-frame"
				title={c("previewFrame", { label })}
				sandbox="allow-same-origin"
				srcdoc={html}
			/>
		</Page>
	);
}
