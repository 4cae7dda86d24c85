// /answer/<slug> without a session: what is asked and by whom, why answering needs an account, and
// each way on: from the responder's own server (handed over to its /app/answer/remote), an
// answer-only account here when the request allows one, or signing in.
import { useState } from "preact/hooks";
import { PasskeySignUpForm } from "../../auth/passkey-signup-form.tsx";
import { useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { Button, Notice, Page, TextField } from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { Requester } from "./requester.tsx";
import type { Probe } from "./types.ts";
import { waysMessages } from "./ways-messages.ts";

/** The origin of a typed server address (https unless it is this machine), or null. */
export function serverOrigin(text: string): string | null {
	let value = text.trim();
	if (!value || /\s/.test(value)) return null;
	if (!/^https?:\/\//i.test(value)) value = `https://${value}`;
	try {
		const url = new URL(value);
		const local = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
		if (url.username || url.password || (url.protocol === "http:" && !local)) return null;
		if (!local && !url.hostname.includes(".")) return null;
		return url.origin;
	} catch {
		return null;
	}
}

/** Where a responder's own server takes the request up: its console's remote answer screen. */
export function handOverUrl(origin: string, domain: string, slug: string): string {
	const query = new URLSearchParams({ server: domain, slug });
	return `${origin}/app/answer/remote?${query.toString()}`;
}

function OwnServer({ probe, slug }: { probe: Probe; slug: string }) {
	const t = useT(waysMessages);
	const [address, setAddress] = useState("");
	const [error, setError] = useState<string | null>(null);
	const domain = probe.server.domain;
	return (
		<section class="answer-way" aria-labelledby="answer-own">
			<h2 id="answer-own">{t("ownHeading")}</h2>
			<p>{t("ownText", { domain })}</p>
			<form
				noValidate
				onSubmit={(e) => {
					e.preventDefault();
					const origin = serverOrigin(address);
					if (!origin) return setError(t("ownInvalid"));
					if (origin === window.location.origin) return setError(t("ownIsThis", { domain }));
					window.location.assign(handOverUrl(origin, domain, slug));
				}}
			>
				<TextField
					label={t("ownLabel")}
					hint={t("ownHint")}
					value={address}
					onInput={setAddress}
					error={error}
					autocomplete="url"
					spellcheck={false}
					inputMode="url"
				/>
				<Button type="submit">{t("ownContinue")}</Button>
			</form>
		</section>
	);
}

function AccountHere({ probe, slug }: { probe: Probe; slug: string }) {
	const t = useT(waysMessages);
	const words = { name: probe.requester.name, domain: probe.server.domain };
	return (
		<section class="answer-way" aria-labelledby="answer-here">
			<h2 id="answer-here">{t("hereHeading")}</h2>
			{probe.answerSignup ? (
				<>
					<p>{t("hereText", words)}</p>
					{/* Signed in, the console shows this same address as the answer form. */}
					<PasskeySignUpForm
						request={slug}
						words={{
							email: t("emailLabel"),
							emailInvalid: t("emailInvalid"),
							name: t("nameLabel"),
							button: t("hereButton"),
							busy: t("creating"),
						}}
					/>
				</>
			) : (
				<p>{t(probe.answerSignupsUsedUp ? "hereUsedUp" : "hereOff", words)}</p>
			)}
		</section>
	);
}

export function SignedOutAnswer({ slug, probe }: { slug: string; probe: Probe }) {
	const t = useT(waysMessages);
	const a = useT(messages);
	const domain = probe.server.domain;
	return (
		<Page title={probe.label}>
			<p class="intro">{t("outIntro", { name: probe.requester.name, domain })}</p>
			<Requester probe={probe} />
			<h2>{t("askedHeading")}</h2>
			<ul class="answer-asked">
				{probe.template.map((item) => (
					<li key={item.key}>
						{item.label}{" "}
						<span class="meta">
							({a(`type_${item.type}`)}, {t(item.required ? "required" : "optional")})
						</span>
					</li>
				))}
			</ul>
			{probe.status !== "open" ? (
				<Notice>{a(probe.status === "closed" ? "closedText" : "expiredText")}</Notice>
			) : (
				<>
					<h2>{t("whyHeading")}</h2>
					<p>{t("whyText", { name: probe.requester.name })}</p>
					<div class="answer-ways">
						<OwnServer probe={probe} slug={slug} />
						<AccountHere probe={probe} slug={slug} />
					</div>
					<p>
						{t("haveAccount", { domain })}{" "}
						<Link href={`/signin?next=${encodeURIComponent(`/answer/${slug}`)}`}>{t("signIn")}</Link>
					</p>
				</>
			)}
		</Page>
	);
}
