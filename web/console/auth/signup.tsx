import { errorMessages } from "../i18n/errors.ts";
import { format, useLocale, useT } from "../i18n/index.ts";
import { shellMessages } from "../i18n/messages.ts";
import { Link, navigate } from "../router.ts";
import { serverInfo } from "../server-info.ts";
import { Page } from "../ui/index.ts";
import { PasskeySignUpForm } from "./passkey-signup-form.tsx";

/** Sign-up by email (when the server allows it) or with an operator's one-time ticket. */
export function SignUp({ ticket }: { ticket: string | null }) {
	const t = useT(shellMessages);
	const lang = useLocale();
	const info = serverInfo();
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
				<PasskeySignUpForm
					ticket={ticket}
					words={{
						email: t("emailLabel"),
						emailInvalid: format(errorMessages, lang, "passkey_email_invalid"),
						name: t("nameLabel"),
						button: t("signUpButton"),
						busy: t("signingIn"),
					}}
					onDone={() => navigate("/", { replace: true })}
				/>
				<p>
					{t("haveAccount")} <Link href="/signin">{t("signInLink")}</Link>
				</p>
			</Page>
		</div>
	);
}
