// A credential's app link in the console: `svc://a/<host>/<token>` (an offer) or `svc://present?…`
// (a service asks), read with the shared grammar of src/lib/credential-links.ts; a refusal names
// the part at fault. The dialog where the person pastes one, and the screens' addresses.
import { useState } from "preact/hooks";
import {
	AppLinkError,
	type OfferLink,
	type PresentRequest,
	parseAppLink,
} from "../../../../src/lib/app-links.ts";
import { useT } from "../../i18n/index.ts";
import { navigate } from "../../router.ts";
import { Button, Dialog, TextField } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";

export type CredentialLink = OfferLink | PresentRequest;

/** Loopback service origins are services only while the server runs in development (DOMAIN=localhost). */
const allowLoopback = () => location.hostname === "localhost";

/** Throws AppLinkError naming the part at fault; `link` when it is no credential link at all. */
export function readCredentialLink(text: string): CredentialLink {
	const link = parseAppLink(text.trim(), { allowLoopback: allowLoopback() });
	if (link.kind === "offer" || link.kind === "present") return link;
	throw new AppLinkError("link", "is not an svc://a or svc://present link");
}

/** The console's page for a credential link (`svc open` opens the same address off a terminal). */
export function credentialPath(text: string, kind: CredentialLink["kind"]): string {
	return `/credentials/${kind === "offer" ? "offer" : "present"}?${new URLSearchParams({ link: text.trim() })}`;
}

/** The refusal as a sentence; German names the parameter only, so the sentence stays in one language. */
export function useRefusal(): (err: AppLinkError) => string {
	const t = useT(messages);
	return (err) =>
		err.parameter === "link"
			? t("notALink")
			: t("linkRefused", { parameter: err.parameter, reason: err.message });
}

/** A refused link: the sentence, and the way back. Nothing was sent. */
export function Refused({ error }: { error: AppLinkError | null }) {
	const t = useT(messages);
	const refusal = useRefusal();
	return (
		<>
			<div class="alert alert-error" role="alert" data-parameter={error?.parameter}>
				<p>{error ? refusal(error) : t("linkRequired")}</p>
			</div>
			<Button onClick={() => navigate("/credentials")}>{t("back")}</Button>
		</>
	);
}

export function OpenCredentialLink({ open, onClose }: { open: boolean; onClose: () => void }) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const refusal = useRefusal();
	const [text, setText] = useState("");
	const [error, setError] = useState<string | null>(null);

	function submit(event: Event) {
		event.preventDefault();
		if (!text.trim()) return setError(t("linkRequired"));
		let link: CredentialLink;
		try {
			link = readCredentialLink(text);
		} catch (err) {
			if (err instanceof AppLinkError) return setError(refusal(err));
			throw err;
		}
		setError(null);
		onClose();
		navigate(credentialPath(text, link.kind));
	}

	return (
		<Dialog
			title={t("linkTitle")}
			open={open}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" form="credential-link-form">
						{t("continue")}
					</Button>
				</>
			}
		>
			<form id="credential-link-form" onSubmit={submit} noValidate>
				<TextField
					label={t("link")}
					hint={t("linkHint")}
					required
					value={text}
					onInput={setText}
					error={error}
					autocomplete="off"
				/>
			</form>
		</Dialog>
	);
}
