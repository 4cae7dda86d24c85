import type { ComponentChildren } from "preact";
import { ApiError, useErrorText } from "../api.ts";
import { useT } from "../i18n/index.ts";
import { uiMessages } from "./messages.ts";

/** An error in words, with its code for support; announced at once (role=alert). */
export function ErrorAlert({ error }: { error: unknown }) {
	const describe = useErrorText();
	const t = useT(uiMessages);
	if (!error) return null;
	return (
		<div class="alert alert-error" role="alert">
			<p>{describe(error)}</p>
			{error instanceof ApiError && error.code !== "network" ? (
				<p class="alert-detail">{t("errorCode", { code: error.code })}</p>
			) : null}
		</div>
	);
}

export function Notice({
	children,
	tone = "info",
}: {
	children: ComponentChildren;
	tone?: "info" | "success";
}) {
	return (
		<div class={`alert alert-${tone}`} role="status">
			{children}
		</div>
	);
}
