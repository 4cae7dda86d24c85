// Reading a tool's app link: the shared grammar of src/lib/app-links.ts, a refusal in words that
// names the parameter at fault, and the dialog where the owner pastes the link.
import { useState } from "preact/hooks";
import {
	AppLinkError,
	type ConnectRequest,
	type Proposal,
	parseAppLink,
} from "../../../../src/lib/app-links.ts";
import { useT } from "../../i18n/index.ts";
import { navigate } from "../../router.ts";
import { Button, Dialog, TextField } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { credentialPath, readCredentialLink } from "../credentials/open-link.tsx";
import { messages } from "./messages.ts";

export type Asked = { kind: "connect"; link: ConnectRequest } | { kind: "proposal"; link: Proposal };

/** Loopback tool origins are tools only while the server runs in development (DOMAIN=localhost). */
const allowLoopback = () => location.hostname === "localhost";

/** A tool's link (`svc://connect` or `svc://p`); throws AppLinkError naming the part at fault. */
export function readLink(text: string): Asked {
	const link = parseAppLink(text.trim(), { allowLoopback: allowLoopback() });
	if (link.kind === "connect") return { kind: "connect", link };
	if (link.kind === "proposal") return { kind: "proposal", link };
	throw new AppLinkError(
		"link",
		link.kind === "auth" ? "is a sign-in answer, not a tool's link" : "is not a tool's link",
	);
}

/**
 * The refusal as a sentence. The grammar's reason is English and technical: German names the
 * parameter only, so the sentence stays in one language.
 */
export function useRefusal(): (err: AppLinkError) => string {
	const t = useT(messages);
	return (err) =>
		err.parameter === "link"
			? t("notALink")
			: t("linkRefused", { parameter: err.parameter, reason: err.message });
}

/** The page that asks the owner about a link (the consent). */
export function consentPath(text: string): string {
	return `/connections/connect?${new URLSearchParams({ link: text.trim() })}`;
}

export function OpenLink({ open, onClose }: { open: boolean; onClose: () => void }) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const refusal = useRefusal();
	const [text, setText] = useState("");
	const [error, setError] = useState<string | null>(null);

	function submit(event: Event) {
		event.preventDefault();
		if (!text.trim()) return setError(t("linkRequired"));
		// An offer or a service's request belongs to the credentials screen.
		if (/^svc:\/\/(a\/|present)/.test(text.trim())) {
			try {
				const link = readCredentialLink(text);
				onClose();
				return navigate(credentialPath(text, link.kind));
			} catch (err) {
				if (err instanceof AppLinkError) return setError(refusal(err));
				throw err;
			}
		}
		try {
			readLink(text);
		} catch (err) {
			if (err instanceof AppLinkError) return setError(refusal(err));
			throw err;
		}
		setError(null);
		onClose();
		navigate(consentPath(text));
	}

	return (
		<Dialog
			title={t("linkTitle")}
			open={open}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" form="open-link-form">
						{t("continue")}
					</Button>
				</>
			}
		>
			<form id="open-link-form" onSubmit={submit} noValidate>
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
