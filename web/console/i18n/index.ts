// Message catalogs and formatting. Every visible string comes from a catalog: the shell's in
// i18n/messages.ts, each screen's in its own folder. `de` must name every key of `en` (the type
// says so), and a missing key at run time shows the English text rather than nothing.
import { Observable, useObservable } from "../state.ts";

export const LOCALES = ["en", "de"] as const;
export type Locale = (typeof LOCALES)[number];

/** A message: text with `{name}` placeholders, or plural forms chosen by `{count}`. */
export type Message = string | { one: string; other: string };

export interface Catalogs<K extends string> {
	en: Record<K, Message>;
	de: Record<K, Message>;
}

/** Declares a catalog pair; the type makes `de` list exactly the keys of `en`. */
export function defineMessages<K extends string>(catalogs: {
	en: Record<K, Message>;
	de: Record<NoInfer<K>, Message>;
}): Catalogs<K> {
	return catalogs;
}

const STORAGE_KEY = "svc.lang";

function storedLocale(): Locale | undefined {
	try {
		const stored = localStorage.getItem(STORAGE_KEY);
		return LOCALES.find((l) => l === stored);
	} catch {
		return undefined;
	}
}

/** The first of the browser's languages we have, else English. */
export function browserLocale(
	languages: readonly string[] = typeof navigator === "undefined" ? [] : (navigator.languages ?? []),
): Locale {
	for (const tag of languages) {
		const base = tag.toLowerCase().split("-")[0];
		const found = LOCALES.find((l) => l === base);
		if (found) return found;
	}
	return "en";
}

export const locale = new Observable<Locale>(storedLocale() ?? browserLocale());

export function setLocale(next: Locale): void {
	try {
		localStorage.setItem(STORAGE_KEY, next);
	} catch {
		// Storage can be off (private mode); the choice then lasts for this page only.
	}
	locale.set(next);
	document.documentElement.lang = next;
}

export function useLocale(): Locale {
	return useObservable(locale);
}

export type Vars = Record<string, string | number>;

export function format<K extends string>(catalogs: Catalogs<K>, lang: Locale, key: K, vars?: Vars): string {
	const message = catalogs[lang][key] ?? catalogs.en[key] ?? key;
	let text: string;
	if (typeof message === "string") text = message;
	else {
		const count = Number(vars?.count ?? 0);
		text = new Intl.PluralRules(lang).select(count) === "one" ? message.one : message.other;
	}
	if (!vars) return text;
	return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
		const value = vars[name];
		if (value === undefined) return whole;
		return typeof value === "number" ? formatNumber(value, lang) : value;
	});
}

export type Translate<K extends string> = (key: K, vars?: Vars) => string;

/** `t(key, vars)` in the chosen language; re-renders the component when the language changes. */
export function useT<K extends string>(catalogs: Catalogs<K>): Translate<K> {
	const lang = useLocale();
	return (key, vars) => format(catalogs, lang, key, vars);
}

export function formatNumber(value: number, lang: Locale): string {
	return new Intl.NumberFormat(lang).format(value);
}

export function formatDateTime(iso: string, lang: Locale): string {
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return iso;
	return new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" }).format(date);
}

export function formatDate(iso: string, lang: Locale): string {
	const date = new Date(iso);
	if (Number.isNaN(date.getTime())) return iso;
	return new Intl.DateTimeFormat(lang, { dateStyle: "medium" }).format(date);
}

/** "3 minutes ago", "in 2 days": for times near now. */
export function formatRelative(iso: string, lang: Locale, now = Date.now()): string {
	const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
	const units: [Intl.RelativeTimeFormatUnit, number][] = [
		["year", 31536000],
		["month", 2592000],
		["day", 86400],
		["hour", 3600],
		["minute", 60],
	];
	const rtf = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
	for (const [unit, size] of units) {
		if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
	}
	return rtf.format(seconds, "second");
}
