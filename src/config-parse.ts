// The parsers of configuration values (src/config.ts): each takes the raw string and the variable's
// name, and answers the typed value or throws ConfigError saying what is wrong.
export class ConfigError extends Error {}

export function bool(raw: string, name: string): boolean {
	const v = raw.trim().toLowerCase();
	if (["1", "true", "yes", "on"].includes(v)) return true;
	if (["0", "false", "no", "off", ""].includes(v)) return false;
	throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function int(min: number, max = Number.MAX_SAFE_INTEGER) {
	return (raw: string, name: string): number => {
		const n = Number(raw.trim());
		if (!Number.isInteger(n) || n < min || n > max) {
			throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
		}
		return n;
	};
}

export function text(raw: string): string {
	return raw.trim();
}

export function domain(raw: string, name: string): string {
	const v = raw.trim().toLowerCase();
	// A DNS name (optionally with a port for local development is not allowed: the port is PORT).
	if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/.test(v)) {
		throw new ConfigError(`${name} must be a bare domain name such as example.org, got "${raw}"`);
	}
	return v;
}

export function databaseUrl(raw: string, name: string): string {
	const v = raw.trim();
	if (v !== "" && !/^postgres(ql)?:\/\//.test(v)) {
		throw new ConfigError(`${name} must be empty (SQLite) or a postgres:// URL`);
	}
	return v;
}

export function peerOverrides(raw: string, name: string): Record<string, string> {
	const out: Record<string, string> = Object.create(null);
	for (const part of raw.split(",").map((s) => s.trim())) {
		if (part === "") continue;
		const eq = part.indexOf("=");
		const host = part.slice(0, eq).trim().toLowerCase();
		const base = part.slice(eq + 1).trim();
		let url: URL;
		try {
			url = new URL(base);
		} catch {
			throw new ConfigError(`${name}: "${part}" is not domain=http(s)://host:port`);
		}
		if (eq <= 0 || !/^https?:$/.test(url.protocol)) {
			throw new ConfigError(`${name}: "${part}" is not domain=http(s)://host:port`);
		}
		out[host] = url.origin;
	}
	return out;
}

export function hostPortList(raw: string, name: string): string[] {
	const list = raw
		.split(",")
		.map((s) => s.trim())
		.filter(Boolean);
	for (const item of list) {
		if (!/^(\[[0-9a-f:]+\]|[^:\s]+)(:\d{1,5})?$/i.test(item)) {
			throw new ConfigError(`${name}: "${item}" is not host or host:port`);
		}
	}
	return list;
}

export function oneOf<T extends string>(...values: T[]) {
	return (raw: string, name: string): T => {
		const v = raw.trim().toLowerCase() as T;
		if (!values.includes(v))
			throw new ConfigError(`${name} must be one of ${values.join(", ")}, got "${raw}"`);
		return v;
	};
}

export function httpUrl(raw: string, name: string): string {
	const v = raw.trim();
	if (v === "") return v;
	let url: URL;
	try {
		url = new URL(v);
	} catch {
		throw new ConfigError(`${name} must be an http(s):// URL, got "${raw}"`);
	}
	if (!/^https?:$/.test(url.protocol))
		throw new ConfigError(`${name} must be an http(s):// URL, got "${raw}"`);
	return url.origin + url.pathname.replace(/\/$/, "");
}

export function smtpUrl(raw: string, name: string): string {
	const v = raw.trim();
	if (v === "") return v;
	let url: URL;
	try {
		url = new URL(v);
	} catch {
		throw new ConfigError(`${name} must be an smtp:// or smtps:// URL`);
	}
	if (!/^smtps?:$/.test(url.protocol) || url.hostname === "") {
		throw new ConfigError(`${name} must be an smtp:// or smtps:// URL with a host`);
	}
	return v;
}

export const synchronous = (raw: string, name: string) =>
	oneOf("normal", "full")(raw, name).toUpperCase() as "NORMAL" | "FULL";

export const logLevel = oneOf("fatal", "error", "warn", "info", "debug", "trace", "silent");

export function maxFileSize(raw: string, name: string): number {
	const n = Number(raw.trim());
	if (n === -1) return -1;
	return int(1)(raw, name);
}
