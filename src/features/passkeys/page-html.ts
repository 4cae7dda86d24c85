// The `/passkey` page as HTML. Every value from the query reaches the page only through escaped
// text or data attributes; there is no inline script or style (the page's CSP forbids both).

export function escapeHtml(value: string): string {
	return value
		.replaceAll("&", "&amp;")
		.replaceAll("<", "&lt;")
		.replaceAll(">", "&gt;")
		.replaceAll('"', "&quot;")
		.replaceAll("'", "&#39;");
}

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

const head = (title: string) => `<!doctype html>
<html lang="en">
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
`;

const field = (id: string, label: string, attrs: string) =>
	`<p class="field"><label for="${id}">${escapeHtml(label)}</label>\n<input id="${id}" name="${id}" ${attrs}></p>\n`;

function formFor(view: Extract<PageView, { data: unknown }>): {
	heading: string;
	intro: string;
	fields: string;
	button: string;
} {
	const domain = escapeHtml(view.domain);
	// `heading` and `button` are plain text (escaped when written); `intro` and `fields` are HTML.
	switch (view.kind) {
		case "signin":
			return {
				heading: `Sign in to ${view.domain}`,
				intro: "Use the passkey saved on this device, a security key or your phone.",
				fields: "",
				button: "Sign in with a passkey",
			};
		case "signup":
			return {
				heading: `Create an account on ${view.domain}`,
				intro: "There is no password: your account is opened with a passkey kept on your device.",
				fields:
					field("email", "Email", 'type="email" autocomplete="email" required maxlength="320"') +
					field("name", "Your name (optional)", 'type="text" autocomplete="name" maxlength="200"'),
				button: "Create a passkey",
			};
		case "ticket-signup":
			return {
				heading: `Create your account on ${view.domain}`,
				intro: `This one-time link creates the account <strong>${escapeHtml(view.email ?? "")}</strong> with a passkey.`,
				fields: field("name", "Your name (optional)", 'type="text" autocomplete="name" maxlength="200"'),
				button: "Create a passkey",
			};
		case "add":
			return {
				heading: "Add a passkey",
				intro: `This one-time link adds a passkey to <strong>${escapeHtml(view.email ?? "")}</strong> on ${domain}.`,
				fields: field(
					"name",
					"Name for this passkey (optional)",
					'type="text" autocomplete="off" maxlength="200"',
				),
				button: "Create a passkey",
			};
		default:
			// The error page has no form; renderPage never asks for one.
			throw new Error(`no form for page kind ${String(view.kind)}`);
	}
}

export function renderPage(view: PageView): string {
	if (view.kind === "error") {
		const link = view.link
			? `<p><a href="${escapeHtml(view.link.href)}">${escapeHtml(view.link.text)}</a></p>\n`
			: "";
		return `${head(view.title)}<main>
<h1>${escapeHtml(view.title)}</h1>
<p role="alert">${escapeHtml(view.message)}</p>
${link}</main>
</body>
</html>
`;
	}
	const form = formFor(view);
	const d = view.data;
	return `${head(form.heading)}<main id="passkey" data-mode="${escapeHtml(d.mode)}" data-ticket="${escapeHtml(d.ticket)}" data-challenge="${escapeHtml(d.challenge)}" data-state="${escapeHtml(d.state)}">
<h1>${escapeHtml(form.heading)}</h1>
<p>${form.intro}</p>
<form id="ceremony" novalidate>
${form.fields}<p><button id="start" type="submit" disabled>${escapeHtml(form.button)}</button></p>
</form>
<p id="status" role="status" aria-live="polite"></p>
<div id="error" role="alert" hidden></div>
<section id="result" aria-labelledby="result-heading" hidden>
<h2 id="result-heading" tabindex="-1">Done</h2>
<p id="result-text"></p>
<div id="result-app" hidden>
<p>If the app did not open, <a id="result-link" href="#">open the app</a>, or enter this one-time code in it (valid two minutes):</p>
<p><code id="result-code"></code></p>
</div>
<p id="result-console" hidden><a href="/app/">Open the console</a></p>
</section>
<noscript><p>Passkeys need JavaScript: please turn it on for this page.</p></noscript>
</main>
</body>
</html>
`;
}
