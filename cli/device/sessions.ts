// Sessions kept on this device, one per server origin, and the sign-in that waits for its
// `svc://auth` answer. The session token is a bearer secret: kept in a 0600 file, never printed.
import path from "node:path";
import { configDir, readJson, removeFile, writeJson } from "./config-dir.ts";
import { UsageError } from "./errors.ts";

export interface Account {
	id: string;
	email: string;
	name: string;
}

export interface Session {
	server: string;
	token: string;
	account: Account;
	signedInAt: string;
}

interface SessionsFile {
	/** The server the last sign-in was to: used when neither --server nor SVC_SERVER names one. */
	current?: string;
	servers: Record<string, Omit<Session, "server">>;
}

/** A sign-in started by `svc login`, waiting for `svc open svc://auth?…`. */
export interface PendingLogin {
	server: string;
	verifier: string;
	state: string;
	startedAt: string;
}

const sessionsFile = () => path.join(configDir(), "sessions.json");
export const pendingFile = () => path.join(configDir(), "login.json");

/**
 * A server address as people type it (`example.org`, `localhost:8080`, `https://example.org/`) to
 * its origin. Without a scheme it is https, except on localhost and loopback addresses.
 */
export function serverOrigin(input: string): string {
	const text = input.trim();
	const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
		? text
		: `${/^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i.test(text) ? "http" : "https"}://${text}`;
	let url: URL;
	try {
		url = new URL(withScheme);
	} catch {
		throw new UsageError(`${input} is not a server address (example.org or https://example.org)`);
	}
	if (url.protocol !== "https:" && url.protocol !== "http:") {
		throw new UsageError(`${input}: a server address is http or https`);
	}
	if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || url.username) {
		throw new UsageError(`${input}: give the server's address alone, without a path`);
	}
	return url.origin;
}

function readSessions(): SessionsFile {
	return readJson<SessionsFile>(sessionsFile()) ?? { servers: {} };
}

/** The server a command talks to: --server, else SVC_SERVER, else the last one signed in to. */
export function chosenServer(flag: string | undefined): string | undefined {
	const named = flag ?? process.env.SVC_SERVER;
	if (named) return serverOrigin(named);
	return readSessions().current;
}

export function sessionFor(server: string): Session | undefined {
	const entry = readSessions().servers[server];
	return entry ? { server, ...entry } : undefined;
}

export function saveSession(session: Session): void {
	const file = readSessions();
	const { server, ...rest } = session;
	file.servers[server] = rest;
	file.current = server;
	writeJson(sessionsFile(), file);
}

export function dropSession(server: string): boolean {
	const file = readSessions();
	if (!file.servers[server]) return false;
	delete file.servers[server];
	if (file.current === server) {
		const others = Object.keys(file.servers);
		if (others[0] === undefined) delete file.current;
		else file.current = others[0];
	}
	writeJson(sessionsFile(), file);
	return true;
}

export function listSessions(): { current: string | undefined; sessions: Session[] } {
	const file = readSessions();
	return {
		current: file.current,
		sessions: Object.entries(file.servers).map(([server, s]) => ({ server, ...s })),
	};
}

export function savePending(pending: PendingLogin): void {
	writeJson(pendingFile(), pending);
}

export function readPending(): PendingLogin | undefined {
	return readJson<PendingLogin>(pendingFile());
}

export function clearPending(): void {
	removeFile(pendingFile());
}
