// The front page at `/`: what this server is, its domain and root key fingerprint (to check against
// the `_svc.<domain>` TXT record), where to sign in or up, and where the API is described. Plain
// HTML with the console's front stylesheet; no script.

import type { Lang } from "../../http/language.ts";
import { icon, MARK_SVG, PRODUCT } from "../../lib/brand.ts";
import { escapeHtml } from "../../lib/html.ts";

export interface FrontView {
	lang: Lang;
	domain: string;
	fingerprint: string;
	txtHost: string;
	allowSignups: boolean;
	stylesheet: string | undefined;
}

const text = {
	en: {
		title: "Living grants on {domain}",
		lead: "This server keeps a vault of values and files for its owners and hands out living shares: every read gets the current value, and a share can be paused or revoked at any moment. Requests collect data from others as revocable links instead of copies. Signing in uses passkeys only; there are no passwords.",
		signIn: "Sign in",
		signUp: "Create an account",
		ticket:
			"New here? Accounts on this server are created with a one-time link from its operator. Open the link in this browser; it brings you to the console.",
		ticketOpen:
			"Got a one-time link from the operator? Open it in this browser; it brings you to the console.",
		identity: "This server's identity",
		domain: "Domain",
		fingerprint: "Root key fingerprint (SHA-256)",
		dns: "DNS record",
		dnsHint:
			"A verifier reads the TXT record at {host} and requires it to hold this fingerprint. If it does not, this is not the server it claims to be.",
		developers: "For developers",
		openapi: "OpenAPI document (every endpoint)",
		server: "Signed server claim",
		permissions: "Permission catalogue for API keys",
		docs: "The decisions behind every endpoint are written down in docs/api.md of the project's repository.",
		footer: "svc is open source under the AGPL-3.0-or-later.",
		language: "Language",
	},
	de: {
		title: "Lebendige Freigaben auf {domain}",
		lead: "Dieser Server bewahrt für seine Eigentümer Werte und Dateien in einem Tresor auf und gibt lebendige Freigaben heraus: Jeder Abruf liefert den aktuellen Wert, und eine Freigabe lässt sich jederzeit pausieren oder widerrufen. Anfragen sammeln Daten von anderen als widerrufbare Verweise statt als Kopien. Angemeldet wird nur mit Passkeys; Passwörter gibt es nicht.",
		signIn: "Anmelden",
		signUp: "Konto anlegen",
		ticket:
			"Neu hier? Konten auf diesem Server werden mit einem Einmal-Link seines Betreibers angelegt. Öffnen Sie den Link in diesem Browser; er führt Sie in die Konsole.",
		ticketOpen:
			"Sie haben einen Einmal-Link vom Betreiber? Öffnen Sie ihn in diesem Browser; er führt Sie in die Konsole.",
		identity: "Die Identität dieses Servers",
		domain: "Domain",
		fingerprint: "Fingerabdruck des Stammschlüssels (SHA-256)",
		dns: "DNS-Eintrag",
		dnsHint:
			"Wer prüft, liest den TXT-Eintrag unter {host} und verlangt, dass er diesen Fingerabdruck enthält. Sonst ist dies nicht der Server, der er zu sein behauptet.",
		developers: "Für Entwickler",
		openapi: "OpenAPI-Dokument (alle Endpunkte)",
		server: "Signierte Server-Angabe",
		permissions: "Berechtigungen für API-Schlüssel",
		docs: "Die Entscheidungen hinter jedem Endpunkt stehen in docs/api.md im Repository des Projekts.",
		footer: "svc ist Open Source unter der AGPL-3.0-or-later.",
		language: "Sprache",
	},
} satisfies Record<Lang, Record<string, string>>;

type Key = keyof (typeof text)["en"];

export function renderFrontPage(view: FrontView): string {
	const t = (key: Key, vars: Record<string, string> = {}) =>
		escapeHtml(text[view.lang][key].replace(/\{(\w+)\}/g, (w, n: string) => vars[n] ?? w));
	const other: Lang = view.lang === "en" ? "de" : "en";
	const otherName = other === "de" ? "Deutsch" : "English";
	const css = view.stylesheet
		? `<link rel="stylesheet" href="/app/assets/${escapeHtml(view.stylesheet)}">\n`
		: "";
	return `<!doctype html>
<html lang="${view.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${t("title", { domain: view.domain })}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
${css}</head>
<body class="front-page">
<header class="site-header">
<div class="site-header-inner">
<p class="brand"><span class="brand-name">${MARK_SVG}${PRODUCT}</span><span class="brand-domain">${escapeHtml(view.domain)}</span></p>
<nav aria-label="${t("language")}"><a class="lang-link" href="/?lang=${other}" hreflang="${other}" lang="${other}">${icon("languages")}${otherName}</a></nav>
</div>
</header>
<div class="front">
<main>
<section class="hero">
<h1>${t("title", { domain: view.domain })}</h1>
<p class="lead">${t("lead")}</p>
<p class="actions">
<a class="btn btn-primary" href="/app/signin">${icon("log-in")}${t("signIn")}</a>
${view.allowSignups ? `<a class="btn btn-secondary" href="/app/signup">${icon("user-plus")}${t("signUp")}</a>\n` : ""}</p>
<p class="hint">${view.allowSignups ? t("ticketOpen") : t("ticket")}</p>
</section>
<section class="panel" aria-labelledby="identity">
<h2 id="identity">${icon("shield-check")}${t("identity")}</h2>
<dl>
<dt>${t("domain")}</dt>
<dd>${escapeHtml(view.domain)}</dd>
<dt>${t("fingerprint")}</dt>
<dd><code id="fingerprint">${escapeHtml(view.fingerprint)}</code></dd>
<dt>${t("dns")}</dt>
<dd><code>${escapeHtml(view.txtHost)} TXT "${escapeHtml(view.fingerprint)}"</code></dd>
</dl>
<p class="hint">${t("dnsHint", { host: view.txtHost })}</p>
</section>
<section class="panel" aria-labelledby="developers">
<h2 id="developers">${icon("code")}${t("developers")}</h2>
<ul>
<li><a href="/api/openapi.json">${t("openapi")}</a>: <code>/api/openapi.json</code></li>
<li><a href="/api/server">${t("server")}</a>: <code>/api/server</code></li>
<li><a href="/api/permissions">${t("permissions")}</a>: <code>/api/permissions</code></li>
</ul>
<p class="hint">${t("docs")}</p>
</section>
</main>
<footer>${t("footer")}</footer>
</div>
</body>
</html>
`;
}
