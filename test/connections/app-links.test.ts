// The app-link grammar (spec "App links"): `svc://p`, `svc://connect`, `svc://auth`, `svc://a` and
// `svc://present` exactly as the spec says, a malformed link refused as a whole with the parameter
// at fault named.
// Runs once, not per database: the app-link grammar, with no app or database.
import assert from "node:assert/strict";
import crypto from "node:crypto";
import { describe, test } from "node:test";
import {
	AppLinkError,
	checkCode,
	parseAppLink,
	parseConnectLink,
	parseOfferLink,
	parsePresentLink,
	parseProposalLink,
	parseSigninLink,
} from "../../src/lib/app-links.ts";

const CHALLENGE = crypto.createHash("sha256").update("verifier-".padEnd(50, "x")).digest("base64url");

function refused(fn: () => unknown, parameter: string) {
	assert.throws(fn, (err: unknown) => {
		assert.ok(err instanceof AppLinkError, String(err));
		assert.equal(err.parameter, parameter, err.message);
		return true;
	});
}

const p = (query: string) => `svc://p?${query}`;

describe("svc://p", () => {
	test("a full proposal, every parameter percent-decoded (a space as %20, + stays a plus)", () => {
		const link = p(
			[
				"label=Rental%20application%20%2B%20ID",
				"keys=email,phone_number,id-card",
				"from=Flat%20finder",
				"template=Renting",
				"days=30",
				"stamp=%20For%20Acme%20only%20",
				"purpose=application",
				"client=https%3A%2F%2Ftool.example",
				"redirect=https%3A%2F%2Ftool.example%2Fback%3Fx%3D1",
				"state=abc.DEF_~-1",
				"ref=case+42",
				`challenge=${CHALLENGE}`,
				"revoke_reason=When%20you%20move",
				"links_reason=To%20show%20status",
				"poll=https%3A%2F%2Fsvc.example",
			].join("&"),
		);
		assert.deepEqual(parseProposalLink(link), {
			label: "Rental application + ID",
			keys: ["email", "phone_number", "id-card"],
			from: "Flat finder",
			template: "Renting",
			days: 30,
			stamp: "For Acme only",
			purpose: "application",
			client: "https://tool.example",
			redirect: "https://tool.example/back?x=1",
			state: "abc.DEF_~-1",
			ref: "case+42",
			challenge: CHALLENGE,
			revokeReason: "When you move",
			linksReason: "To show status",
			poll: "https://svc.example",
		});
	});

	test("the minimum: label and keys", () => {
		assert.deepEqual(parseProposalLink(p("label=A&keys=a")), { label: "A", keys: ["a"] });
		assert.deepEqual(parseAppLink(p("keys=a&label=A")), { kind: "proposal", label: "A", keys: ["a"] });
	});

	test("limits at the edge are accepted", () => {
		const keys = Array.from({ length: 50 }, (_, i) => `k${i}`).join(",");
		const out = parseProposalLink(
			p(
				`label=${"é".repeat(120)}&keys=${keys}&from=${"x".repeat(40)}&template=${"t".repeat(80)}&days=365&ref=${"r".repeat(80)}&stamp=${"s".repeat(120)}&revoke_reason=${"v".repeat(120)}&links_reason=${"l".repeat(120)}`,
			),
		);
		assert.equal(out.keys.length, 50);
		assert.equal(out.days, 365);
		assert.equal(parseProposalLink(p(`label=A&keys=${"a".repeat(64)}&days=1`)).days, 1);
	});

	const cases: [string, string, string][] = [
		["label missing", "keys=a", "label"],
		["label empty", "label=&keys=a", "label"],
		["label over 120", `label=${"x".repeat(121)}&keys=a`, "label"],
		["label with a newline", "label=a%0Ab&keys=a", "label"],
		["keys missing", "label=A", "keys"],
		["keys empty", "label=A&keys=", "keys"],
		["51 keys", `label=A&keys=${Array.from({ length: 51 }, (_, i) => `k${i}`).join(",")}`, "keys"],
		["an upper-case key", "label=A&keys=Email", "keys"],
		["a key of 65", `label=A&keys=${"a".repeat(65)}`, "keys"],
		["an empty key", "label=A&keys=a,,b", "keys"],
		["a repeated key", "label=A&keys=a,a", "keys"],
		["from over 40", `label=A&keys=a&from=${"x".repeat(41)}`, "from"],
		["template over 80", `label=A&keys=a&template=${"x".repeat(81)}`, "template"],
		["days 0", "label=A&keys=a&days=0", "days"],
		["days 366", "label=A&keys=a&days=366", "days"],
		["days 1.5", "label=A&keys=a&days=1.5", "days"],
		["days 07", "label=A&keys=a&days=07", "days"],
		["stamp over 120", `label=A&keys=a&stamp=${"x".repeat(121)}`, "stamp"],
		["stamp blank", "label=A&keys=a&stamp=%20%20", "stamp"],
		["purpose other", "label=A&keys=a&purpose=rent&stamp=x", "purpose"],
		["purpose without stamp", "label=A&keys=a&purpose=application", "purpose"],
		["client http", "label=A&keys=a&client=http%3A%2F%2Ftool.example", "client"],
		["client with a path", "label=A&keys=a&client=https%3A%2F%2Ftool.example%2Fx", "client"],
		[
			"client loopback without allowLoopback",
			"label=A&keys=a&client=http%3A%2F%2F127.0.0.1%3A3000",
			"client",
		],
		["redirect without client", "label=A&keys=a&redirect=https%3A%2F%2Ftool.example%2Fb", "redirect"],
		[
			"redirect on another origin",
			"label=A&keys=a&client=https%3A%2F%2Ftool.example&redirect=https%3A%2F%2Fevil.example%2Fb",
			"redirect",
		],
		["state without redirect", "label=A&keys=a&client=https%3A%2F%2Ftool.example&state=s", "state"],
		[
			"state with a space",
			"label=A&keys=a&client=https%3A%2F%2Ftool.example&redirect=https%3A%2F%2Ftool.example%2Fb&state=a%20b",
			"state",
		],
		[
			"state of 129",
			`label=A&keys=a&client=https%3A%2F%2Ftool.example&redirect=https%3A%2F%2Ftool.example%2Fb&state=${"s".repeat(129)}`,
			"state",
		],
		["ref over 80", `label=A&keys=a&ref=${"x".repeat(81)}`, "ref"],
		[
			"challenge without state",
			`label=A&keys=a&client=https%3A%2F%2Ftool.example&redirect=https%3A%2F%2Ftool.example%2Fb&challenge=${CHALLENGE}`,
			"challenge",
		],
		[
			"challenge not S256",
			"label=A&keys=a&client=https%3A%2F%2Ftool.example&redirect=https%3A%2F%2Ftool.example%2Fb&state=s&challenge=abc",
			"challenge",
		],
		["revoke_reason over 120", `label=A&keys=a&revoke_reason=${"x".repeat(121)}`, "revoke_reason"],
		["links_reason over 120", `label=A&keys=a&links_reason=${"x".repeat(121)}`, "links_reason"],
		["poll without client", "label=A&keys=a&poll=https%3A%2F%2Fsvc.example", "poll"],
		[
			"poll with a path",
			"label=A&keys=a&client=https%3A%2F%2Ftool.example&poll=https%3A%2F%2Fsvc.example%2Fapi",
			"poll",
		],
		["an unknown parameter", "label=A&keys=a&colour=red", "colour"],
		["a parameter twice", "label=A&keys=a&label=B", "label"],
		["bad percent-encoding", "label=%E0%A4%A&keys=a", "label"],
	];
	for (const [name, query, parameter] of cases) {
		test(`refused as a whole: ${name} (names ${parameter})`, () =>
			refused(() => parseProposalLink(p(query)), parameter));
	}

	test("not a proposal link at all", () => {
		for (const link of [
			"https://p?label=A&keys=a",
			"svc://px?label=A&keys=a",
			"svc://p#x",
			"svc://p?label=A&keys=a#frag",
		]) {
			refused(() => parseProposalLink(link), "link");
		}
		refused(() => parseAppLink("svc://present?x=1"), "x");
		refused(() => parseAppLink("svc://presents?x=1"), "link");
	});

	test("loopback tool origins with allowLoopback (development)", () => {
		const out = parseProposalLink(
			p(
				"label=A&keys=a&client=http%3A%2F%2F127.0.0.1%3A3000&redirect=http%3A%2F%2F127.0.0.1%3A3000%2Fb&poll=http%3A%2F%2Flocalhost%3A8080",
			),
			{ allowLoopback: true },
		);
		assert.equal(out.client, "http://127.0.0.1:3000");
		assert.equal(out.poll, "http://localhost:8080");
		refused(
			() =>
				parseProposalLink(p("label=A&keys=a&client=http%3A%2F%2F10.0.0.1%3A3000"), { allowLoopback: true }),
			"client",
		);
	});
});

describe("svc://connect", () => {
	const good = {
		client: "https://tool.example",
		name: "Flat finder",
		redirect: "https://tool.example/connected",
		state: "st-1",
		challenge: CHALLENGE,
	};
	const link = (params: Record<string, string>) =>
		`svc://connect?${Object.entries(params)
			.map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
			.join("&")}`;

	test("parses all five parameters", () => {
		assert.deepEqual(parseConnectLink(link(good)), good);
		assert.deepEqual(parseAppLink(link(good)), { kind: "connect", ...good });
	});

	for (const missing of Object.keys(good)) {
		test(`${missing} is required`, () => {
			const params: Record<string, string> = { ...good };
			delete params[missing];
			refused(() => parseConnectLink(link(params)), missing);
		});
	}

	test("each part is checked", () => {
		refused(() => parseConnectLink(link({ ...good, client: "http://tool.example" })), "client");
		refused(() => parseConnectLink(link({ ...good, name: "x".repeat(41) })), "name");
		refused(() => parseConnectLink(link({ ...good, redirect: "https://other.example/" })), "redirect");
		refused(() => parseConnectLink(link({ ...good, state: "no spaces" })), "state");
		refused(() => parseConnectLink(link({ ...good, challenge: `${CHALLENGE}=` })), "challenge");
		refused(() => parseConnectLink(`${link(good)}&poll=https%3A%2F%2Fsvc.example`), "poll");
	});
});

describe("svc://auth", () => {
	test("code and state", () => {
		const code = crypto.randomBytes(32).toString("base64url");
		assert.deepEqual(parseAppLink(`svc://auth?code=${code}&state=s1`), { kind: "auth", code, state: "s1" });
		refused(() => parseAppLink(`svc://auth?code=${code}`), "state");
		refused(() => parseAppLink("svc://auth?code=short&state=s"), "code");
	});
});

describe("svc://a/<host>/<token>", () => {
	const token = crypto.randomBytes(32).toString("base64url");
	test("a host with or without a port, and the offer token", () => {
		assert.deepEqual(parseAppLink(`svc://a/attest.example.org/${token}`), {
			kind: "offer",
			host: "attest.example.org",
			token,
		});
		assert.deepEqual(parseOfferLink(`svc://a/localhost:8080/${token}`), {
			kind: "offer",
			host: "localhost:8080",
			token,
		});
	});
	test("anything else is refused whole", () => {
		for (const [link, at] of [
			[`svc://a/${token}`, "link"],
			[`svc://a/example.org/${token}/more`, "link"],
			[`svc://a/example.org/${token}?x=1`, "token"],
			[`svc://a/Example.org/${token}`, "host"],
			[`svc://a/user@example.org/${token}`, "host"],
			[`svc://a/example.org:0/${token}`, "host"],
			[`svc://a/example.org:99999/${token}`, "host"],
			[`svc://a/-bad.example/${token}`, "host"],
			[`svc://a/example.org/${token.slice(1)}`, "token"],
			[`svc://a/example.org/${token.slice(1)}=`, "token"],
			[`svc://ab/example.org/${token}`, "link"],
		] as const) {
			refused(() => parseAppLink(link), at);
		}
	});
});

describe("svc://present", () => {
	// Percent-encoded as the spec asks (URLSearchParams would write a space as `+`, a plus sign here).
	const q = (params: Record<string, string>) =>
		`svc://present?${Object.entries(params)
			.map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
			.join("&")}`;
	const good = {
		client_id: "https://shop.example",
		response_uri: "https://shop.example/presented?x=1",
		nonce: "n-0123456789",
	};
	test("the required three; the optional four percent-decoded", () => {
		assert.deepEqual(parseAppLink(q(good)), {
			kind: "present",
			clientId: "https://shop.example",
			responseUri: "https://shop.example/presented?x=1",
			nonce: "n-0123456789",
			claims: [],
		});
		assert.deepEqual(
			parsePresentLink(
				q({
					...good,
					state: "s.1",
					type: "membership",
					issuers: "attest.test,club.example",
					claims: "member,club",
				}),
			),
			{
				kind: "present",
				clientId: "https://shop.example",
				responseUri: "https://shop.example/presented?x=1",
				nonce: "n-0123456789",
				state: "s.1",
				type: "membership",
				issuers: ["attest.test", "club.example"],
				claims: ["member", "club"],
			},
		);
	});
	test("loopback services only with allowLoopback (development)", () => {
		const local = { ...good, client_id: "http://127.0.0.1:3000", response_uri: "http://127.0.0.1:3000/r" };
		refused(() => parsePresentLink(q(local)), "client_id");
		assert.equal(parsePresentLink(q(local), { allowLoopback: true }).clientId, "http://127.0.0.1:3000");
	});
	test("a malformed part refuses the link whole, naming it", () => {
		const { nonce: _n, ...noNonce } = good;
		const { response_uri: _r, ...noResponse } = good;
		for (const [link, at] of [
			[q(noNonce), "nonce"],
			[q(noResponse), "response_uri"],
			[q({ ...good, client_id: "https://shop.example/" }), "client_id"],
			[q({ ...good, client_id: "http://shop.example" }), "client_id"],
			[q({ ...good, response_uri: "https://evil.example/presented" }), "response_uri"],
			[q({ ...good, response_uri: "https://shop.example/p#frag" }), "response_uri"],
			[q({ ...good, nonce: "short" }), "nonce"],
			[q({ ...good, nonce: "has space in it" }), "nonce"],
			[q({ ...good, nonce: "x".repeat(257) }), "nonce"],
			[q({ ...good, state: "no spaces here" }), "state"],
			[q({ ...good, type: "two words" }), "type"],
			[q({ ...good, issuers: "attest.test,Attest.test" }), "issuers"],
			[q({ ...good, issuers: "attest.test,attest.test" }), "issuers"],
			[q({ ...good, issuers: "" }), "issuers"],
			[q({ ...good, claims: "member,member" }), "claims"],
			[q({ ...good, claims: "member,club-name" }), "claims"],
			[`${q(good)}&nonce=again-0123`, "nonce"],
			[`${q(good)}&redirect_uri=https%3A%2F%2Fshop.example`, "redirect_uri"],
		] as const) {
			refused(() => parseAppLink(link), at);
		}
	});
});

describe("svc://signin", () => {
	const good = {
		client_id: "https://shop.example",
		redirect_uri: "https://shop.example/cb?x=1",
		response_type: "code",
		scope: "openid email",
		code_challenge: CHALLENGE,
		code_challenge_method: "S256",
	};
	const q = (params: Record<string, string>) =>
		`svc://signin?${Object.entries(params)
			.map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
			.join("&")}`;
	test("the authorization request, every parameter kept for /oidc/authorize", () => {
		const claims = JSON.stringify({ userinfo: { svc_links: { values: ["iban"] } } });
		const link = parseAppLink(
			q({ ...good, state: "a b", nonce: "n", prompt: "login", claims, ui_locales: "de" }),
		);
		assert.equal(link.kind, "signin");
		assert.deepEqual(link, {
			kind: "signin",
			clientId: "https://shop.example",
			redirectUri: "https://shop.example/cb?x=1",
			scopes: ["openid", "email"],
			params: { ...good, state: "a b", nonce: "n", prompt: "login", claims, ui_locales: "de" },
		});
	});
	test("loopback services only with allowLoopback (development)", () => {
		const local = { ...good, client_id: "http://127.0.0.1:3000", redirect_uri: "http://127.0.0.1:3000/cb" };
		refused(() => parseSigninLink(q(local)), "client_id");
		assert.equal(parseSigninLink(q(local), { allowLoopback: true }).clientId, "http://127.0.0.1:3000");
	});
	test("each missing or malformed part refuses the link whole, naming it", () => {
		for (const name of Object.keys(good)) {
			const { [name as keyof typeof good]: _gone, ...rest } = good;
			refused(() => parseSigninLink(q(rest)), name);
		}
		for (const [params, at] of [
			[{ ...good, client_id: "https://shop.example/" }, "client_id"],
			[{ ...good, redirect_uri: "https://evil.example/cb" }, "redirect_uri"],
			[{ ...good, response_type: "token" }, "response_type"],
			[{ ...good, scope: "email" }, "scope"],
			[{ ...good, scope: "openid phone" }, "scope"],
			[{ ...good, scope: "openid  email" }, "scope"],
			[{ ...good, code_challenge: "short" }, "code_challenge"],
			[{ ...good, code_challenge_method: "plain" }, "code_challenge_method"],
			[{ ...good, state: "x".repeat(501) }, "state"],
			[{ ...good, nonce: "a\nb" }, "nonce"],
			[{ ...good, claims: "[]" }, "claims"],
			[{ ...good, claims: "{" }, "claims"],
			[{ ...good, claims: JSON.stringify({ userinfo: { svc_links: { values: ["IBAN"] } } }) }, "claims"],
			[{ ...good, other: "1" }, "other"],
		] as const) {
			refused(() => parseSigninLink(q(params)), at);
		}
	});
});

describe("check code", () => {
	test("matches an independent computation for many challenges", async () => {
		for (let i = 0; i < 50; i++) {
			const challenge = crypto.randomBytes(32).toString("base64url").slice(0, 43);
			const digest = crypto.createHash("sha256").update(challenge).digest();
			const hex = digest.subarray(0, 3).toString("hex").toUpperCase();
			assert.equal(await checkCode(challenge), `${hex.slice(0, 3)}-${hex.slice(3)}`);
		}
		assert.match(await checkCode(CHALLENGE), /^[0-9A-F]{3}-[0-9A-F]{3}$/);
	});
});
