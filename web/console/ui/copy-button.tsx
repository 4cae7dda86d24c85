import { useState } from "preact/hooks";
import { useT } from "../i18n/index.ts";
import { Icon } from "./icon.tsx";
import { announce } from "./live.ts";
import { uiMessages } from "./messages.ts";

/** Copies `text`; says so in the live region and on the button for a moment. */
export function CopyButton({ text, label }: { text: string; label?: string }) {
	const t = useT(uiMessages);
	const [done, setDone] = useState(false);
	async function copy() {
		try {
			await navigator.clipboard.writeText(text);
			setDone(true);
			announce(t("copied"));
			setTimeout(() => setDone(false), 2000);
		} catch {
			announce(t("copyFailed"));
		}
	}
	return (
		<button type="button" class="btn btn-secondary btn-copy" onClick={() => void copy()}>
			<Icon name={done ? "check" : "copy"} />
			{done ? t("copied") : (label ?? t("copy"))}
		</button>
	);
}

/** A secret or link shown in full, selectable, with a copy button beside it. */
export function CopyField({ label, value }: { label: string; value: string }) {
	return (
		<div class="copy-field">
			<p class="copy-field-label">{label}</p>
			<div class="copy-field-row">
				<code class="copy-field-value">{value}</code>
				<CopyButton text={value} />
			</div>
		</div>
	);
}
