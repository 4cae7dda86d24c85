// The sign-in and consent page of `/oidc/authorize`, in English or German. Values from the request
// reach the page only as escaped text or data attributes; the script (web/oidc.js) reads its words
// from a JSON data block, which the page's CSP (no inline script) does not run.
import { brandHeader, icon } from "../../lib/brand.ts";
import { escapeHtml } from "../../lib/html.ts";
import type { OptionalScope } from "./authorize-checks.ts";

export type Lang = "en" | "de";

const WORDS = {
	en: {
		title: (host: string) => `Sign in to ${host}`,
		intro: (client: string, domain: string) =>
			`${client} asks you to sign in with your account on ${domain}. Nothing is shared until you agree.`,
		asks: "It asks for:",
		always: "A pseudonymous ID for this service only (always)",
		scope: {
			profile: "Your name",
			email: "Your email address",
			svc_identity: "The fingerprint of your identity",
		} satisfies Record<OptionalScope, string>,
		entries: (keys: string) => `Entries from your vault, as live links: ${keys}`,
		start: "Sign in with a passkey",
		signedIn: "Signed in as",
		share: "What to share",
		shareHint: "Untick what you do not want to share.",
		links: "Entries from your vault",
		linksHint:
			"The service reads the current value each time and loses access when you revoke the link in your console.",
		leaveOut: "Leave out",
		noEntry: "You have no entry under this key.",
		allow: "Allow",
		decline: "Decline",
		errorTitle: "This sign-in cannot start",
		errorCode: "Error code",
		noscript: "Passkeys need JavaScript: please turn it on for this page.",
		script: {
			waiting: "Waiting for your passkey…",
			checking: "Checking…",
			returning: "Returning to the service…",
			unsupported: "This browser does not support passkeys.",
			cancelled: "The passkey prompt was closed or timed out. Press the button to try again.",
			failed: "Something went wrong.",
			oidc_request_invalid: "This sign-in expired or was already used. Start again from the service.",
			oidc_link_record_invalid:
				"One of the chosen entries is not yours any more. Start again from the service.",
			passkey_verification_failed: "The passkey could not be verified. Please try again.",
			passkey_ceremony_invalid: "This attempt expired. Please try again.",
			passkey_grant_invalid: "This attempt expired. Please try again.",
			passkey_origin_invalid: "Passkeys work only at this server's own address.",
			rate_limited: "Too many attempts. Wait a minute and try again.",
			hidden: "hidden",
			file: "file",
		},
	},
	de: {
		title: (host: string) => `Bei ${host} anmelden`,
		intro: (client: string, domain: string) =>
			`${client} bittet Sie, sich mit Ihrem Konto auf ${domain} anzumelden. Nichts wird geteilt, bevor Sie zustimmen.`,
		asks: "Gewünscht sind:",
		always: "Eine pseudonyme Kennung nur für diesen Dienst (immer)",
		scope: {
			profile: "Ihr Name",
			email: "Ihre E-Mail-Adresse",
			svc_identity: "Der Fingerabdruck Ihrer Identität",
		} satisfies Record<OptionalScope, string>,
		entries: (keys: string) => `Einträge aus Ihrem Tresor, als lebende Links: ${keys}`,
		start: "Mit Passkey anmelden",
		signedIn: "Angemeldet als",
		share: "Was geteilt wird",
		shareHint: "Entfernen Sie das Häkchen bei allem, was Sie nicht teilen möchten.",
		links: "Einträge aus Ihrem Tresor",
		linksHint:
			"Der Dienst liest jedes Mal den aktuellen Wert und verliert den Zugriff, sobald Sie den Link in Ihrer Konsole widerrufen.",
		leaveOut: "Nicht teilen",
		noEntry: "Sie haben keinen Eintrag unter diesem Schlüssel.",
		allow: "Erlauben",
		decline: "Ablehnen",
		errorTitle: "Diese Anmeldung kann nicht beginnen",
		errorCode: "Fehlercode",
		noscript: "Passkeys brauchen JavaScript: Bitte schalten Sie es für diese Seite ein.",
		script: {
			waiting: "Warte auf Ihren Passkey…",
			checking: "Wird geprüft…",
			returning: "Zurück zum Dienst…",
			unsupported: "Dieser Browser unterstützt keine Passkeys.",
			cancelled:
				"Die Passkey-Abfrage wurde geschlossen oder ist abgelaufen. Drücken Sie die Schaltfläche, um es erneut zu versuchen.",
			failed: "Etwas ist schiefgegangen.",
			oidc_request_invalid:
				"Diese Anmeldung ist abgelaufen oder wurde schon verwendet. Beginnen Sie erneut beim Dienst.",
			oidc_link_record_invalid:
				"Einer der gewählten Einträge gehört nicht mehr Ihnen. Beginnen Sie erneut beim Dienst.",
			passkey_verification_failed: "Der Passkey konnte nicht geprüft werden. Bitte versuchen Sie es erneut.",
			passkey_ceremony_invalid: "Dieser Versuch ist abgelaufen. Bitte versuchen Sie es erneut.",
			passkey_grant_invalid: "Dieser Versuch ist abgelaufen. Bitte versuchen Sie es erneut.",
			passkey_origin_invalid: "Passkeys funktionieren nur unter der eigenen Adresse dieses Servers.",
			rate_limited: "Zu viele Versuche. Warten Sie eine Minute und versuchen Sie es erneut.",
			hidden: "verborgen",
			file: "Datei",
		},
	},
} as const;

const head = (lang: Lang, title: string, domain?: string) => `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/assets/passkey.css">
<link rel="stylesheet" href="/assets/oidc.css">
<script src="/assets/simplewebauthn-browser.js" defer></script>
<script src="/assets/oidc.js" defer></script>
</head>
<body>
${brandHeader(domain)}`;

/** The refusal page: the request cannot be tied to a service's checked address, so nothing is sent back. */
export function renderRefusal(lang: Lang, detail: string): string {
	const w = WORDS[lang];
	return `${head(lang, w.errorTitle)}<main>
<h1>${escapeHtml(w.errorTitle)}</h1>
<p role="alert">${escapeHtml(detail)}</p>
<p>${escapeHtml(w.errorCode)}: <code>oidc_request_invalid</code></p>
</main>
</body>
</html>
`;
}

export interface PageRequest {
	handle: string;
	client: string;
	domain: string;
	scopes: readonly OptionalScope[];
	keys: readonly string[];
}

export function renderAuthorize(lang: Lang, view: PageRequest): string {
	const w = WORDS[lang];
	const host = new URL(view.client).host;
	const asks = [
		`<li>${escapeHtml(w.always)}</li>`,
		...view.scopes.map((s) => `<li>${escapeHtml(w.scope[s])}</li>`),
		...(view.keys.length > 0 ? [`<li>${escapeHtml(w.entries(view.keys.join(", ")))}</li>`] : []),
	].join("\n");
	const boxes = view.scopes
		.map(
			(s) =>
				`<p class="choice"><input type="checkbox" id="scope-${s}" name="scope" value="${s}" checked>
<label for="scope-${s}">${escapeHtml(w.scope[s])} <span class="reveals" id="reveals-${s}"></span></label></p>`,
		)
		.join("\n");
	const words = JSON.stringify({ ...w.script, leaveOut: w.leaveOut, noEntry: w.noEntry }).replaceAll(
		"<",
		"\\u003c",
	);
	return `${head(lang, w.title(host), view.domain)}<main id="oidc" data-request="${escapeHtml(view.handle)}">
<h1>${escapeHtml(w.title(host))}</h1>
<p>${escapeHtml(w.intro(view.client, view.domain))}</p>
<section id="signin" aria-labelledby="asks-heading">
<h2 id="asks-heading">${escapeHtml(w.asks)}</h2>
<ul>
${asks}
</ul>
<p><button id="start" type="button" disabled>${icon("key-round")}${escapeHtml(w.start)}</button></p>
</section>
<form id="consent" hidden novalidate>
<p>${escapeHtml(w.signedIn)} <strong id="account"></strong></p>
${
	view.scopes.length > 0
		? `<fieldset>
<legend>${escapeHtml(w.share)}</legend>
<p class="hint">${escapeHtml(w.shareHint)}</p>
${boxes}
</fieldset>`
		: ""
}
${
	view.keys.length > 0
		? `<fieldset id="links">
<legend>${escapeHtml(w.links)}</legend>
<p class="hint">${escapeHtml(w.linksHint)}</p>
</fieldset>`
		: ""
}
<p class="actions"><button id="allow" type="submit">${icon("shield-check")}${escapeHtml(w.allow)}</button>
<button id="decline" type="button" class="secondary">${escapeHtml(w.decline)}</button></p>
</form>
<p id="status" role="status" aria-live="polite"></p>
<div id="error" role="alert" hidden></div>
<script type="application/json" id="oidc-words">${words}</script>
<noscript><p>${escapeHtml(w.noscript)}</p></noscript>
</main>
</body>
</html>
`;
}
