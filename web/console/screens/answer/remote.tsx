// /answer/remote?server=<domain>&slug=<slug> on the responder's own server: another server's request
// (read by this server through that server's DNS pin) answered from this vault, kept here and
// relayed there (docs/api.md "Remote answers"). Signed out: sign in here first.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { serverInfo } from "../../server-info.ts";
import { hasScope, me } from "../../session.ts";
import { useObservable } from "../../state.ts";
import { ErrorAlert, LoadState, Notice, Page, useLoad } from "../../ui/index.ts";
import { AnswerForm, type Shared } from "./form.tsx";
import { messages } from "./messages.ts";
import { Requester } from "./requester.tsx";
import { AnswerDone } from "./result.tsx";
import { type Answered, answerRemote, records, remoteProbe, type VaultRecord } from "./types.ts";
import { waysMessages } from "./ways-messages.ts";

const DOMAIN = /^[a-z0-9.-]{1,253}$/i;
const SLUG = /^[A-Za-z0-9_-]{8,128}$/;

function SignInFirst({ server, here }: { server: string; here: string }) {
	const t = useT(waysMessages);
	const info = serverInfo();
	return (
		<Page title={t("remoteNav")}>
			<p>{t("remoteOutText", { server, domain: info.domain })}</p>
			<p>
				<Link href={`/signin?next=${encodeURIComponent(here)}`} class="btn btn-primary">
					{t("signIn")}
				</Link>
			</p>
			{info.signups ? (
				<p>
					{t("remoteSignUp")} <Link href="/signup">{t("remoteSignUpLink")}</Link>
				</p>
			) : null}
		</Page>
	);
}

function Answering({ server, slug }: { server: string; slug: string }) {
	const t = useT(waysMessages);
	const a = useT(messages);
	const domain = serverInfo().domain;
	const state = useLoad(async () => {
		const [p, vault] = await Promise.all([
			remoteProbe(server, slug),
			hasScope("record:read") ? records.all() : Promise.resolve<VaultRecord[]>([]),
		]);
		return { p, vault };
	}, [server, slug]);
	const [done, setDone] = useState<{ result: Answered; shared: Shared[] } | null>(null);
	if (!state.data) {
		return (
			<Page title={t("remoteNav")}>
				<LoadState state={state}>{() => null}</LoadState>
			</Page>
		);
	}
	const { p, vault } = state.data;
	return (
		<Page title={p.label}>
			<p class="intro">{t("remoteIntro", { name: p.requester.name, server, domain })}</p>
			<Requester probe={p} verified={t("remoteVerified", { domain, server })} />
			{p.status !== "open" ? (
				<Notice>{a(p.status === "closed" ? "closedText" : "expiredText")}</Notice>
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
					send={(body) => answerRemote(server, slug, body)}
					onAnswered={(result, shared) => setDone({ result, shared })}
				/>
			)}
			{state.error ? <ErrorAlert error={state.error} /> : null}
		</Page>
	);
}

export function RemoteAnswer({ server, slug }: { server: string; slug: string }) {
	const t = useT(waysMessages);
	const account = useObservable(me);
	if (!DOMAIN.test(server) || !SLUG.test(slug)) {
		return (
			<Page title={t("remoteNav")}>
				<p>{t("remoteBadLink")}</p>
			</Page>
		);
	}
	const here = `/answer/remote?${new URLSearchParams({ server, slug }).toString()}`;
	if (!account) return <SignInFirst server={server} here={here} />;
	return <Answering key={`${server}/${slug}`} server={server} slug={slug} />;
}
