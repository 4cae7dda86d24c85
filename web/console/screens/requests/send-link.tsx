// "Send by e-mail" on a request's screen (only on a server that sends mail): the responder's address
// and, optionally, their name; the server mails the answer link (never the password) and the form
// says it is on its way. A refused address or a reached cap says why and keeps what was typed.
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Button, ErrorAlert, TextField } from "../../ui/index.ts";
import { messages } from "./messages.ts";

export function SendLink({ requestId }: { requestId: string }) {
	const t = useT(messages);
	const [to, setTo] = useState("");
	const [name, setName] = useState("");
	const [toError, setToError] = useState<string | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [sentTo, setSentTo] = useState<string | null>(null);

	async function submit(event: Event) {
		event.preventDefault();
		if (!to.trim()) return setToError(t("sendToRequired"));
		setToError(null);
		setBusy(true);
		setError(null);
		setSentTo(null);
		try {
			const body = { to: to.trim(), ...(name.trim() ? { name: name.trim() } : {}) };
			const { data } = await request<{ to: string }>(
				"POST",
				`/api/requests/${encodeURIComponent(requestId)}/send-link`,
				{ body },
			);
			// Said by the form's own status line (no second announcement).
			setSentTo(data.to);
			setTo("");
			setName("");
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<form class="req-send" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="req-send-heading">
			<h3 id="req-send-heading">{t("sendHeading")}</h3>
			<TextField
				label={t("sendTo")}
				type="email"
				required
				maxLength={320}
				value={to}
				onInput={setTo}
				error={toError}
				autocomplete="off"
			/>
			<TextField label={t("sendName")} maxLength={100} value={name} onInput={setName} autocomplete="off" />
			<ErrorAlert error={error} />
			{sentTo ? <p role="status">{t("sendDone", { email: sentTo })}</p> : null}
			<Button type="submit" busy={busy}>
				{t("sendButton")}
			</Button>
		</form>
	);
}
