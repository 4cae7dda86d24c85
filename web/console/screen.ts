// What a screen folder exports from its index.ts. scripts/build-web.mjs finds every
// screens/<name>/index.ts(x) and lists it in "virtual:screens": adding a screen is adding a folder.
import type { ComponentType } from "preact";
import type { Catalogs } from "./i18n/index.ts";
import type { Route } from "./router.ts";

export interface ScreenProps {
	route: Route;
	/** The path below the screen's own ("/new" for "/keys/new" on the "/keys" screen; "" at it). */
	subpath: string;
}

export interface Screen<K extends string = string> {
	/** Where it lives under /app, e.g. "/keys"; it also owns every path below. */
	path: string;
	/** Position in the navigation, ascending. */
	order: number;
	/** The screen's message catalogs (en and de), kept in its folder. */
	messages: Catalogs<K>;
	/** The catalog key of its name in the navigation and the page title. */
	navLabel: K;
	/** The screen's component, loaded when first opened (its own chunk). */
	load: () => Promise<{ default: ComponentType<ScreenProps> }>;
	/** Reached by link only, not listed in the navigation. */
	hidden?: boolean;
	/** Also opened signed out, in place (a link whose fragment a sign-in redirect would lose). */
	public?: boolean;
	/** Listed only when the session holds this scope in the active workspace (e.g. "link:read"). */
	scope?: string;
}

/** Identity function that checks a screen's shape (and its catalogs' keys) where it is written. */
export function defineScreen<K extends string>(screen: Screen<K>): Screen<K> {
	return screen;
}
