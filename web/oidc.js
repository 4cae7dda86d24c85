// The OpenID Connect sign-in page's script: a passkey sign-in with the page's own PKCE pair
// (@simplewebauthn/browser, served by this server), then the consent form filled from
// /oidc/authorize/session, then the answer from /oidc/authorize/consent, whose address it follows.
// Words come from the page's JSON data block; every value is written as text, never as HTML.

(() => {
	const root = document.getElementById("oidc");
	if (!root) return;
	const request = root.dataset.request;
	const words = JSON.parse(document.getElementById("oidc-words").textContent);
	const lib = window.SimpleWebAuthnBrowser;
	const start = document.getElementById("start");
	const signin = document.getElementById("signin");
	const form = document.getElementById("consent");
	const status = document.getElementById("status");
	const errorBox = document.getElementById("error");
	let ticket;

	function showError(text, code) {
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
	}

	function explain(err) {
		if (err?.code && words[err.code]) showError(words[err.code], err.code);
		else if (err && err.name === "NotAllowedError") showError(words.cancelled);
		else showError(err?.message ? err.message : words.failed, err?.code);
	}

	async function post(url, body) {
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
	}

	function base64url(bytes) {
		let binary = "";
		for (const b of new Uint8Array(bytes)) binary += String.fromCharCode(b);
		return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
	}

	async function pkcePair() {
		const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
		const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
		return { verifier, challenge: base64url(digest) };
	}

	function fill(data) {
		ticket = data.ticket;
		const who = data.account.name ? `${data.account.name} (${data.account.email})` : data.account.email;
		document.getElementById("account").textContent = who;
		for (const s of data.scopes) {
			const slot = document.getElementById(`reveals-${s.scope}`);
			const shown = Object.values(s.reveals).filter((v) => typeof v === "string");
			if (slot && shown.length > 0) slot.textContent = `(${shown.join(", ")})`;
		}
		const links = document.getElementById("links");
		for (const k of data.keys) {
			const p = document.createElement("p");
			p.className = "field";
			const id = `link-${k.key}`;
			const label = document.createElement("label");
			label.htmlFor = id;
			label.textContent = k.key;
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
			p.append(label, select);
			if (k.entries.length === 0) {
				const hint = document.createElement("span");
				hint.className = "hint";
				hint.id = `${id}-hint`;
				hint.textContent = words.noEntry;
				select.setAttribute("aria-describedby", hint.id);
				p.appendChild(hint);
			}
			links?.appendChild(p);
		}
		signin.hidden = true;
		form.hidden = false;
		status.textContent = "";
		document.getElementById("allow").focus();
	}

	async function signIn() {
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
	}

	async function answer(approve) {
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
	}

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
})();
