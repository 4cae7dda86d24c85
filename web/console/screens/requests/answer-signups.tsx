// A request's answer-only sign-ups, switched on and off after creation (docs/console.md "Requests"):
// whether a responder without an account may create one here to answer, at most how many accounts
// the link may create (`answerSignupLimit`), how many it made, and the trade-off in a sentence.
// The operator's server-wide switch (ALLOW_ANSWER_SIGNUPS) is said up front when it is off.
import { useState } from "preact/hooks";
import { formatNumber, useLocale, useT } from "../../i18n/index.ts";
import { serverInfo } from "../../server-info.ts";
import { hasScope } from "../../session.ts";
import { announce, Button, Checkbox, ErrorAlert, Notice, TextField } from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { type DataRequest, requests } from "./types.ts";

const MAX = 1000;

export function AnswerSignups({ req, reload }: { req: DataRequest; reload: () => void }) {
	const t = useT(messages);
	const lang = useLocale();
	const canWrite = hasScope("request:write");
	const [allow, setAllow] = useState(req.allowAnswerSignup);
	const [limit, setLimit] = useState(String(req.answerSignupLimit));
	const [limitError, setLimitError] = useState<string | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const counts = {
		made: formatNumber(req.answerSignups, lang),
		limit: formatNumber(req.answerSignupLimit, lang),
	};

	async function save(event: Event) {
		event.preventDefault();
		const n = Number(limit.trim());
		if (!/^\d+$/.test(limit.trim()) || n < 1 || n > MAX) {
			setLimitError(t("signupLimitInvalid", { max: formatNumber(MAX, lang) }));
			return;
		}
		setLimitError(null);
		setError(null);
		setBusy(true);
		try {
			await requests.update(req.id, { allowAnswerSignup: allow, answerSignupLimit: n });
			announce(t(allow ? "signupsOnNotice" : "signupsOffNotice"));
			reload();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<section class="req-section" aria-labelledby="req-signups-heading">
			<h2 id="req-signups-heading">{t("signupsHeading")}</h2>
			<p>{t("signupsTradeOff")}</p>
			{serverInfo().answerSignups ? null : <Notice>{t("signupsOperatorOff")}</Notice>}
			<p>
				{t(req.allowAnswerSignup ? "signupsStateOn" : "signupsStateOff")} {t("signupsMade", counts)}
				{req.answerSignups >= req.answerSignupLimit ? ` ${t("signupsUsedUp")}` : ""}
			</p>
			{canWrite ? (
				<form class="req-form" onSubmit={(e) => void save(e)} noValidate>
					<Checkbox
						label={t("allowAnswerSignup")}
						hint={t("allowAnswerSignupHint")}
						checked={allow}
						onChange={setAllow}
					/>
					<TextField
						label={t("signupLimit")}
						hint={t("signupLimitHint", { max: formatNumber(MAX, lang) })}
						type="number"
						inputMode="numeric"
						min={1}
						max={MAX}
						value={limit}
						onInput={setLimit}
						error={limitError}
					/>
					<p>
						<Button type="submit" busy={busy}>
							{t("signupsSave")}
						</Button>
					</p>
					<ErrorAlert error={error} />
				</form>
			) : null}
		</section>
	);
}
