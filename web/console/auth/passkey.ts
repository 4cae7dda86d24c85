// The passkey ceremonies, run on the console's own page (it is the server's origin): the console
// makes its own PKCE pair, the ceremony ends in a one-time code bound to the challenge, and the
// code with the verifier is redeemed for a session token (docs/api.md "Sign-in and registration").
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import { ApiError, request } from "../api.ts";
import { type Account, activeWorkspace, type Me, me, startSession } from "../session.ts";

function base64url(bytes: Uint8Array): string {
	let binary = "";
	for (const b of bytes) binary += String.fromCharCode(b);
	return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** RFC 7636: a 43-character verifier from 32 random bytes and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
	const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
	const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
	return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

interface Begun {
	session: string;
	// biome-ignore lint/suspicious/noExplicitAny: the WebAuthn options JSON as @simplewebauthn/browser takes it
	options: any;
}

const open = { auth: false } as const;

/** Redeems a code at /api/passkeys/token and starts the session. */
export async function redeem(code: string, verifier: string): Promise<Account> {
	const { data } = await request<{ token: string; record: Account }>("POST", "/api/passkeys/token", {
		...open,
		body: { code, verifier },
	});
	startSession(data.token);
	return data.record;
}

export async function signIn(): Promise<Account> {
	const { verifier, challenge } = await pkcePair();
	const begun = (await request<Begun>("POST", "/api/passkeys/login/begin", { ...open, body: { challenge } }))
		.data;
	const credential = await startAuthentication({ optionsJSON: begun.options });
	const { code } = (
		await request<{ code: string }>("POST", "/api/passkeys/login/finish", {
			...open,
			body: { session: begun.session, credential },
		})
	).data;
	return redeem(code, verifier);
}

/**
 * Registers a passkey: a sign-up by email (when sign-ups are on), with a one-time ticket or from an
 * invitation (joining its workspace), which signs the person in; or, while signed in, with a ticket
 * for the account (adds a passkey here).
 */
export async function register(input: {
	email?: string;
	ticket?: string;
	/** An invitation's token: the account is made for its email and joins its workspace. */
	invitation?: string;
	name?: string;
	/** A request's slug: an answer-only sign-up for `email`, admitted by that request. */
	request?: string;
	/** Signs in with the new passkey's code (a sign-up); false when adding one while signed in. */
	signIn: boolean;
}): Promise<Account | null> {
	const pair = input.signIn ? await pkcePair() : null;
	const body: Record<string, string> = {};
	if (input.invitation) body.invitation = input.invitation;
	else if (input.ticket) body.ticket = input.ticket;
	else if (input.email) body.email = input.email;
	if (input.request && !input.invitation && !input.ticket) body.request = input.request;
	if (input.name) body.name = input.name;
	if (pair) body.challenge = pair.challenge;
	const begun = (await request<Begun>("POST", "/api/passkeys/register/begin", { ...open, body })).data;
	const credential = await startRegistration({ optionsJSON: begun.options });
	const { code } = (
		await request<{ code?: string }>("POST", "/api/passkeys/register/finish", {
			...open,
			body: { session: begun.session, credential },
		})
	).data;
	if (!pair || !code) return null;
	return redeem(code, pair.verifier);
}

/** Loads the account, its workspaces and the active one (keeping a remembered choice if still valid). */
export async function loadMe(): Promise<Me> {
	let data: Me;
	try {
		data = (await request<Me>("GET", "/api/auth/me")).data;
	} catch (err) {
		// A remembered workspace the account has left: ask again without it.
		if (!(err instanceof ApiError && err.status === 403 && activeWorkspace.get())) throw err;
		activeWorkspace.set(null);
		data = (await request<Me>("GET", "/api/auth/me")).data;
	}
	const chosen = activeWorkspace.get();
	if (!chosen || !data.workspaces.some((w) => w.id === chosen)) activeWorkspace.set(data.workspace);
	me.set(data);
	return data;
}

export async function signOut(): Promise<void> {
	await request<void>("POST", "/api/auth/logout");
}

/** The ticket in a ticket URL as `svc admin ticket` prints it, or the ticket itself. */
export function ticketFrom(input: string): string | null {
	const text = input.trim();
	if (/^[A-Za-z0-9_-]{20,256}$/.test(text)) return text;
	try {
		return new URL(text).searchParams.get("ticket");
	} catch {
		return null;
	}
}
