// The passkey page's script: runs the ceremony with @simplewebauthn/browser (served by this server
// as /assets/simplewebauthn-browser.js), then opens svc://auth?code=…&state=… and shows the code
// and the link for a browser that cannot open the app. Values come from the page's data attributes;
// the language (English or German) from `data-lang`, else `<html lang>`.
//
// A classic script (loaded with `defer`): the block keeps its constants and functions out of the
// page's global scope. Nothing runs unless the page is the passkey page.

{
	const root = document.getElementById("passkey");
	const { mode, ticket, challenge, state } = root ? root.dataset : {};
	const form = document.getElementById("ceremony");
	const button = document.getElementById("start");
	const status = document.getElementById("status");
	const errorBox = document.getElementById("error");
	const lib = window.SimpleWebAuthnBrowser;

	const words = {
		en: {
			errors: {
				signups_disabled: "Sign-ups are off on this server. Ask its operator for a one-time link.",
				passkey_email_invalid: "Enter a valid email address.",
				passkey_email_taken: "An account with this email exists. Sign in from the app instead.",
				passkey_ticket_invalid: "This one-time link is unknown, expired or already used.",
				passkey_ceremony_invalid: "This attempt expired. Please try again.",
				passkey_verification_failed: "The passkey could not be verified. Please try again.",
				passkey_origin_invalid: "Passkeys work only at this server's own address.",
				passkey_request_invalid: "The request was not understood. Reload the page and try again.",
				rate_limited: "Too many attempts. Wait a minute and try again.",
			},
			errorCode: "Error code: ",
			waiting: "Waiting for your passkey…",
			checking: "Checking…",
			savedConsole: "Your passkey is saved. You can now sign in from the app, or continue in this browser.",
			signedInReturning: "You are signed in. Returning to the app…",
			savedReturning: "Your passkey is saved. Returning to the app…",
			saved: "Your passkey is saved. You can now sign in from the app.",
			cancelled: "The passkey prompt was closed or timed out. Press the button to try again.",
			exists: "This device already holds a passkey for this account.",
			unsupported: "This browser does not support passkeys.",
			failed: "Something went wrong.",
		},
		de: {
			errors: {
				signups_disabled:
					"Registrierungen sind auf diesem Server abgeschaltet. Bitten Sie den Betreiber um einen Einmal-Link.",
				passkey_email_invalid: "Geben Sie eine gültige E-Mail-Adresse ein.",
				passkey_email_taken:
					"Zu dieser E-Mail-Adresse gibt es ein Konto. Melden Sie sich stattdessen in der App an.",
				passkey_ticket_invalid: "Dieser Einmal-Link ist unbekannt, abgelaufen oder schon benutzt.",
				passkey_ceremony_invalid: "Dieser Versuch ist abgelaufen. Bitte versuchen Sie es erneut.",
				passkey_verification_failed:
					"Der Passkey konnte nicht geprüft werden. Bitte versuchen Sie es erneut.",
				passkey_origin_invalid: "Passkeys funktionieren nur unter der eigenen Adresse dieses Servers.",
				passkey_request_invalid:
					"Die Anfrage wurde nicht verstanden. Laden Sie die Seite neu und versuchen Sie es erneut.",
				rate_limited: "Zu viele Versuche. Warten Sie eine Minute und versuchen Sie es erneut.",
			},
			errorCode: "Fehlercode: ",
			waiting: "Warte auf Ihren Passkey…",
			checking: "Wird geprüft…",
			savedConsole:
				"Ihr Passkey ist gespeichert. Sie können sich jetzt in der App anmelden oder in diesem Browser weitermachen.",
			signedInReturning: "Sie sind angemeldet. Zurück zur App…",
			savedReturning: "Ihr Passkey ist gespeichert. Zurück zur App…",
			saved: "Ihr Passkey ist gespeichert. Sie können sich jetzt in der App anmelden.",
			cancelled:
				"Die Passkey-Abfrage wurde geschlossen oder ist abgelaufen. Drücken Sie die Schaltfläche, um es erneut zu versuchen.",
			exists: "Dieses Gerät hat schon einen Passkey für dieses Konto.",
			unsupported: "Dieser Browser unterstützt keine Passkeys.",
			failed: "Etwas ist schiefgegangen.",
		},
	};
	const lang = (root?.dataset.lang || document.documentElement.lang || "en").slice(0, 2).toLowerCase();
	const w = lang === "de" ? words.de : words.en;
	const messages = w.errors;

	// A person who opened a sign-up or ticket link in a browser (no app challenge) continues in the
	// console: the page makes its own PKCE pair and leaves the code and verifier in this tab's
	// sessionStorage, where the console (same origin) redeems them once. Nothing else can read them.
	const handOff = mode === "signup" && !challenge;

	// Shows the message (and its error code, if any) in the error box and lets the person try again.
	const showError = (text, code) => {
		errorBox.textContent = "";
		const p = document.createElement("p");
		p.textContent = text;
		errorBox.appendChild(p);
		if (code) {
			const c = document.createElement("p");
			c.className = "detail";
			c.textContent = `${w.errorCode}${code}`;
			errorBox.appendChild(c);
		}
		errorBox.hidden = false;
		status.textContent = "";
		button.disabled = false;
	};

	// POSTs JSON to this server; a failed answer throws an Error carrying the problem's `code`.
	const post = async (url, body) => {
		const res = await fetch(url, {
			method: "POST",
			headers: { "content-type": "application/json", accept: "application/json" },
			body: JSON.stringify(body),
			credentials: "omit",
		});
		const json = await res.json().catch(() => ({}));
		if (!res.ok) {
			const err = new Error(json.detail || `HTTP ${res.status}`);
			err.code = json.code || "error";
			throw err;
		}
		return json;
	};

	// The trimmed value of the input with this id, or undefined when it is empty or absent.
	const value = (id) => {
		const input = document.getElementById(id);
		const v = input ? input.value.trim() : "";
		return v === "" ? undefined : v;
	};

	// The app's address for this code: svc://auth?code=…&state=….
	const appLink = (code) => {
		const params = new URLSearchParams({ code });
		if (state) params.set("state", state);
		return `svc://auth?${params.toString()}`;
	};

	const base64url = (bytes) => {
		let binary = "";
		for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
		return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
	};

	// A fresh PKCE verifier and its S256 challenge.
	const pkcePair = async () => {
		const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
		const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
		return { verifier, challenge: base64url(digest) };
	};

	// Leaves the code and verifier for the console and shows the "continue in this browser" result.
	const showConsole = (code, verifier) => {
		try {
			sessionStorage.setItem("svc.handoff", JSON.stringify({ code, verifier }));
		} catch {
			// Storage off: the console asks the person to sign in.
		}
		const result = document.getElementById("result");
		form.hidden = true;
		status.textContent = "";
		document.getElementById("result-text").textContent = w.savedConsole;
		document.getElementById("result-console").hidden = false;
		result.hidden = false;
		document.getElementById("result-heading").focus();
	};

	// Shows the result; with a code, also its link and the code itself, and opens the app.
	const showResult = (code) => {
		const result = document.getElementById("result");
		const text = document.getElementById("result-text");
		form.hidden = true;
		status.textContent = "";
		if (code) {
			const href = appLink(code);
			text.textContent = mode === "signin" ? w.signedInReturning : w.savedReturning;
			document.getElementById("result-link").href = href;
			document.getElementById("result-code").textContent = code;
			document.getElementById("result-app").hidden = false;
			result.hidden = false;
			document.getElementById("result-heading").focus();
			window.location.href = href;
		} else {
			text.textContent = w.saved;
			result.hidden = false;
			document.getElementById("result-heading").focus();
		}
	};

	// Sign-up (by email or one-time ticket): registers a new passkey, then hands off or shows the result.
	const register = async () => {
		const body = { name: value("name") };
		if (ticket) body.ticket = ticket;
		else body.email = value("email");
		const own = handOff && crypto.subtle ? await pkcePair() : undefined;
		if (challenge) body.challenge = challenge;
		else if (own) body.challenge = own.challenge;
		const begun = await post("/api/passkeys/register/begin", body);
		const credential = await lib.startRegistration({ optionsJSON: begun.options });
		status.textContent = w.checking;
		const code = (await post("/api/passkeys/register/finish", { session: begun.session, credential })).code;
		if (own && code) showConsole(code, own.verifier);
		else showResult(code);
	};

	// Sign-in: asks for an existing passkey, then shows the result.
	const authenticate = async () => {
		const begun = await post("/api/passkeys/login/begin", { challenge });
		const credential = await lib.startAuthentication({ optionsJSON: begun.options });
		status.textContent = w.checking;
		showResult((await post("/api/passkeys/login/finish", { session: begun.session, credential })).code);
	};

	// Shows why the ceremony failed, in the page's language.
	const explain = (err) => {
		if (err?.code && messages[err.code]) showError(messages[err.code], err.code);
		else if (err && err.name === "NotAllowedError") showError(w.cancelled);
		else if (err && err.name === "InvalidStateError") showError(w.exists);
		// The server's detail and the browser's messages are English: German shows its own words.
		else if (lang === "de") showError(w.failed, err?.code);
		else showError(err?.message ? err.message : w.failed, err?.code);
	};

	// One press of the button: the ceremony for the page's mode; it reports its own failures.
	const run = async () => {
		errorBox.hidden = true;
		button.disabled = true;
		status.textContent = w.waiting;
		try {
			if (mode === "signup") await register();
			else await authenticate();
		} catch (err) {
			explain(err);
		}
	};

	// Enables the button, or explains that this browser has no passkeys.
	const start = () => {
		if (!lib?.browserSupportsWebAuthn()) {
			showError(w.unsupported);
			button.disabled = true;
			return;
		}
		form.addEventListener("submit", (event) => {
			event.preventDefault();
			if (mode === "signup" && !ticket && !value("email")) {
				showError(messages.passkey_email_invalid, "passkey_email_invalid");
				return;
			}
			void run(); // run() reports its own failures on the page
		});
		button.disabled = false;
	};

	if (root) start();
}
