// The gate-by-reader matrix for what a service signed in with OpenID Connect reads (expected.ts,
// reader `oidcClaims`): the entries the person shared at consent, handed out at userinfo as
// `svc_links` and read by the service with POST /api/grants/resolve. Per gate the person signs in
// to one more service (one sign-in link per person and service), shares their email and move-in
// date, and then puts that service's link in the gate's state from their own session.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ManualClock } from "../../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../../helpers/app.ts";
import { PasskeyClient } from "../../helpers/passkeys.ts";
import { pkce } from "../../helpers/webauthn.ts";
import { createValue, LINKS, nextIp, RECORDS, resolveLink } from "../helpers.ts";
import { answerFor, cellName, readersOf, SHARE_GATES, type ShareGate, wrongPasswordFor } from "./expected.ts";
import { EMAIL, grantAnswer, MOVE_IN, STAMP } from "./observe.ts";

const T0 = Date.UTC(2026, 10, 26, 12);
const EXPIRES = T0 + 60_000;

const clock = new ManualClock(T0);
let t: TestApp;
let person: PasskeyClient;
let headers: Record<string, string>;
/** Per gate: the access token of that gate's service. */
const services = new Map<ShareGate, string>();

/** A service of its own per gate: loopback origins are tool origins while DOMAIN is localhost. */
const serviceOf = (i: number) => `http://127.0.0.1:${42000 + i}`;

/** The sign-in as the provider's page runs it: authorize, passkey, consent, then the code redeemed. */
async function signIn(client: string, links: Record<string, string>): Promise<string> {
	const redirectUri = `${client}/auth/callback`;
	const { verifier, challenge } = pkce();
	const query = new URLSearchParams({
		client_id: client,
		redirect_uri: redirectUri,
		response_type: "code",
		scope: "openid",
		code_challenge: challenge,
		code_challenge_method: "S256",
		state: "st",
		claims: JSON.stringify({ userinfo: { svc_links: { values: Object.keys(links) } } }),
	});
	const page = await person.request("GET", `/oidc/authorize?${query}`);
	const handle = /data-request="([^"]+)"/.exec(page.body)?.[1];
	assert.ok(handle, page.body);
	const login = pkce();
	const passkey = await person.login(login.challenge);
	assert.equal(passkey.statusCode, 200, passkey.body);
	const session = await person.post("/oidc/authorize/session", {
		request: handle,
		code: passkey.json().code,
		verifier: login.verifier,
	});
	assert.equal(session.statusCode, 200, session.body);
	const consent = await person.post("/oidc/authorize/consent", {
		ticket: session.json().ticket,
		approve: true,
		scopes: [],
		links,
	});
	assert.equal(consent.statusCode, 200, consent.body);
	const code = new URL(consent.json().redirect).searchParams.get("code");
	assert.ok(code, consent.body);
	const token = await t.app.inject({
		method: "POST",
		url: "/oidc/token",
		headers: { "content-type": "application/x-www-form-urlencoded" },
		payload: new URLSearchParams({
			grant_type: "authorization_code",
			code,
			client_id: client,
			redirect_uri: redirectUri,
			code_verifier: verifier,
		}).toString(),
		remoteAddress: nextIp(),
	});
	assert.equal(token.statusCode, 200, token.body);
	return token.json().access_token as string;
}

/** The sign-in link the person has for `client`, from their own shares. */
async function linkOf(client: string): Promise<{ id: string; slug: string }> {
	const res = await t.app.inject({ method: "GET", url: `${LINKS}?perPage=200`, headers });
	assert.equal(res.statusCode, 200, res.body);
	const link = (res.json().items as { id: string; slug: string; signInClient: string | null }[]).find(
		(l) => l.signInClient === client,
	);
	assert.ok(link, `no sign-in link for ${client}`);
	return link;
}

async function patch(id: string, body: Record<string, unknown>) {
	const res = await t.app.inject({ method: "PATCH", url: `${LINKS}/${id}`, headers, payload: body });
	assert.equal(res.statusCode, 200, res.body);
}

/** How each gate is put on a sign-in link, by the person, after the sign-in. */
const APPLY: Partial<Record<ShareGate, (link: { id: string; slug: string }) => Promise<void>>> = {
	paused: (l) => patch(l.id, { status: "paused" }),
	revoked: (l) => patch(l.id, { status: "revoked" }),
	expired: (l) => patch(l.id, { expiresAt: new Date(EXPIRES).toISOString() }),
	capReached: async (l) => {
		// The person opens their own link once; a cap at the views taken ends it.
		const read = await resolveLink(t.app, l.slug);
		assert.equal(read.statusCode, 200, read.body);
		await patch(l.id, { maxViews: 1 });
	},
	password: (l) => patch(l.id, { password: "open sesame" }),
	handshake: (l) => patch(l.id, { requireHandshake: true }),
	watermark: (l) => patch(l.id, { stamp: STAMP }),
	// The entries chosen at consent are hidden ones (made so below).
	hidden: async () => {},
	// A sign-in link is made by the server, never for a tool: nothing to hand over.
	handOver: async () => {},
};

/** The service's read: userinfo for the grant, then the bulk read of it. */
async function read(accessToken: string): Promise<string> {
	const info = await t.app.inject({
		method: "GET",
		url: "/oidc/userinfo",
		headers: { authorization: `Bearer ${accessToken}` },
		remoteAddress: nextIp(),
	});
	assert.equal(info.statusCode, 200, info.body);
	const links = info.json().svc_links as { grants: { id: string; token: string }[] } | undefined;
	if (!links) return "no svc_links";
	const res = await t.app.inject({
		method: "POST",
		url: "/api/grants/resolve",
		payload: { grants: links.grants.map(({ id, token }) => ({ id, token })) },
		remoteAddress: nextIp(),
	});
	assert.equal(res.statusCode, 200, res.body);
	return grantAnswer(res.json().items[0]);
}

describe("gate × reader: what a service signed in with OpenID Connect reads", () => {
	before(async () => {
		t = await makeApp({ allowSignups: true }, { clock });
		person = new PasskeyClient(t.app);
		const { token } = await person.signup("ann@example.org", { name: "Ann" });
		headers = { authorization: `Bearer ${token}` };
		const who = { accountId: "", workspaceId: "", email: "", token, headers };
		const entries = async (hidden: boolean) => ({
			email: (await createValue(t.app, who, { key: "email", value: EMAIL, ...(hidden ? { hidden } : {}) }))
				.id,
			move_in: (
				await createValue(t.app, who, { key: "move_in", value: MOVE_IN, ...(hidden ? { hidden } : {}) })
			).id,
		});
		const plain = await entries(false);
		const hidden = await entries(true);
		const check = await t.app.inject({ method: "GET", url: `${RECORDS}/${hidden.email}`, headers });
		assert.equal(check.json().hidden, true);
		for (const [i, gate] of SHARE_GATES.entries()) {
			const apply = APPLY[gate];
			if (!apply) continue;
			const client = serviceOf(i);
			const accessToken = await signIn(client, gate === "hidden" ? hidden : plain);
			await apply(await linkOf(client));
			services.set(gate, accessToken);
		}
		clock.advance(EXPIRES - T0 + 1_000);
	});
	after(() => t.close());

	for (const reader of readersOf("oidc-claims.test.ts")) {
		for (const gate of SHARE_GATES) {
			test(cellName(gate, reader), async () => {
				const accessToken = services.get(gate);
				assert.ok(
					accessToken,
					`no sign-in link in the state of gate ${gate}: add it to APPLY in oidc-claims.test.ts`,
				);
				assert.equal(await read(accessToken), answerFor(gate, reader));
				// This file presents no password; a wrong-password answer in the table needs a way to present one.
				if (gate === "password")
					assert.equal(
						wrongPasswordFor(reader),
						null,
						`${reader}: no way to present a password in this file`,
					);
			});
		}
	}
});
