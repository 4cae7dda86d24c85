import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { errorMessages } from "../i18n/errors.ts";
import { format, useLocale, useT } from "../i18n/index.ts";
import { shellMessages } from "../i18n/messages.ts";
import { Link, navigate } from "../router.ts";
import { serverInfo } from "../server-info.ts";
import { Button, Page, TextField } from "../ui/index.ts";
import { loadMe, register } from "./passkey.ts";
import { passkeyErrorText } from "./passkey-error.ts";

/** Sign-up by email (when the server allows it) or with an operator's one-time ticket. */
export function SignUp({ ticket }: { ticket: string | null }) {
	const t = useT(shellMessages);
	const lang = useLocale();
	const info = serverInfo();
	const [email, setEmail] = useState("");
	const [name, setName] = useState("");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);
	const [emailError, setEmailError] = useState<string | null>(null);

	async function submit(event: Event) {
		event.preventDefault();
		if (!ticket && !/^[^\s@]+@[^\s@]+$/.test(email.trim())) {
			setEmailError(format(errorMessages, lang, "passkey_email_invalid"));
			return;
		}
		setBusy(true);
		setError(null);
		setEmailError(null);
		try {
			await register({
				...(ticket ? { ticket } : { email: email.trim() }),
				...(name.trim() ? { name: name.trim() } : {}),
				signIn: true,
			});
			await loadMe();
			navigate("/", { replace: true });
		} catch (err) {
			const text = passkeyErrorText(err, lang);
			if (!ticket && err instanceof ApiError && err.code === "passkey_email_invalid") setEmailError(text);
			else setError(text);
			setBusy(false);
		}
	}

	if (!ticket && !info.signups) {
		return (
			<div class="auth">
				<Page title={t("signUpTitle")}>
					<p>{t("signUpOff")}</p>
					<p>
						{t("haveAccount")} <Link href="/signin">{t("signInLink")}</Link>
					</p>
				</Page>
			</div>
		);
	}
	return (
		<div class="auth">
			<Page title={t("signUpTitle")}>
				<p>{ticket ? t("ticketIntro", { domain: info.domain }) : t("signUpIntro")}</p>
				<form onSubmit={(e) => void submit(e)} noValidate>
					{ticket ? null : (
						<TextField
							label={t("emailLabel")}
							type="email"
							autocomplete="email"
							required
							maxLength={320}
							value={email}
							onInput={setEmail}
							error={emailError}
						/>
					)}
					<TextField
						label={t("nameLabel")}
						autocomplete="name"
						maxLength={200}
						value={name}
						onInput={setName}
					/>
					<Button type="submit" variant="primary" busy={busy}>
						{t("signUpButton")}
					</Button>
				</form>
				<p role="status" class="status-line">
					{busy ? t("signingIn") : ""}
				</p>
				{error ? (
					<div class="alert alert-error" role="alert">
						<p>{error}</p>
					</div>
				) : null}
				<p>
					{t("haveAccount")} <Link href="/signin">{t("signInLink")}</Link>
				</p>
			</Page>
		</div>
	);
}
