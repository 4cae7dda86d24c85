// The `/passkey` page as HTML, in English or German. Every value from the query reaches the page
// only through escaped text or data attributes; there is no inline script or style (the page's CSP
// forbids both), so the script (web/passkey.js) learns the language from `<html lang>` and
// `data-lang`, and keeps its own words.
import type { Lang } from "../../http/language.ts";
import { brandHeader, icon } from "../../lib/brand.ts";
import { escapeHtml } from "../../lib/html.ts";

export type PageView =
	| { kind: "error"; title: string; message: string; link?: { href: string; text: string } }
	| {
			kind: "signin" | "signup" | "add" | "ticket-signup";
			domain: string;
			/** Values the script sends on; reflected only as data attributes. */
			data: { mode: string; ticket: string; challenge: string; state: string };
			/** The account a ticket is for (shown so the person knows what they are adding to). */
			email?: string;
	  };

/** The page's own words. `intro` functions get the values already escaped and return HTML. */
const WORDS = {
	en: {
		signinHeading: (domain: string) => `Sign in to ${domain}`,
		signinIntro: "Use the passkey saved on this device, a security key or your phone.",
		signinButton: "Sign in with a passkey",
		signupHeading: (domain: string) => `Create an account on ${domain}`,
		signupIntro: "There is no password: your account is opened with a passkey kept on your device.",
		ticketHeading: (domain: string) => `Create your account on ${domain}`,
		ticketIntro: (email: string) =>
			`This one-time link creates the account <strong>${email}</strong> with a passkey.`,
		addHeading: "Add a passkey",
		addIntro: (email: string, domain: string) =>
			`This one-time link adds a passkey to <strong>${email}</strong> on ${domain}.`,
		email: "Email",
		name: "Your name (optional)",
		passkeyName: "Name for this passkey (optional)",
		create: "Create a passkey",
		done: "Done",
		appFallback: (link: (text: string) => string) =>
			`If the app did not open, ${link("open the app")}, or enter this one-time code in it (valid two minutes):`,
		openConsole: "Open the console",
		noscript: "Passkeys need JavaScript: please turn it on for this page.",
	},
	de: {
		signinHeading: (domain: string) => `Bei ${domain} anmelden`,
		signinIntro: "Verwenden Sie den Passkey dieses Geräts, einen Sicherheitsschlüssel oder Ihr Telefon.",
		signinButton: "Mit Passkey anmelden",
		signupHeading: (domain: string) => `Konto auf ${domain} anlegen`,
		signupIntro: "Es gibt kein Passwort: Ihr Konto wird mit einem Passkey auf Ihrem Gerät eröffnet.",
		ticketHeading: (domain: string) => `Ihr Konto auf ${domain} anlegen`,
		ticketIntro: (email: string) =>
			`Dieser Einmal-Link legt das Konto <strong>${email}</strong> mit einem Passkey an.`,
		addHeading: "Passkey hinzufügen",
		addIntro: (email: string, domain: string) =>
			`Dieser Einmal-Link fügt dem Konto <strong>${email}</strong> auf ${domain} einen Passkey hinzu.`,
		email: "E-Mail",
		name: "Ihr Name (optional)",
		passkeyName: "Name für diesen Passkey (optional)",
		create: "Passkey erstellen",
		done: "Fertig",
		appFallback: (link: (text: string) => string) =>
			`Falls sich die App nicht geöffnet hat, ${link("öffnen Sie die App")} oder geben Sie dort diesen Einmal-Code ein (zwei Minuten gültig):`,
		openConsole: "Konsole öffnen",
		noscript: "Passkeys brauchen JavaScript: Bitte schalten Sie es für diese Seite ein.",
	},
} as const;

const head = (lang: Lang, title: string, domain?: string) => `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/assets/passkey.css">
<script src="/assets/simplewebauthn-browser.js" defer></script>
<script src="/assets/passkey.js" defer></script>
</head>
<body>
${brandHeader(domain)}`;

const field = (id: string, label: string, attrs: string) =>
	`<p class="field"><label for="${id}">${escapeHtml(label)}</label>\n<input id="${id}" name="${id}" ${attrs}></p>\n`;

function formFor(
	view: Extract<PageView, { data: unknown }>,
	lang: Lang,
): {
	heading: string;
	intro: string;
	fields: string;
	button: string;
} {
	const w = WORDS[lang];
	const domain = escapeHtml(view.domain);
	const email = escapeHtml(view.email ?? "");
	// `heading` and `button` are plain text (escaped when written); `intro` and `fields` are HTML.
	switch (view.kind) {
		case "signin":
			return {
				heading: w.signinHeading(view.domain),
				intro: escapeHtml(w.signinIntro),
				fields: "",
				button: w.signinButton,
			};
		case "signup":
			return {
				heading: w.signupHeading(view.domain),
				intro: escapeHtml(w.signupIntro),
				fields:
					field("email", w.email, 'type="email" autocomplete="email" required maxlength="320"') +
					field("name", w.name, 'type="text" autocomplete="name" maxlength="200"'),
				button: w.create,
			};
		case "ticket-signup":
			return {
				heading: w.ticketHeading(view.domain),
				intro: w.ticketIntro(email),
				fields: field("name", w.name, 'type="text" autocomplete="name" maxlength="200"'),
				button: w.create,
			};
		case "add":
			return {
				heading: w.addHeading,
				intro: w.addIntro(email, domain),
				fields: field("name", w.passkeyName, 'type="text" autocomplete="off" maxlength="200"'),
				button: w.create,
			};
		default:
			// The error page has no form; renderPage never asks for one.
			throw new Error(`no form for page kind ${String(view.kind)}`);
	}
}

export function renderPage(view: PageView, lang: Lang): string {
	if (view.kind === "error") {
		const link = view.link
			? `<p><a href="${escapeHtml(view.link.href)}">${escapeHtml(view.link.text)}</a></p>\n`
			: "";
		return `${head(lang, view.title)}<main>
<h1>${escapeHtml(view.title)}</h1>
<p role="alert">${escapeHtml(view.message)}</p>
${link}</main>
</body>
</html>
`;
	}
	const w = WORDS[lang];
	const form = formFor(view, lang);
	const d = view.data;
	const appLink = (text: string) => `<a id="result-link" href="#">${escapeHtml(text)}</a>`;
	return `${head(lang, form.heading, view.domain)}<main id="passkey" data-lang="${lang}" data-mode="${escapeHtml(d.mode)}" data-ticket="${escapeHtml(d.ticket)}" data-challenge="${escapeHtml(d.challenge)}" data-state="${escapeHtml(d.state)}">
<h1>${escapeHtml(form.heading)}</h1>
<p>${form.intro}</p>
<form id="ceremony" novalidate>
${form.fields}<p><button id="start" type="submit" disabled>${icon("key-round")}${escapeHtml(form.button)}</button></p>
</form>
<p id="status" role="status" aria-live="polite"></p>
<div id="error" role="alert" hidden></div>
<section id="result" aria-labelledby="result-heading" hidden>
<h2 id="result-heading" tabindex="-1">${escapeHtml(w.done)}</h2>
<p id="result-text"></p>
<div id="result-app" hidden>
<p>${w.appFallback(appLink)}</p>
<p><code id="result-code"></code></p>
</div>
<p id="result-console" hidden><a href="/app/">${escapeHtml(w.openConsole)}</a></p>
</section>
<noscript><p>${escapeHtml(w.noscript)}</p></noscript>
</main>
</body>
</html>
`;
}
