// A small router over /app/… paths with the history API. Paths inside the console are written
// without the /app prefix ("/keys"); links are real <a href> so they open in a new tab too.
import { createElement, type JSX } from "preact";
import { Observable, useObservable } from "./state.ts";

export const BASE = "/app";

function current(): string {
	const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) : "/";
	return `${path || "/"}${window.location.search}`;
}

export const location = new Observable<string>(current());

let navigated = false;

/** Whether the person moved within the console since the page loaded (screens focus their heading then). */
export function navigatedSinceLoad(): boolean {
	return navigated;
}

window.addEventListener("popstate", () => {
	navigated = true;
	location.set(current());
});

/** `redirect`: an address the console corrects (/app to its first screen), not a move by the person. */
export function navigate(to: string, options: { replace?: boolean; redirect?: boolean } = {}): void {
	const href = `${BASE}${to}`;
	if (!options.redirect) navigated = true;
	if (options.replace) history.replaceState(null, "", href);
	else history.pushState(null, "", href);
	location.set(current());
}

export interface Route {
	/** Path without the query, e.g. "/keys/new". */
	path: string;
	query: URLSearchParams;
}

export function parse(value: string): Route {
	const at = value.indexOf("?");
	const path = at < 0 ? value : value.slice(0, at);
	return { path: path.replace(/\/+$/, "") || "/", query: new URLSearchParams(at < 0 ? "" : value.slice(at)) };
}

export function useRoute(): Route {
	return parse(useObservable(location));
}

/** Whether `path` is `prefix` or below it ("/keys/x" is under "/keys"). */
export function under(path: string, prefix: string): boolean {
	return path === prefix || path.startsWith(`${prefix}/`);
}

type AnchorProps = JSX.HTMLAttributes<HTMLAnchorElement> & { href: string };

/** An in-console link: a plain click navigates without reloading; modified clicks behave as usual. */
export function Link(props: AnchorProps) {
	const { href, onClick, ...rest } = props;
	return createElement("a", {
		...rest,
		href: `${BASE}${href}`,
		onClick: (event: JSX.TargetedMouseEvent<HTMLAnchorElement>) => {
			if (typeof onClick === "function") onClick(event);
			if (event.defaultPrevented || event.button !== 0) return;
			if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
			event.preventDefault();
			navigate(href);
		},
	});
}
