// Which routes carry which rate limit. ROUTES is written from docs/api.md ("Rate limits" and each
// route's own section) and the spec (`../shared/spec.md`, "Limits": rate limiting on password gates,
// probes, challenges and the endpoints it marks 429), not from the code. Three checks:
// - the named limits are the documented ones (`app.limits`);
// - every route the app registers is asked once, and the limit it counts (`X-RateLimit-Limit`, and
//   `X-RateLimit-Reset` on a client's first request, so the window) must be the table's: a route that
//   loses its limit, or gains one, fails, named;
// - each limited route is driven from one client to its 429 (`rate_limited`, problem+json, or the
//   OAuth form at the OIDC service endpoints), with another client still served.
// The clock is frozen (`ManualClock`), so a window never ends while a slow machine drives a route:
// the count, not the time, decides. Each request is a cheap one the route refuses (an unknown slug,
// a missing body): the limiter counts it before the body is validated or the handler runs. A route's
// own onRequest check comes first (the ceremonies' origin, a session route's caller, the read-only
// addressbook's 405 for writes), so requests carry the server's origin and, where needed, a session.
// The limits counted per subject rather than per route are tested with their routes:
// `password` in test/shares/password-attempts.test.ts, `answerSignup` in test/answers/answer-signup*.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { InjectOptions } from "fastify";
import { ManualClock } from "../../src/lib/clock.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { PasskeyClient } from "../helpers/passkeys.ts";
import { nextIp } from "../shares/helpers.ts";

/** RATELIMIT_CONNECT_REQUESTS for this app: a value no other limit has, so the setting is seen to reach the route. */
const CONNECT_REQUESTS = 7;

/** docs/api.md "Rate limits", the table: per client, per route, a fixed window. */
const LIMITS = {
	discovery: { max: 600, window: 60 },
	probe: { max: 120, window: 60 },
	gate: { max: 30, window: 60 },
	password: { max: 30, window: 60 },
	challenge: { max: 60, window: 60 },
	passkey: { max: 30, window: 60 },
	redeem: { max: 30, window: 60 },
	connectToken: { max: CONNECT_REQUESTS, window: 60 },
	download: { max: 120, window: 60 },
	heavy: { max: 20, window: 60 },
	verify: { max: 120, window: 60 },
	callbackTest: { max: 10, window: 60 },
	grantRead: { max: 300, window: 60 },
	oidcService: { max: 600, window: 60 },
} as const;

type Name = Exclude<keyof typeof LIMITS, "password">;

/**
 * `METHOD url` (Fastify's pattern, as `app.routeList` has it) → the limit it must carry. A GET's HEAD
 * carries the same limit on a counter of its own (docs/api.md "Windows"); the table names GETs only.
 * Every other route carries none.
 */
const ROUTES: Record<string, Name> = {
	// discovery. Not `GET /api/server`: the spec gives it no 429, and src/features/server/routes.ts
	// leaves it unlimited on purpose (the answer is kept for its second, so a request costs no
	// signature).
	"GET /api/identities/:fingerprint/status": "discovery",
	"GET /.well-known/openid-configuration": "discovery",
	"GET /oidc/jwks": "discovery",
	"GET /.well-known/jwt-vc-issuer": "discovery",
	"GET /api/attestations/status": "discovery",

	// probe: share and request probes, the remote request read, the addressbook's OPTIONS, PROPFIND
	// and collection GET, the OIDC page, attestation offers (and the console's relay of an offer).
	"GET /api/public/links/:slug": "probe",
	"GET /api/public/requests/:slug": "probe",
	"GET /api/requests/remote": "probe",
	"OPTIONS /dav/s/:slug": "probe",
	"OPTIONS /dav/s/:slug/": "probe",
	"OPTIONS /dav/s/:slug/contact.vcf": "probe",
	"PROPFIND /dav/s/:slug": "probe",
	"PROPFIND /dav/s/:slug/": "probe",
	"PROPFIND /dav/s/:slug/contact.vcf": "probe",
	"GET /dav/s/:slug": "probe",
	"GET /dav/s/:slug/": "probe",
	"GET /oidc/authorize": "probe",
	"GET /api/attestations/offers/:token": "probe",
	"GET /api/credentials/offer": "probe",

	// gate: share resolves and password gates, the addressbook's card GET and REPORT, answers to
	// requests, attestation claims (and the console's presentation relay).
	"POST /api/public/links/:slug": "gate",
	"GET /s/:slug": "gate",
	"POST /s/:slug": "gate",
	"GET /dav/s/:slug/contact.vcf": "gate",
	"REPORT /dav/s/:slug": "gate",
	"REPORT /dav/s/:slug/": "gate",
	"REPORT /dav/s/:slug/contact.vcf": "gate",
	"POST /api/public/requests/:slug": "gate",
	"POST /api/attestations/offers/:token/claim": "gate",
	"POST /api/credentials/claim": "gate",
	"POST /api/credentials/:id/present": "gate",

	// challenge
	"GET /api/challenges/:scope/:slug": "challenge",
	"GET /api/credentials/offer/challenge": "challenge",

	// passkey: the ceremonies and tickets, the account deletion's passkey ceremony, invitation
	// preview and accept, and the e-mail confirmation link (mail on).
	"POST /api/passkeys/login/begin": "passkey",
	"POST /api/passkeys/login/finish": "passkey",
	"POST /api/passkeys/register/begin": "passkey",
	"POST /api/passkeys/register/finish": "passkey",
	"POST /api/passkeys/tickets": "passkey",
	"POST /api/auth/delete/begin": "passkey",
	"POST /api/auth/delete/finish": "passkey",
	"POST /api/invitations/preview": "passkey",
	"POST /api/invitations/accept": "passkey",
	"POST /api/auth/email/confirm": "passkey",

	// redeem: one-time codes and tickets.
	"POST /api/passkeys/token": "redeem",
	"POST /oidc/authorize/session": "redeem",
	"POST /oidc/authorize/consent": "redeem",

	"POST /api/connect/token": "connectToken",

	// download: share file and archive downloads (public and the owner's), the owner's file route,
	// an answered file's address, and the owner's preview.
	"GET /api/files/:recordId": "download",
	"GET /api/public/links/:slug/files/:recordId": "download",
	"GET /api/public/links/:slug/archive": "download",
	"GET /api/links/:id/archive": "download",
	"GET /api/links/:id/preview": "download",
	"POST /api/requests/:id/links/:responseId/files/:key": "download",

	"POST /api/stamp-preview": "heavy",
	"POST /api/verify-peer": "heavy",
	"GET /api/requests/:id/links.csv": "heavy",

	"POST /api/attestations/verify": "verify",
	"GET /api/credentials/:id/status": "verify",

	"POST /api/requests/callback-test": "callbackTest",

	"POST /api/grants/resolve": "grantRead",
	"POST /api/grants/files": "grantRead",
	"POST /api/grants/events": "grantRead",
	"POST /api/public/requests/:slug/remote": "grantRead",

	// Refused in OAuth form: {"error": "rate_limited"}.
	"POST /oidc/token": "oidcService",
	"GET /oidc/userinfo": "oidcService",
	"POST /oidc/userinfo": "oidcService",
};

let t: TestApp;
let owner: TestAccount;
let origin: Record<string, string>;

before(async () => {
	// Mail on (never reached: port 1), so its routes are registered too.
	t = await makeApp(
		{
			smtpUrl: "smtp://u:p@127.0.0.1:1",
			mailFrom: "svc@localhost",
			ratelimitConnectRequests: CONNECT_REQUESTS,
		},
		{ clock: new ManualClock() },
	);
	owner = await buildAccount(t.app);
	// The ceremonies answer only at the server's own address (host and origin), before counting.
	origin = new PasskeyClient(t.app).headers();
});
after(() => t.close());

/**
 * One request as a browser at the server's own origin sends it (signed in with `headers`), every
 * path parameter an unknown value: the route refuses it cheaply after the limiter counted it.
 */
function ask(method: string, url: string, remoteAddress: string, headers: Record<string, string>) {
	return t.app.inject({
		method: method as InjectOptions["method"],
		url: url.replace(/:(\w+)/g, "unknown-$1").replace(/\*$/, "unknown"),
		remoteAddress,
		headers: { ...origin, ...headers },
	});
}

const describeLimit = (name: Name | undefined) =>
	name ? `${name} (${LIMITS[name].max} / ${LIMITS[name].window} s)` : "none";

describe("rate limits by route", () => {
	test("the named limits are the documented ones", () => {
		const named = Object.fromEntries(
			Object.entries(t.app.limits).map(([name, limit]) => [
				name,
				{ max: limit.max, window: limit.timeWindow / 1000 },
			]),
		);
		assert.deepEqual(named, LIMITS);
	});

	test("every route the app registers carries the table's limit, and no other route carries one", async () => {
		const registered = new Set<string>();
		const wrong: string[] = [];
		for (const route of t.app.routeList) {
			const methods = route.method === "GET" ? ["GET", "HEAD"] : [route.method];
			registered.add(`${route.method} ${route.url}`);
			for (const method of methods) {
				// Signed in, so that a route checking the session before it counts is counted too.
				// Logging out would end the session every other request carries: a session of its own.
				const headers =
					route.url === "/api/auth/logout" ? (await buildAccount(t.app)).headers : owner.headers;
				const res = await ask(method, route.url, nextIp(), headers);
				const max = res.headers["x-ratelimit-limit"];
				const seen = max === undefined ? "none" : `${max} / ${res.headers["x-ratelimit-reset"]} s`;
				const name = ROUTES[`${route.method} ${route.url}`];
				const expected = name ? `${LIMITS[name].max} / ${LIMITS[name].window} s` : "none";
				if (seen !== expected) {
					wrong.push(`${method} ${route.url}: the table says ${describeLimit(name)}, the app counts ${seen}`);
				}
			}
		}
		for (const key of Object.keys(ROUTES)) {
			if (!registered.has(key)) wrong.push(`${key}: in the table, not registered`);
		}
		assert.deepEqual(wrong, [], `routes whose rate limit is not the table's:\n${wrong.join("\n")}`);
	});

	for (const [key, name] of Object.entries(ROUTES)) {
		const [method, url] = key.split(" ") as [string, string];
		const { max, window } = LIMITS[name];
		test(`${key}: ${name}, ${max} a window, then 429 rate_limited`, async () => {
			const client = nextIp();
			// As a guest where the route counts one (no session to look up on every request); a route
			// that checks the session before it counts (its own onRequest) counts the signed-in only.
			const guest = await ask(method, url, nextIp(), {});
			const headers = guest.headers["x-ratelimit-limit"] === undefined ? owner.headers : {};
			for (let n = 1; n <= max; n++) {
				const res = await ask(method, url, client, headers);
				if (res.statusCode === 429 || res.headers["x-ratelimit-limit"] !== String(max)) {
					assert.fail(
						`${key}: request ${n} of ${max} answered ${res.statusCode} with X-RateLimit-Limit ` +
							`${res.headers["x-ratelimit-limit"] ?? "(none)"}, not a request counted against ${describeLimit(name)}`,
					);
				}
				assert.equal(res.headers["x-ratelimit-remaining"], String(max - n), `${key}: request ${n}`);
			}
			const refused = await ask(method, url, client, headers);
			assert.equal(
				refused.statusCode,
				429,
				`${key}: request ${max + 1} from one client answered ${refused.statusCode}, not 429 (${refused.body.slice(0, 200)})`,
			);
			// The window opened at the first request and the clock stood still: all of it is left.
			assert.equal(refused.headers["retry-after"], String(window), key);
			assert.equal(refused.headers["x-ratelimit-remaining"], "0", key);
			if (name === "oidcService") {
				assert.match(String(refused.headers["content-type"]), /^application\/json/, key);
				assert.equal(refused.json().error, "rate_limited", key);
			} else {
				assert.match(String(refused.headers["content-type"]), /^application\/problem\+json/, key);
				assert.equal(refused.json().code, "rate_limited", key);
			}
			// Per client: another one is still counted from its first request.
			const other = await ask(method, url, nextIp(), headers);
			assert.notEqual(other.statusCode, 429, `${key}: another client refused too`);
			assert.equal(other.headers["x-ratelimit-remaining"], String(max - 1), key);
		});
	}
});
