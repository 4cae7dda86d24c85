// The share page's words in English and German, and the reader's date and number formats
// (Intl, in the negotiated language). Values and names are the sharer's and are never translated.
import type { Language } from "./negotiate.ts";

const en = {
	untitled: "Shared with you",
	skip: "Skip to the shared entries",
	sharedWithYou: (who: string) => `Shared with you by ${who}`,
	someone: "the person who shared it",
	viaIdentity: (name: string) => `, as ${name}`,
	entries: "Entries",
	hiddenShow: "Show",
	download: (name: string) => `Download ${name}`,
	downloadAll: "Download all files as one zip",
	downloadNote: "Each download button works once, for ten minutes.",
	archiveNote: "The zip works once, for two minutes.",
	saveHeading: "Save a copy",
	saveNote: "Each works once, for ten minutes from opening this page, and does not count as another view.",
	addressbook: "Address book for contacts apps (CardDAV)",
	addressbookNote: "A contacts app that syncs it takes a view each time it reads the card.",
	aboutHeading: "About this share",
	expires: "Expires",
	noExpiry: "Does not expire",
	views: "Views",
	viewsLeft: (n: string) => `${n} left after this one`,
	lastView: "This was the last view",
	noViewLimit: "No limit",
	current: "The values are read live: they change when the sharer changes them.",
	watermarked: "Files you download are stamped with who they were sent to.",
	helpHeading: "What you can do",
	helpRead: "Read the entries above: they are the current values, as the sharer keeps them.",
	helpSave: "Save a copy or download the files from this page, without counting another view.",
	helpAgain: "Opening this page again counts as a new view.",
	helpAsk: (who: string) =>
		`If something is missing, wrong or no longer opens, ask ${who}: only they can change it.`,
	whoHeading: "Who shares this",
	sharedBy: "Shared by",
	sharerState: "The name the sharer gave. This page does not check it.",
	identity: "Identity",
	identityState: (domain: string) =>
		`Certified by ${domain}. The app can tell you whether it is still valid; this page cannot.`,
	server: "Server",
	serverState: (domain: string) =>
		`To be sure this page comes from ${domain}, the app compares this key with the one ${domain} publishes in its DNS. This page cannot check that itself. The key:`,
	footer: (domain: string) => `Served by ${domain}. Not listed anywhere, not indexed by search engines.`,
	passwordHeading: "This share needs a password",
	passwordIntro: "Enter the password the sharer gave you.",
	password: "Password",
	open: "Open",
	opensView:
		"Opening counts as one view. From the opened page you can also save a copy (CSV, vCard, iCalendar) without another view.",
	opensFormat: (name: string) => `Opening downloads the share as ${name} and counts as one view.`,
	passwordWrong: "The password is wrong.",
	passwordMissing: "Enter the password.",
	appHeading: "Open this share in the app",
	appIntro:
		"The sharer asks readers to prove who they are. Only the app can do that: open it and paste this link there.",
	refused: {
		paused: {
			heading: "This share is paused",
			text: (who: string) => `${who} has paused this share for now. It may open again later.`,
			next: (who: string) => `Try again another time, or ask ${who}.`,
		},
		revoked: {
			heading: "This share was withdrawn",
			text: (who: string) => `${who} has withdrawn this share: it no longer opens.`,
			next: (who: string) => `If you still need what it held, ask ${who} for a new link.`,
		},
		usedUp: {
			heading: "This share's views are used up",
			text: () => "This share could be opened a set number of times, and every view has been used.",
			next: (who: string) => `If you still need it, ask ${who} for a new link.`,
		},
		expired: {
			heading: "This share has expired",
			text: () => "This share has expired.",
			next: (who: string) => `If you still need it, ask ${who} for a new link.`,
		},
		notFound: {
			heading: "There is no share at this address",
			text: () => "There is no share at this address.",
			next: () =>
				"Check that you have the whole link, exactly as you were given it. If it is right, ask the person who shared it.",
		},
		tooMany: {
			heading: "Too many attempts",
			text: () => "Too many requests came from your address.",
			next: () => "Wait a minute and try again.",
		},
		token: {
			heading: "This download link no longer works",
			text: () => "Each download from a share's page works once, for ten minutes after opening the page.",
			next: () => "Open the share again to download it once more: that counts as a view.",
		},
		other: {
			heading: "This page could not be shown",
			text: () => "Something about this address is not right.",
			next: () => "Check the link you were given, or ask the person who shared it.",
		},
	},
	expiredOn: (date: string) => `This share could be opened until ${date}.`,
	formats: { html: "Page", csv: "CSV (spreadsheet)", vcf: "vCard (contact)", ics: "iCalendar (dates)" },
};

const de: typeof en = {
	untitled: "Mit Ihnen geteilt",
	skip: "Zu den geteilten Einträgen springen",
	sharedWithYou: (who: string) => `Mit Ihnen geteilt von ${who}`,
	someone: "die Person, die sie geteilt hat",
	viaIdentity: (name: string) => `, als ${name}`,
	entries: "Einträge",
	hiddenShow: "Anzeigen",
	download: (name: string) => `${name} herunterladen`,
	downloadAll: "Alle Dateien als ZIP herunterladen",
	downloadNote: "Jeder Download-Knopf funktioniert einmal, zehn Minuten lang.",
	archiveNote: "Die ZIP-Datei funktioniert einmal, zwei Minuten lang.",
	saveHeading: "Eine Kopie speichern",
	saveNote:
		"Jede funktioniert einmal, zehn Minuten ab dem Öffnen dieser Seite, und zählt nicht als weiterer Aufruf.",
	addressbook: "Adressbuch für Kontakte-Apps (CardDAV)",
	addressbookNote: "Eine Kontakte-App, die es abgleicht, verbraucht bei jedem Lesen der Karte einen Aufruf.",
	aboutHeading: "Über diese Freigabe",
	expires: "Läuft ab",
	noExpiry: "Läuft nicht ab",
	views: "Aufrufe",
	viewsLeft: (n: string) => `Noch ${n} nach diesem Aufruf`,
	lastView: "Das war der letzte Aufruf",
	noViewLimit: "Unbegrenzt",
	current: "Die Werte werden live gelesen: Sie ändern sich, wenn die teilende Person sie ändert.",
	watermarked: "Heruntergeladene Dateien werden mit dem Empfänger gestempelt.",
	helpHeading: "Was Sie tun können",
	helpRead:
		"Lesen Sie die Einträge oben: Es sind die aktuellen Werte, so wie die teilende Person sie pflegt.",
	helpSave:
		"Speichern Sie eine Kopie oder laden Sie die Dateien von dieser Seite herunter, ohne weiteren Aufruf.",
	helpAgain: "Diese Seite erneut zu öffnen zählt als neuer Aufruf.",
	helpAsk: (who: string) =>
		`Fehlt etwas, stimmt etwas nicht oder öffnet sich die Freigabe nicht mehr, fragen Sie ${who}: Nur diese Person kann es ändern.`,
	whoHeading: "Wer das teilt",
	sharedBy: "Geteilt von",
	sharerState: "Der Name, den die teilende Person angegeben hat. Diese Seite prüft ihn nicht.",
	identity: "Identität",
	identityState: (domain: string) =>
		`Beglaubigt von ${domain}. Ob sie noch gültig ist, kann die App prüfen, diese Seite nicht.`,
	server: "Server",
	serverState: (domain: string) =>
		`Ob diese Seite wirklich von ${domain} kommt, prüft die App: Sie vergleicht diesen Schlüssel mit dem, den ${domain} im DNS veröffentlicht. Diese Seite kann das nicht selbst prüfen. Der Schlüssel:`,
	footer: (domain: string) =>
		`Bereitgestellt von ${domain}. Nirgends verzeichnet, von Suchmaschinen nicht erfasst.`,
	passwordHeading: "Diese Freigabe braucht ein Passwort",
	passwordIntro: "Geben Sie das Passwort ein, das Sie erhalten haben.",
	password: "Passwort",
	open: "Öffnen",
	opensView:
		"Das Öffnen zählt als ein Aufruf. Von der geöffneten Seite aus können Sie auch eine Kopie speichern (CSV, vCard, iCalendar), ohne weiteren Aufruf.",
	opensFormat: (name: string) =>
		`Das Öffnen lädt die Freigabe als ${name} herunter und zählt als ein Aufruf.`,
	passwordWrong: "Das Passwort ist falsch.",
	passwordMissing: "Bitte geben Sie das Passwort ein.",
	appHeading: "Öffnen Sie diese Freigabe in der App",
	appIntro:
		"Die teilende Person verlangt, dass Lesende belegen, wer sie sind. Das kann nur die App: Öffnen Sie sie und fügen Sie diesen Link dort ein.",
	refused: {
		paused: {
			heading: "Diese Freigabe ist pausiert",
			text: (who: string) =>
				`${who} hat diese Freigabe vorerst pausiert. Sie kann später wieder geöffnet werden.`,
			next: (who: string) => `Versuchen Sie es später noch einmal, oder fragen Sie ${who}.`,
		},
		revoked: {
			heading: "Diese Freigabe wurde zurückgezogen",
			text: (who: string) => `${who} hat diese Freigabe zurückgezogen: Sie öffnet sich nicht mehr.`,
			next: (who: string) => `Brauchen Sie den Inhalt noch, bitten Sie ${who} um einen neuen Link.`,
		},
		usedUp: {
			heading: "Die Aufrufe dieser Freigabe sind aufgebraucht",
			text: () =>
				"Diese Freigabe ließ sich nur eine bestimmte Zahl von Malen öffnen, und alle Aufrufe sind verbraucht.",
			next: (who: string) => `Brauchen Sie sie noch, bitten Sie ${who} um einen neuen Link.`,
		},
		expired: {
			heading: "Diese Freigabe ist abgelaufen",
			text: () => "Diese Freigabe ist abgelaufen.",
			next: (who: string) => `Brauchen Sie sie noch, bitten Sie ${who} um einen neuen Link.`,
		},
		notFound: {
			heading: "Unter dieser Adresse gibt es keine Freigabe",
			text: () => "Unter dieser Adresse gibt es keine Freigabe.",
			next: () =>
				"Prüfen Sie, ob Sie den ganzen Link haben, genau so, wie Sie ihn erhalten haben. Stimmt er, fragen Sie die Person, die ihn geteilt hat.",
		},
		tooMany: {
			heading: "Zu viele Versuche",
			text: () => "Von Ihrer Adresse kamen zu viele Anfragen.",
			next: () => "Warten Sie eine Minute und versuchen Sie es erneut.",
		},
		token: {
			heading: "Dieser Download-Link funktioniert nicht mehr",
			text: () =>
				"Jeder Download von der Seite einer Freigabe funktioniert einmal, zehn Minuten ab dem Öffnen der Seite.",
			next: () => "Öffnen Sie die Freigabe erneut, um noch einmal herunterzuladen: Das zählt als ein Aufruf.",
		},
		other: {
			heading: "Diese Seite kann nicht angezeigt werden",
			text: () => "Mit dieser Adresse stimmt etwas nicht.",
			next: () =>
				"Prüfen Sie den Link, den Sie erhalten haben, oder fragen Sie die Person, die ihn geteilt hat.",
		},
	},
	expiredOn: (date: string) => `Diese Freigabe ließ sich bis ${date} öffnen.`,
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
