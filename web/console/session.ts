// Who is signed in. The session token lives in sessionStorage (this tab only, gone when it closes)
// and in memory, never in localStorage; the active workspace is remembered per tab too and sent as
// X-Workspace. A new tab of the same browser takes the session from an open tab over a
// BroadcastChannel (see `askOpenTabs`), and a sign-out in one tab ends it in all.
import { Observable } from "./state.ts";
import type { Answer } from "./wire.ts";

export type Account = Me["record"];

export type Workspace = Me["workspaces"][number];

/** `GET /api/auth/me`. */
export type Me = Answer<"/api/auth/me", "get">;

const TOKEN_KEY = "svc.session";
const WORKSPACE_KEY = "svc.workspace";
/** Set by the /passkey page after a registration it began for a person in a browser. */
export const HANDOFF_KEY = "svc.handoff";

function read(key: string): string | null {
	try {
		return sessionStorage.getItem(key);
	} catch {
		return null;
	}
}

function write(key: string, value: string | null): void {
	try {
		if (value === null) sessionStorage.removeItem(key);
		else sessionStorage.setItem(key, value);
	} catch {
		// Storage off: the session lasts as long as the page.
	}
}

export const sessionToken = new Observable<string | null>(read(TOKEN_KEY));
export const me = new Observable<Me | null>(null);
export const activeWorkspace = new Observable<string | null>(read(WORKSPACE_KEY));
/** Why the person was signed out (an error code), shown on the sign-in screen. */
export const signOutReason = new Observable<string | null>(null);

sessionToken.subscribe((token) => write(TOKEN_KEY, token));
activeWorkspace.subscribe((id) => write(WORKSPACE_KEY, id));

export function startSession(token: string): void {
	signOutReason.set(null);
	sessionToken.set(token);
}

/**
 * Forgets the session here (the server side is ended by POST /api/auth/logout) and in the other
 * tabs that hold the same one.
 */
export function endSession(reason: string | null = null): void {
	const token = sessionToken.get();
	me.set(null);
	activeWorkspace.set(null);
	signOutReason.set(reason);
	sessionToken.set(null);
	if (token) post({ type: "ended", token, reason });
}

/**
 * The tabs of one browser talk over this channel: a BroadcastChannel reaches only pages of the
 * same origin in the same browser profile, so never another browser, another profile or a private
 * window. Messages: `ask` (a tab without a session), `session` (the answer of a tab with one),
 * `ended` (a tab ended its session: the tabs holding the same token end theirs too).
 */
type TabMessage =
	| { type: "ask" }
	| { type: "session"; token: string; workspace: string | null }
	| { type: "ended"; token: string; reason: string | null };

const channel = openChannel();

function openChannel(): BroadcastChannel | null {
	try {
		const opened = new BroadcastChannel("svc.session");
		opened.onmessage = (event: MessageEvent<TabMessage>) => onTabMessage(event.data);
		return opened;
	} catch {
		// No BroadcastChannel: each tab signs in on its own, as before.
		return null;
	}
}

function post(message: TabMessage): void {
	try {
		channel?.postMessage(message);
	} catch {
		// A closed channel (the page is going away) has no one to tell.
	}
}

function onTabMessage(message: TabMessage | null): void {
	if (!message || typeof message !== "object") return;
	const token = sessionToken.get();
	if (message.type === "ask" && token) post({ type: "session", token, workspace: activeWorkspace.get() });
	if (message.type === "ended" && token !== null && message.token === token) {
		me.set(null);
		activeWorkspace.set(null);
		signOutReason.set(message.reason);
		sessionToken.set(null);
	}
}

/**
 * Asks the open tabs of this browser for their session and takes the first answer within
 * `waitMs`. A new tab, or a reloaded one whose sessionStorage was cleared, then starts signed in.
 * Resolves true when a session was taken.
 */
export function askOpenTabs(waitMs = 150): Promise<boolean> {
	if (!channel || sessionToken.get()) return Promise.resolve(Boolean(sessionToken.get()));
	const asking = channel;
	return new Promise((resolve) => {
		const listen = (event: MessageEvent<TabMessage>) => {
			const answer = event.data;
			if (answer?.type !== "session" || typeof answer.token !== "string") return;
			finish(answer);
		};
		const timer = setTimeout(() => finish(null), waitMs);
		function finish(answer: Extract<TabMessage, { type: "session" }> | null) {
			clearTimeout(timer);
			asking.removeEventListener("message", listen);
			if (answer && !sessionToken.get()) {
				if (typeof answer.workspace === "string") activeWorkspace.set(answer.workspace);
				startSession(answer.token);
			}
			resolve(Boolean(sessionToken.get()));
		}
		asking.addEventListener("message", listen);
		post({ type: "ask" });
	});
}

/**
 * What every session holds for its own account besides its role's scopes (docs/api.md, Collections
 * API); `identity:write` comes with the role (every role but a viewer's).
 */
const SESSION_SCOPES = ["workspace:*", "passkey:*", "apikey:*", "credential:*"];

export function hasScope(scope: string): boolean {
	const own = me.get()?.answerOnly ? ["workspace:read", "passkey:*"] : SESSION_SCOPES;
	const scopes = [...(me.get()?.scopes ?? []), ...own];
	const [resource] = scope.split(":");
	return scopes.includes(scope) || scopes.includes(`${resource}:*`);
}

/** A code and verifier the /passkey page left for this tab (good two minutes), taken once. */
export function takeHandoff(): { code: string; verifier: string } | null {
	const raw = read(HANDOFF_KEY);
	if (!raw) return null;
	write(HANDOFF_KEY, null);
	try {
		const parsed = JSON.parse(raw) as { code?: unknown; verifier?: unknown };
		if (typeof parsed.code === "string" && typeof parsed.verifier === "string")
			return { code: parsed.code, verifier: parsed.verifier };
	} catch {
		// A malformed hand-off is ignored; the person signs in.
	}
	return null;
}
