import type { ComponentChildren } from "preact";
import { formatDateTime, useLocale, useT } from "../i18n/index.ts";
import { uiMessages } from "./messages.ts";

const KNOWN = ["active", "paused", "revoked", "expired", "open", "closed", "offered"] as const;

/** A status in words (never by colour alone) with a tone the stylesheet colours. */
export function StatusBadge({ status }: { status: string }) {
	const t = useT(uiMessages);
	const known = KNOWN.find((k) => k === status);
	return <span class={`badge badge-${known ?? "unknown"}`}>{known ? t(`status_${known}`) : status}</span>;
}

/** A time in the reader's locale, machine-readable in `datetime`; "Never" for null. */
export function DateTime({ value }: { value: string | null | undefined }) {
	const lang = useLocale();
	const t = useT(uiMessages);
	if (!value) return <span>{t("never")}</span>;
	return <time dateTime={value}>{formatDateTime(value, lang)}</time>;
}

export function EmptyState({ title, children }: { title: string; children?: ComponentChildren }) {
	return (
		<div class="empty">
			<p class="empty-title">{title}</p>
			{children}
		</div>
	);
}
