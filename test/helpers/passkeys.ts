// Drives the passkey endpoints through app.inject as a browser at the server's own origin would,
// with the software authenticator. Each client has its own client IP so rate limits stay per test.
import crypto from "node:crypto";
import type { InjectOptions } from "fastify";
import type { App } from "../../src/app.ts";
import { publicOrigin } from "../../src/config.ts";
import { type CeremonyOverrides, pkce, SoftAuthenticator } from "./webauthn.ts";

type Body = Record<string, unknown>;

export class PasskeyClient {
	readonly origin: string;
	readonly authenticator: SoftAuthenticator;
	readonly ip = `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${crypto.randomInt(1, 255)}`;

	constructor(
		readonly app: App,
		origin = publicOrigin(app.config),
	) {
		this.origin = origin;
		this.authenticator = new SoftAuthenticator(origin);
	}

	headers(extra: Record<string, string> = {}): Record<string, string> {
		return { host: new URL(this.origin).host, origin: this.origin, ...extra };
	}

	request(
		method: InjectOptions["method"],
		url: string,
		body?: unknown,
		headers: Record<string, string> = {},
	) {
		return this.app.inject({
			method,
			url,
			remoteAddress: this.ip,
			headers: this.headers(headers),
			...(body === undefined ? {} : { payload: body as Body }),
		});
	}

	post(url: string, body?: unknown, headers: Record<string, string> = {}) {
		return this.request("POST", url, body, headers);
	}

	async registerBegin(body: Body) {
		const res = await this.post("/api/passkeys/register/begin", body);
		if (res.statusCode !== 200) throw new Error(`register/begin ${res.statusCode}: ${res.body}`);
		return res.json() as { session: string; options: Parameters<SoftAuthenticator["create"]>[0] };
	}

	/** begin + create + finish; returns the finish response. */
	async register(body: Body, overrides: CeremonyOverrides = {}) {
		const begun = await this.registerBegin(body);
		const { response } = this.authenticator.create(begun.options, overrides);
		return this.post("/api/passkeys/register/finish", { session: begun.session, credential: response });
	}

	/** A signup with a PKCE challenge, redeemed at /api/passkeys/token: returns the session token. */
	async signup(
		email: string,
		extra: Body = {},
	): Promise<{ token: string; record: { id: string; email: string } }> {
		const { verifier, challenge } = pkce();
		const res = await this.register({ email, challenge, ...extra });
		if (res.statusCode !== 200) throw new Error(`register/finish ${res.statusCode}: ${res.body}`);
		return this.redeem(res.json().code, verifier);
	}

	async loginBegin(challenge: string) {
		const res = await this.post("/api/passkeys/login/begin", { challenge });
		if (res.statusCode !== 200) throw new Error(`login/begin ${res.statusCode}: ${res.body}`);
		return res.json() as { session: string; options: Parameters<SoftAuthenticator["get"]>[0] };
	}

	async login(challenge: string, overrides: CeremonyOverrides = {}) {
		const begun = await this.loginBegin(challenge);
		const credential = this.authenticator.get(begun.options, overrides);
		return this.post("/api/passkeys/login/finish", { session: begun.session, credential });
	}

	async redeem(code: string, verifier: string) {
		const res = await this.post("/api/passkeys/token", { code, verifier });
		if (res.statusCode !== 200) throw new Error(`token ${res.statusCode}: ${res.body}`);
		return res.json() as { token: string; record: { id: string; email: string } };
	}

	/** A full sign-in as the app does it: PKCE, ceremony, code, token. */
	async signin(): Promise<{ token: string; record: { id: string; email: string } }> {
		const { verifier, challenge } = pkce();
		const res = await this.login(challenge);
		if (res.statusCode !== 200) throw new Error(`login/finish ${res.statusCode}: ${res.body}`);
		return this.redeem(res.json().code, verifier);
	}

	as(token: string, extra: Record<string, string> = {}) {
		return { authorization: `Bearer ${token}`, ...extra };
	}
}

/** Row counts of the tables sign-in writes, to assert that a refusal changed nothing. */
export async function counts(app: App) {
	const db = app.store.db;
	const n = async (
		table: "accounts" | "passkeys" | "sessions" | "workspaces" | "members" | "passkey_tickets",
	) => {
		const row = await db
			.selectFrom(table)
			.select((eb) => eb.fn.countAll<string | number>().as("n"))
			.executeTakeFirstOrThrow();
		return Number(row.n);
	};
	return {
		accounts: await n("accounts"),
		passkeys: await n("passkeys"),
		sessions: await n("sessions"),
		workspaces: await n("workspaces"),
		members: await n("members"),
		tickets: await n("passkey_tickets"),
	};
}

export function assertProblem(
	res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
	status: number,
	code: string,
): void {
	const body = res.json() as { code?: string; status?: number };
	if (res.statusCode !== status || body.code !== code) {
		throw new Error(`expected ${status} ${code}, got ${res.statusCode} ${JSON.stringify(body)}`);
	}
	if (!String(res.headers["content-type"]).startsWith("application/problem+json")) {
		throw new Error(`expected problem+json, got ${String(res.headers["content-type"])}`);
	}
	if (body.status !== status) throw new Error(`body status ${body.status} != ${status}`);
}
