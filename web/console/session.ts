// Who is signed in. The session token lives in sessionStorage (this tab only, gone when it closes)
// and in memory; the active workspace is remembered per tab too and sent as X-Workspace.
import { Observable } from "./state.ts";

export interface Account {
	id: string;
	email: string;
	name: string;
	created: string;
	updated: string;
}

export interface Workspace {
	id: string;
	name: string;
	personal: boolean;
	role: "owner" | "admin" | "member";
	created: string;
	updated: string;
}

/** `GET /api/auth/me`. */
export interface Me {
	record: Account;
	workspaces: Workspace[];
	workspace: string;
	scopes: string[];
	/** An answer-only account: it answers requests and keeps its answers (no keys, workspaces, identities). */
	answerOnly?: boolean;
}

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

/** Forgets the session here (the server side is ended by POST /api/auth/logout). */
export function endSession(reason: string | null = null): void {
	me.set(null);
	activeWorkspace.set(null);
	signOutReason.set(reason);
	sessionToken.set(null);
}

/** What every session holds for its own account besides its role's scopes (docs/api.md, Collections API). */
const SESSION_SCOPES = ["workspace:*", "passkey:*", "apikey:*", "identity:write"];

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
