import type { ComponentChildren } from "preact";
import { ApiError, useErrorText } from "../api.ts";

/**
 * An error in words, announced at once (role=alert). The code stays out of sight (`data-code`, for
 * support and tests): people read the sentence, never `passkey_last`.
 */
export function ErrorAlert({ error }: { error: unknown }) {
	const describe = useErrorText();
	if (!error) return null;
	return (
		<div
			class="alert alert-error"
			role="alert"
			data-code={error instanceof ApiError && error.code !== "network" ? error.code : undefined}
		>
			<p>{describe(error)}</p>
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
