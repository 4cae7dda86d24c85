// /verify#<token>: spends the verify link at once (POST /api/auth/email/confirm, no sign-in) and
// says what happened; a refused link (400 `mail_verification_invalid`) points to asking again.
import { request } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { me } from "../../session.ts";
import { useObservable } from "../../state.ts";
import { ErrorAlert, LoadState, Notice, Page, useLoad } from "../../ui/index.ts";
import { messages } from "./messages.ts";

function tokenFromHash(): string | null {
	const value = window.location.hash.slice(1);
	return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
}

export default function VerifyScreen() {
	const t = useT(messages);
	const token = tokenFromHash();
	const signedIn = Boolean(useObservable(me));
	const state = useLoad(
		async () =>
			token
				? (
						await request<{ email: string; verifiedAt: string }>("POST", "/api/auth/email/confirm", {
							auth: false,
							body: { token },
						})
					).data
				: null,
		[token],
	);
	const next = signedIn ? <Link href="/account">{t("account")}</Link> : <Link href="/">{t("home")}</Link>;
	if (!token || state.error) {
		return (
			<Page title={t("refusedTitle")}>
				{token ? (
					<ErrorAlert error={state.error} />
				) : (
					<div class="alert alert-error" role="alert">
						<p>{t("noToken")}</p>
					</div>
				)}
				<p>{t("again")}</p>
				<p>{next}</p>
			</Page>
		);
	}
	return (
		<Page title={t("nav")}>
			<LoadState state={state}>
				{(done) =>
					done ? (
						<>
							<Notice>
								<p>{t("confirmed", { email: done.email })}</p>
							</Notice>
							<p>{t("what")}</p>
							<p>{next}</p>
						</>
					) : null
				}
			</LoadState>
		</Page>
	);
}
