// /answer/<slug>: who asks and what (the request's probe), then the form filled from the signed-in
// responder's vault, then what was shared. Without a slug: a field for the link that was sent.
import { useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { navigate } from "../../router.ts";
import type { ScreenProps } from "../../screen.ts";
import { hasScope, me } from "../../session.ts";
import { useObservable } from "../../state.ts";
import { Button, ErrorAlert, LoadState, Notice, Page, TextField, useLoad } from "../../ui/index.ts";
import { AnswerForm, type Shared } from "./form.tsx";
import { messages } from "./messages.ts";
import { RemoteAnswer } from "./remote.tsx";
import { Requester } from "./requester.tsx";
import { AnswerDone } from "./result.tsx";
import { SignedOutAnswer } from "./signed-out.tsx";
import { type Answered, probe, records, type VaultRecord } from "./types.ts";

/** The slug in a pasted answer link (…/app/answer/<slug>), or the slug itself. */
function slugFrom(text: string): string | null {
	const value = text.trim();
	const found = /\/answer\/([A-Za-z0-9_-]+)/.exec(value)?.[1] ?? value;
	return /^[A-Za-z0-9_-]{8,128}$/.test(found) ? found : null;
}

function AskForLink() {
	const t = useT(messages);
	const [link, setLink] = useState("");
	const [error, setError] = useState<string | null>(null);
	return (
		<Page title={t("nav")}>
			<p>{t("askForLink")}</p>
			<form
				onSubmit={(e) => {
					e.preventDefault();
					const slug = slugFrom(link);
					if (slug) navigate(`/answer/${slug}`);
					else setError(t("linkMalformed"));
				}}
				noValidate
			>
				<TextField label={t("linkLabel")} value={link} onInput={setLink} error={error} autocomplete="off" />
				<Button type="submit" variant="primary">
					{t("open")}
				</Button>
			</form>
		</Page>
	);
}

function Answering({ slug }: { slug: string }) {
	const t = useT(messages);
	const account = useObservable(me);
	const state = useLoad(async () => {
		const [p, vault] = await Promise.all([
			probe(slug),
			account && hasScope("record:read") ? records.all() : Promise.resolve<VaultRecord[]>([]),
		]);
		return { p, vault };
	}, [slug]);
	const [done, setDone] = useState<{ result: Answered; shared: Shared[] } | null>(null);
	if (state.error instanceof ApiError && state.error.status === 404 && !state.data) {
		return (
			<Page title={t("notFound")}>
				<p>{t("notFoundText")}</p>
			</Page>
		);
	}
	if (!state.data) {
		return (
			<Page title={t("nav")}>
				<LoadState state={state}>{() => null}</LoadState>
			</Page>
		);
	}
	const { p, vault } = state.data;
	if (!account) return <SignedOutAnswer slug={slug} probe={p} />;
	return (
		<Page title={p.label}>
			<p class="intro">{t("intro", { name: p.requester.name })}</p>
			<Requester probe={p} />
			{p.status !== "open" ? (
				<Notice>{t(p.status === "closed" ? "closedText" : "expiredText")}</Notice>
			) : done ? (
				<AnswerDone
					probe={p}
					result={done.result}
					shared={done.shared}
					onAgain={() => {
						setDone(null);
						state.reload();
					}}
				/>
			) : (
				<AnswerForm
					key={vault.map((r) => r.id).join()}
					slug={slug}
					probe={p}
					vault={vault}
					onAnswered={(result, shared) => setDone({ result, shared })}
				/>
			)}
			{state.error ? <ErrorAlert error={state.error} /> : null}
		</Page>
	);
}

export default function AnswerScreen({ subpath, route }: ScreenProps) {
	const account = useObservable(me);
	const slug = subpath.replace(/^\//, "");
	if (slug === "remote") {
		return <RemoteAnswer server={route.query.get("server") ?? ""} slug={route.query.get("slug") ?? ""} />;
	}
	if (!slug) return <AskForLink />;
	return <Answering key={`${slug}:${account ? "in" : "out"}`} slug={decodeURIComponent(slug)} />;
}
