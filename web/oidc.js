// The OpenID Connect sign-in page's script: a passkey sign-in with the page's own PKCE pair
// (@simplewebauthn/browser, served by this server), then the consent form filled from
// /oidc/authorize/session, then the answer from /oidc/authorize/consent, whose address it follows.
// Words come from the page's JSON data block; every value is written as text, never as HTML.
//
// A classic script (loaded with `defer`): the block keeps its constants and functions out of the
// page's global scope. Nothing runs unless the page is the OpenID Connect sign-in page.

{
	const root = document.getElementById("oidc");
	const request = root?.dataset.request;
	const words = root ? JSON.parse(document.getElementById("oidc-words").textContent) : {};
	const lib = window.SimpleWebAuthnBrowser;
	const start = document.getElementById("start");
	const signin = document.getElementById("signin");
	const form = document.getElementById("consent");
	const status = document.getElementById("status");
	const errorBox = document.getElementById("error");
	// The consent ticket from /oidc/authorize/session, sent back with the answer.
	let ticket;

	// Shows the message (and its error code, if any) in the error box.
	const showError = (text, code) => {
		errorBox.textContent = "";
		const p = document.createElement("p");
		p.textContent = text;
		errorBox.appendChild(p);
		if (code) {
			const c = document.createElement("p");
			c.className = "detail";
			c.textContent = code;
			errorBox.appendChild(c);
		}
		errorBox.hidden = false;
		status.textContent = "";
	};

	// Shows why a step failed: the page's words for a known code, else the error's own message.
	const explain = (err) => {
		if (err?.code && words[err.code]) showError(words[err.code], err.code);
		else if (err && err.name === "NotAllowedError") showError(words.cancelled);
		else showError(err?.message ? err.message : words.failed, err?.code);
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

	// The vault entries this key could be linked to, as a <select> (first entry chosen, if any).
	const entrySelect = (k, id) => {
		const select = document.createElement("select");
		select.id = id;
		select.name = "link";
		select.dataset.key = k.key;
		const none = document.createElement("option");
		none.value = "";
		none.textContent = words.leaveOut;
		select.appendChild(none);
		for (const e of k.entries) {
			const option = document.createElement("option");
			option.value = e.id;
			const notes = [e.type === "file" ? words.file : "", e.hidden ? words.hidden : ""].filter(Boolean);
			option.textContent = `${e.name || k.key}${notes.length ? ` (${notes.join(", ")})` : ""}`;
			select.appendChild(option);
		}
		if (k.entries.length > 0) select.selectedIndex = 1;
		return select;
	};

	// One requested key's field: its label, its <select>, and a hint when no entry matches.
	const linkField = (k) => {
		const p = document.createElement("p");
		p.className = "field";
		const id = `link-${k.key}`;
		const label = document.createElement("label");
		label.htmlFor = id;
		label.textContent = k.key;
		const select = entrySelect(k, id);
		p.append(label, select);
		if (k.entries.length === 0) {
			const hint = document.createElement("span");
			hint.className = "hint";
			hint.id = `${id}-hint`;
			hint.textContent = words.noEntry;
			select.setAttribute("aria-describedby", hint.id);
			p.appendChild(hint);
		}
		return p;
	};

	// Fills the consent form from /oidc/authorize/session's answer and shows it instead of sign-in.
	const fill = (data) => {
		ticket = data.ticket;
		const who = data.account.name ? `${data.account.name} (${data.account.email})` : data.account.email;
		document.getElementById("account").textContent = who;
		for (const s of data.scopes) {
			const slot = document.getElementById(`reveals-${s.scope}`);
			const shown = Object.values(s.reveals).filter((v) => typeof v === "string");
			if (slot && shown.length > 0) slot.textContent = `(${shown.join(", ")})`;
		}
		const links = document.getElementById("links");
		for (const k of data.keys) links?.appendChild(linkField(k));
		signin.hidden = true;
		form.hidden = false;
		status.textContent = "";
		document.getElementById("allow").focus();
	};

	// Signs in with a passkey and the page's own PKCE pair, then fetches and fills the consent form.
	const signIn = async () => {
		errorBox.hidden = true;
		start.disabled = true;
		status.textContent = words.waiting;
		try {
			const pkce = await pkcePair();
			const begun = await post("/api/passkeys/login/begin", { challenge: pkce.challenge });
			const credential = await lib.startAuthentication({ optionsJSON: begun.options });
			status.textContent = words.checking;
			const { code } = await post("/api/passkeys/login/finish", { session: begun.session, credential });
			fill(await post("/oidc/authorize/session", { request, code, verifier: pkce.verifier }));
		} catch (err) {
			explain(err);
			start.disabled = false;
		}
	};

	// Sends the consent (checked scopes and chosen links) or the refusal, then follows the answer.
	const answer = async (approve) => {
		errorBox.hidden = true;
		for (const b of form.querySelectorAll("button")) b.disabled = true;
		const scopes = approve
			? Array.from(form.querySelectorAll("input[name=scope]:checked"), (i) => i.value)
			: [];
		const links = {};
		if (approve) {
			for (const s of form.querySelectorAll("select[name=link]")) if (s.value) links[s.dataset.key] = s.value;
		}
		try {
			const { redirect } = await post("/oidc/authorize/consent", { ticket, approve, scopes, links });
			status.textContent = words.returning;
			window.location.assign(redirect);
		} catch (err) {
			explain(err);
		}
	};

	// Wires the buttons and enables sign-in, or explains that this browser has no passkeys.
	const wire = () => {
		if (!lib?.browserSupportsWebAuthn()) {
			showError(words.unsupported);
			return;
		}
		start.addEventListener("click", () => void signIn());
		form.addEventListener("submit", (event) => {
			event.preventDefault();
			void answer(true);
		});
		document.getElementById("decline").addEventListener("click", () => void answer(false));
		start.disabled = false;
	};

	if (root) wire();
}
