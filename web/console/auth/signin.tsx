import { browserSupportsWebAuthn } from "@simplewebauthn/browser";
import { useState } from "preact/hooks";
import { useLocale, useT } from "../i18n/index.ts";
import { shellMessages } from "../i18n/messages.ts";
import { Link, navigate } from "../router.ts";
import { serverInfo } from "../server-info.ts";
import { signOutReason } from "../session.ts";
import { useObservable } from "../state.ts";
import { Button, Notice, Page, TextField } from "../ui/index.ts";
import { loadMe, signIn, ticketFrom } from "./passkey.ts";
import { passkeyErrorText } from "./passkey-error.ts";

export function SignIn({ next }: { next: string }) {
	const t = useT(shellMessages);
	const lang = useLocale();
	const info = serverInfo();
	const reason = useObservable(signOutReason);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);
	const [ticket, setTicket] = useState("");
	const [ticketError, setTicketError] = useState<string | null>(null);

	async function run() {
		setBusy(true);
		setError(null);
		try {
			await signIn();
			await loadMe();
			navigate(next, { replace: true });
		} catch (err) {
			setError(passkeyErrorText(err, lang));
			setBusy(false);
		}
	}

	function useTicket(event: Event) {
		event.preventDefault();
		const found = ticketFrom(ticket);
		if (!found) {
			setTicketError(t("ticketMalformed"));
			return;
		}
		navigate(`/signup?ticket=${encodeURIComponent(found)}`);
	}

	return (
		<div class="auth">
			<Page title={t("signInTitle")}>
				{reason === "not_authenticated" ? <Notice>{t("sessionEnded")}</Notice> : null}
				{reason === "signed_out" ? <Notice>{t("signedOut")}</Notice> : null}
				<p>{t("signInIntro", { domain: info.domain })}</p>
				{browserSupportsWebAuthn() ? (
					<p>
						<Button variant="primary" icon="signIn" busy={busy} onClick={() => void run()}>
							{t("signInButton")}
						</Button>
					</p>
				) : (
					<p role="alert">{t("noWebAuthn")}</p>
				)}
				<p role="status" class="status-line">
					{busy ? t("signingIn") : ""}
				</p>
				{error ? (
					<div class="alert alert-error" role="alert">
						<p>{error}</p>
					</div>
				) : null}
				{info.signups ? (
					<p>
						{t("noAccount")} <Link href="/signup">{t("signUpLink")}</Link>
					</p>
				) : null}
				<form class="ticket-form" onSubmit={useTicket} noValidate>
					<p>{t("haveTicket")}</p>
					<TextField
						label={t("ticketLabel")}
						value={ticket}
						onInput={setTicket}
						error={ticketError}
						autocomplete="off"
						spellcheck={false}
					/>
					<Button type="submit">{t("ticketContinue")}</Button>
				</form>
			</Page>
		</div>
	);
}
