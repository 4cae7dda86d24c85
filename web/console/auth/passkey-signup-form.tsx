// The passkey sign-up form, one for every place an account is made from the browser: the sign-up
// page (by email, or with an operator's one-time ticket) and the answer page of a request that
// admits an answer-only account. An email (unless a ticket names the account) and an optional
// name; the passkey is created, the person is signed in, and `onDone` runs.
import { useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { useLocale } from "../i18n/index.ts";
import { Button, TextField } from "../ui/index.ts";
import { loadMe, register } from "./passkey.ts";
import { passkeyErrorText } from "./passkey-error.ts";

export interface SignUpWords {
	email: string;
	emailInvalid: string;
	name: string;
	button: string;
	/** Said while the browser waits for the passkey. */
	busy: string;
}

export function PasskeySignUpForm({
	ticket,
	request,
	words,
	onDone,
}: {
	/** An operator's one-time ticket: the account it names, no email asked. */
	ticket?: string | null;
	/** A request's slug: an answer-only account admitted by that request. */
	request?: string;
	words: SignUpWords;
	/** After the account is made and signed in. */
	onDone?: () => void;
}) {
	const lang = useLocale();
	const [email, setEmail] = useState("");
	const [name, setName] = useState("");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);
	const [emailError, setEmailError] = useState<string | null>(null);

	async function submit(event: Event) {
		event.preventDefault();
		if (!ticket && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) return setEmailError(words.emailInvalid);
		setBusy(true);
		setError(null);
		setEmailError(null);
		try {
			await register({
				...(ticket ? { ticket } : { email: email.trim() }),
				...(name.trim() ? { name: name.trim() } : {}),
				...(request ? { request } : {}),
				signIn: true,
			});
			await loadMe();
			onDone?.();
		} catch (err) {
			const text = passkeyErrorText(err, lang);
			if (!ticket && err instanceof ApiError && err.code === "passkey_email_invalid") setEmailError(text);
			else setError(text);
			setBusy(false);
		}
	}

	return (
		<>
			<form onSubmit={(e) => void submit(e)} noValidate>
				{ticket ? null : (
					<TextField
						label={words.email}
						type="email"
						autocomplete="email"
						required
						maxLength={320}
						value={email}
						onInput={setEmail}
						error={emailError}
					/>
				)}
				<TextField label={words.name} autocomplete="name" maxLength={200} value={name} onInput={setName} />
				<Button type="submit" variant="primary" busy={busy}>
					{words.button}
				</Button>
			</form>
			<p role="status" class="status-line">
				{busy ? words.busy : ""}
			</p>
			{error ? (
				<div class="alert alert-error" role="alert">
					<p>{error}</p>
				</div>
			) : null}
		</>
	);
}
