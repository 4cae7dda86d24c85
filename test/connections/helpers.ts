// Helpers for connected-tool tests: a tool's PKCE pair, the owner's authorization and the tool's
// redemption, made through the HTTP API the way a tool and the app make them.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import type { App } from "../../src/app.ts";
import type { TestAccount } from "../helpers/factories.ts";

export const TOOL = "https://tool.example";
export const REDIRECT = `${TOOL}/connected`;

export interface Pkce {
	verifier: string;
	challenge: string;
}

export function pkce(): Pkce {
	const verifier = crypto.randomBytes(32).toString("base64url");
	return { verifier, challenge: crypto.createHash("sha256").update(verifier).digest("base64url") };
}

export async function authorize(
	app: App,
	who: TestAccount,
	body: Record<string, unknown>,
): Promise<{ statusCode: number; json: () => Record<string, unknown>; body: string }> {
	return app.inject({
		method: "POST",
		url: "/api/connections/authorize",
		headers: who.headers,
		payload: { clientId: TOOL, redirectUri: REDIRECT, ...body },
	});
}

/** Owner authorizes, tool redeems the code: the tool's token and the connection id. */
export async function connect(
	app: App,
	who: TestAccount,
	body: Record<string, unknown> = {},
): Promise<{ token: string; connectionId: string; pair: Pkce }> {
	const pair = pkce();
	const res = await authorize(app, who, { clientName: "Tool", challenge: pair.challenge, ...body });
	assert.equal(res.statusCode, 200, res.body);
	const { code, connectionId } = res.json() as { code: string; connectionId: string };
	const redirectUri = (body.redirectUri as string | undefined) ?? REDIRECT;
	const token = await app.inject({
		method: "POST",
		url: "/api/connect/token",
		payload: { code, verifier: pair.verifier, redirectUri },
	});
	assert.equal(token.statusCode, 200, token.body);
	return { token: token.json().token, connectionId, pair };
}

export function asTool(token: string): Record<string, string> {
	return { "x-svc-connection": token };
}
