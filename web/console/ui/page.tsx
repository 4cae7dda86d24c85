// The frame of a screen: its heading (focused when the screen opens, so a screen reader hears where
// it landed) and actions, then the content; with the loading and error states of useLoad.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { useT } from "../i18n/index.ts";
import { navigatedSinceLoad } from "../router.ts";
import { ErrorAlert } from "./alert.tsx";
import { Button } from "./button.tsx";
import { uiMessages } from "./messages.ts";

export function Page({
	title,
	actions,
	children,
}: {
	title: string;
	actions?: ComponentChildren;
	children: ComponentChildren;
}) {
	const heading = useRef<HTMLHeadingElement>(null);
	useEffect(() => {
		// After a move within the console; on a fresh load Tab starts at the skip link as usual. The
		// window keeps the last screen's scroll (a long form's submit button), so a new screen starts
		// at its top, its heading in sight.
		if (!navigatedSinceLoad()) return;
		window.scrollTo(0, 0);
		heading.current?.focus({ preventScroll: true });
	}, []);
	return (
		<>
			<div class="page-head">
				<h1 ref={heading} tabIndex={-1}>
					{title}
				</h1>
				{actions ? <div class="page-actions">{actions}</div> : null}
			</div>
			{children}
		</>
	);
}

export function Loading() {
	const t = useT(uiMessages);
	return (
		<p class="loading" role="status">
			{t("loading")}
		</p>
	);
}

export interface Loaded<T> {
	data: T | undefined;
	error: unknown;
	loading: boolean;
	reload: () => void;
}

/** Runs `load` on mount and when `deps` change; `reload()` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
	const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
		data: undefined,
		error: null,
		loading: true,
	});
	const [tick, setTick] = useState(0);
	// The caller names what `load` depends on in `deps`.
	useEffect(() => {
		let live = true;
		setState((s) => ({ ...s, loading: true }));
		load().then(
			(data) => live && setState({ data, error: null, loading: false }),
			(error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })),
		);
		return () => {
			live = false;
		};
	}, [...deps, tick]);
	const reload = useCallback(() => setTick((n) => n + 1), []);
	return { ...state, reload };
}

/** What useLoad holds: a spinner first, an error with a retry, then `children(data)`. */
export function LoadState<T>({
	state,
	children,
}: {
	state: Loaded<T>;
	children: (data: T) => ComponentChildren;
}) {
	const t = useT(uiMessages);
	if (state.data !== undefined) {
		return (
			<>
				{state.error ? <ErrorAlert error={state.error} /> : null}
				{children(state.data)}
			</>
		);
	}
	if (state.error) {
		return (
			<>
				<ErrorAlert error={state.error} />
				<Button onClick={state.reload}>{t("retry")}</Button>
			</>
		);
	}
	return <Loading />;
}
