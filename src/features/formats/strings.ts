// The share page's words in English and German, and the reader's date and number formats
// (Intl, in the negotiated language). Values and names are the sharer's and are never translated.
import type { Language } from "./negotiate.ts";

const en = {
	untitled: "Shared with you",
	skip: "Skip to the shared entries",
	whoHeading: "Who shares this",
	sharedBy: "Shared by",
	sharerState: "The name the sharer set; not checked.",
	identity: "Identity",
	identityState: (domain: string) =>
		`Certified by ${domain}. Whether it is still valid, the app can check; this page cannot.`,
	server: "Server",
	serverState: (domain: string) =>
		`Not verified by this page. The app checks that the DNS record _svc.${domain} holds this key fingerprint:`,
	entries: "Entries",
	hiddenShow: "Show",
	download: (name: string) => `Download ${name}`,
	downloadAll: "Download all files as one zip",
	downloadNote: "Each download button works once, for ten minutes.",
	archiveNote: "The zip works once, for two minutes.",
	aboutHeading: "About this share",
	expires: "Expires",
	noExpiry: "Does not expire",
	views: "Views",
	viewsLeft: (n: string) => `${n} left after this one`,
	lastView: "This was the last view",
	noViewLimit: "No limit",
	current: "The values are read live: they change when the sharer changes them.",
	watermarked: "Files you download are stamped with who they were sent to.",
	alsoAs: "Also as",
	alsoAsNote: "Each of these counts as a view.",
	addressbook: "Address book for contacts apps (CardDAV)",
	footer: (domain: string) => `Served by ${domain}. Not listed anywhere, not indexed by search engines.`,
	passwordHeading: "This share needs a password",
	passwordIntro: "Enter the password the sharer gave you.",
	password: "Password",
	openAs: "Open as",
	open: "Open",
	opensView: "Opening counts as one view.",
	passwordWrong: "The password is wrong.",
	passwordMissing: "Enter the password.",
	appHeading: "Open this share in the app",
	appIntro:
		"The sharer asks readers to prove who they are. Only the app can do that: open it and paste this link there.",
	goneHeading: "This share is not available",
	gone: {
		link_paused: "The sharer has paused this share. It may open again later.",
		link_revoked: "The sharer has withdrawn this share.",
		link_expired: "This share has expired.",
		link_not_found: "There is no share at this address. Check the link you were given.",
	} as Record<string, string>,
	errorHeading: "This page could not be shown",
	tooMany: "Too many requests from your address. Wait a minute and try again.",
	formats: { html: "Page", csv: "CSV (spreadsheet)", vcf: "vCard (contact)", ics: "iCalendar (dates)" },
};

const de: typeof en = {
	untitled: "Mit Ihnen geteilt",
	skip: "Zu den geteilten Einträgen springen",
	whoHeading: "Wer das teilt",
	sharedBy: "Geteilt von",
	sharerState: "Der Name, den die teilende Person angegeben hat; nicht geprüft.",
	identity: "Identität",
	identityState: (domain: string) =>
		`Beglaubigt von ${domain}. Ob sie noch gültig ist, kann die App prüfen, diese Seite nicht.`,
	server: "Server",
	serverState: (domain: string) =>
		`Von dieser Seite nicht geprüft. Die App prüft, ob der DNS-Eintrag _svc.${domain} diesen Schlüssel-Fingerabdruck enthält:`,
	entries: "Einträge",
	hiddenShow: "Anzeigen",
	download: (name: string) => `${name} herunterladen`,
	downloadAll: "Alle Dateien als ZIP herunterladen",
	downloadNote: "Jeder Download-Knopf funktioniert einmal, zehn Minuten lang.",
	archiveNote: "Die ZIP-Datei funktioniert einmal, zwei Minuten lang.",
	aboutHeading: "Über diese Freigabe",
	expires: "Läuft ab",
	noExpiry: "Läuft nicht ab",
	views: "Aufrufe",
	viewsLeft: (n: string) => `Noch ${n} nach diesem Aufruf`,
	lastView: "Das war der letzte Aufruf",
	noViewLimit: "Unbegrenzt",
	current: "Die Werte werden live gelesen: Sie ändern sich, wenn die teilende Person sie ändert.",
	watermarked: "Heruntergeladene Dateien werden mit dem Empfänger gestempelt.",
	alsoAs: "Auch als",
	alsoAsNote: "Jeder dieser Abrufe zählt als Aufruf.",
	addressbook: "Adressbuch für Kontakte-Apps (CardDAV)",
	footer: (domain: string) =>
		`Bereitgestellt von ${domain}. Nirgends verzeichnet, von Suchmaschinen nicht erfasst.`,
	passwordHeading: "Diese Freigabe braucht ein Passwort",
	passwordIntro: "Geben Sie das Passwort ein, das Sie erhalten haben.",
	password: "Passwort",
	openAs: "Öffnen als",
	open: "Öffnen",
	opensView: "Das Öffnen zählt als ein Aufruf.",
	passwordWrong: "Das Passwort ist falsch.",
	passwordMissing: "Bitte geben Sie das Passwort ein.",
	appHeading: "Öffnen Sie diese Freigabe in der App",
	appIntro:
		"Die teilende Person verlangt, dass Lesende belegen, wer sie sind. Das kann nur die App: Öffnen Sie sie und fügen Sie diesen Link dort ein.",
	goneHeading: "Diese Freigabe ist nicht verfügbar",
	gone: {
		link_paused: "Die teilende Person hat diese Freigabe pausiert. Sie kann später wieder geöffnet werden.",
		link_revoked: "Die teilende Person hat diese Freigabe zurückgezogen.",
		link_expired: "Diese Freigabe ist abgelaufen.",
		link_not_found: "Unter dieser Adresse gibt es keine Freigabe. Prüfen Sie den Link.",
	},
	errorHeading: "Diese Seite kann nicht angezeigt werden",
	tooMany: "Zu viele Anfragen von Ihrer Adresse. Warten Sie eine Minute und versuchen Sie es erneut.",
	formats: { html: "Seite", csv: "CSV (Tabelle)", vcf: "vCard (Kontakt)", ics: "iCalendar (Termine)" },
};

export type Strings = typeof en;
export const STRINGS: Record<Language, Strings> = { en, de };

/** The reader's formats, made once per language (Intl formatters are costly to build). */
function formatters(lang: Language) {
	return {
		moment: new Intl.DateTimeFormat(lang, { dateStyle: "long", timeStyle: "short", timeZone: "UTC" }),
		day: new Intl.DateTimeFormat(lang, { dateStyle: "long", timeZone: "UTC" }),
		number: new Intl.NumberFormat(lang),
		bytes: new Intl.NumberFormat(lang, { style: "unit", unit: "byte", unitDisplay: "long" }),
		kilobytes: new Intl.NumberFormat(lang, { style: "unit", unit: "kilobyte", maximumFractionDigits: 1 }),
		megabytes: new Intl.NumberFormat(lang, { style: "unit", unit: "megabyte", maximumFractionDigits: 1 }),
	};
}
export const FORMAT = { en: formatters("en"), de: formatters("de") } satisfies Record<Language, unknown>;
