// The `requests` collection (create, read, change, delete, field rules, access) and the public probe
// `GET /api/public/requests/{slug}`, driven as a client would.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createIdentity } from "../../src/features/identity/service.ts";
import { ManualClock } from "../../src/lib/clock.ts";
import { verifyPassword } from "../../src/lib/password.ts";
import { assertProblem } from "../apikeys/helpers.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import { startDns, type TestDns } from "../helpers/dns.ts";
import { buildAccount, buildApiKey, type TestAccount } from "../helpers/factories.ts";
import { type Scenario, scenarios } from "../helpers/scenario.ts";

const REQUESTS = "/api/collections/requests/records";
const TEMPLATES = "/api/collections/templates/records";
const PROBE = "/api/public/requests";

const item = (key: string, extra: Record<string, unknown> = {}) => ({
	key,
	label: key.toUpperCase(),
	type: "text",
	required: false,
	...extra,
});

let dns: TestDns;
let clock: ManualClock;
let t: TestApp;
let a: TestAccount;
let b: TestAccount;
before(async () => {
	dns = await startDns();
	clock = new ManualClock(Date.parse("2030-01-01T00:00:00Z"));
	t = await makeApp({ dnsServers: [dns.server], allowPrivateCallbacks: false }, { clock });
	a = await buildAccount(t.app, { name: "Ann" });
	b = await buildAccount(t.app, { name: "Bob" });
});
after(async () => {
	await t.close();
	await dns.close();
});

async function create(body: Record<string, unknown>, headers = a.headers) {
	return t.app.inject({ method: "POST", url: REQUESTS, headers, payload: body });
}

async function created(body: Record<string, unknown>, headers = a.headers) {
	const res = await create(body, headers);
	assert.equal(res.statusCode, 200, res.body);
	return res.json() as Record<string, unknown> & { id: string; slug: string };
}

describe("requests: create, read, change, delete", () => {
	test("create answers every member, mints a 192-bit slug, never serves the password", async () => {
		dns.a.set("hooks.example.org", ["93.184.216.34"]);
		const items = [item("name", { required: true }), item("email", { type: "email", description: "Work" })];
		const res = await create({
			label: "  Tenant application  ",
			items,
			password: "correct horse",
			requiresIdentifier: true,
			requireHandshake: true,
			allowExtraFields: true,
			identityScope: "from_root",
			expiresAt: "2030-02-01T00:00:00.000Z",
			callbackUrl: "HTTPS://Hooks.Example.ORG/svc?x=1",
		});
		assert.equal(res.statusCode, 200, res.body);
		const r = res.json();
		assert.match(r.id, /^[a-z0-9]{20}$/);
		assert.match(r.slug, /^[A-Za-z0-9_-]{32}$/);
		assert.deepEqual(
			{ ...r, id: "", slug: "" },
			{
				id: "",
				slug: "",
				workspace: a.workspaceId,
				label: "Tenant application",
				status: "open",
				items,
				template: null,
				requiresPassword: true,
				requiresIdentifier: true,
				requireHandshake: true,
				allowExtraFields: true,
				identityScope: "from_root",
				identity: null,
				expiresAt: "2030-02-01T00:00:00.000Z",
				callbackUrl: "https://hooks.example.org/svc?x=1",
				allowAnswerSignup: false,
				answerSignupLimit: 20,
				answerSignups: 0,
				created: new Date(clock.now()).toISOString(),
				updated: new Date(clock.now()).toISOString(),
			},
		);
		assert.ok(!res.body.includes("correct horse"));
		assert.ok(!res.body.includes("scrypt"));
		const row = await t.app.store.db
			.selectFrom("requests")
			.select("password_hash")
			.where("id", "=", r.id)
			.executeTakeFirstOrThrow();
		assert.ok(row.password_hash && (await verifyPassword("correct horse", row.password_hash)));
		assert.equal(await verifyPassword("wrong", row.password_hash as string), false);
	});

	test("defaults: open, no password, every gate off, identityScope any, no expiry, no callback", async () => {
		const r = await created({ label: "Plain", items: [item("x")] });
		assert.equal(r.status, "open");
		assert.equal(r.requiresPassword, false);
		assert.equal(r.requiresIdentifier, false);
		assert.equal(r.requireHandshake, false);
		assert.equal(r.allowExtraFields, false);
		assert.equal(r.identityScope, "any");
		assert.equal(r.expiresAt, null);
		assert.equal(r.callbackUrl, null);
	});

	test("list, view, PATCH and DELETE; the slug never changes", async () => {
		const r = await created({ label: "Editable", items: [item("x")] });
		const list = await t.app.inject({
			method: "GET",
			url: `${REQUESTS}?filter=label="Editable"`,
			headers: a.headers,
		});
		assert.equal(list.statusCode, 200);
		assert.deepEqual(
			list.json().items.map((i: { id: string }) => i.id),
			[r.id],
		);
		clock.advance(1000);
		const patched = await t.app.inject({
			method: "PATCH",
			url: `${REQUESTS}/${r.id}`,
			headers: a.headers,
			payload: { label: "Edited", status: "closed", password: "pw", items: [item("y", { type: "date" })] },
		});
		assert.equal(patched.statusCode, 200, patched.body);
		const p = patched.json();
		assert.equal(p.label, "Edited");
		assert.equal(p.status, "closed");
		assert.equal(p.requiresPassword, true);
		assert.deepEqual(p.items, [item("y", { type: "date" })]);
		assert.equal(p.slug, r.slug);
		assert.equal(p.updated, new Date(clock.now()).toISOString());
		const cleared = await t.app.inject({
			method: "PATCH",
			url: `${REQUESTS}/${r.id}`,
			headers: a.headers,
			payload: { password: null, status: "open" },
		});
		assert.equal(cleared.json().requiresPassword, false);
		assert.equal(cleared.json().status, "open");
		// `slug` is read-only: naming it is refused like any unknown member.
		assertProblem(
			await t.app.inject({
				method: "PATCH",
				url: `${REQUESTS}/${r.id}`,
				headers: a.headers,
				payload: { slug: "mine" },
			}),
			400,
			"validation_failed",
		);
		const del = await t.app.inject({ method: "DELETE", url: `${REQUESTS}/${r.id}`, headers: a.headers });
		assert.equal(del.statusCode, 204);
		assertProblem(
			await t.app.inject({ method: "GET", url: `${REQUESTS}/${r.id}`, headers: a.headers }),
			404,
			"not_found",
		);
		assertProblem(await t.app.inject({ method: "GET", url: `${PROBE}/${r.slug}` }), 404, "not_found");
	});

	test("items copied from a template of the workspace; later template edits do not change the request", async () => {
		const tpl = await t.app.inject({
			method: "POST",
			url: TEMPLATES,
			headers: a.headers,
			payload: { name: "Tenant", items: [item("name"), item("iban")] },
		});
		const tplId = tpl.json().id as string;
		const r = await created({ label: "From template", template: tplId });
		assert.equal(r.template, tplId);
		assert.deepEqual(r.items, [item("name"), item("iban")]);
		await t.app.inject({
			method: "PATCH",
			url: `${TEMPLATES}/${tplId}`,
			headers: a.headers,
			payload: { items: [item("changed")] },
		});
		const again = await t.app.inject({ method: "GET", url: `${REQUESTS}/${r.id}`, headers: a.headers });
		assert.deepEqual(again.json().items, [item("name"), item("iban")]);
		// Listing items inline afterwards drops the template reference.
		const inline = await t.app.inject({
			method: "PATCH",
			url: `${REQUESTS}/${r.id}`,
			headers: a.headers,
			payload: { items: [item("z")] },
		});
		assert.equal(inline.json().template, null);
		// Another workspace's template is not found.
		const theirs = await t.app.inject({
			method: "POST",
			url: TEMPLATES,
			headers: b.headers,
			payload: { name: "Theirs", items: [item("secret_question")] },
		});
		const refused = assertProblem(
			await create({ label: "x", template: theirs.json().id }),
			400,
			"validation_failed",
		);
		assert.equal(refused.field, "body.template");
	});

	test("an identity of the workspace is shown as the requester's; another's is refused", async () => {
		const key = await deviceKey();
		const mine = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{ workspaceId: a.workspaceId, accountId: a.accountId, name: "Ann at work", publicKey: key.publicJwk },
			clock.now(),
		);
		const theirs = await createIdentity(
			t.app.store.db,
			t.app.rootKey,
			t.app.config,
			{
				workspaceId: b.workspaceId,
				accountId: b.accountId,
				name: "Bob",
				publicKey: (await deviceKey()).publicJwk,
			},
			clock.now(),
		);
		const refused = assertProblem(
			await create({ label: "x", items: [item("x")], identity: theirs.id }),
			400,
			"validation_failed",
		);
		assert.equal(refused.field, "body.identity");
		const r = await created({ label: "Signed", items: [item("x")], identity: mine.id });
		assert.equal(r.identity, mine.id);
		const probe = (await t.app.inject({ method: "GET", url: `${PROBE}/${r.slug}` })).json();
		assert.deepEqual(probe.requester.identity, {
			id: mine.id,
			fingerprint: key.fingerprint,
			name: "Ann at work",
		});
	});
});

describe("requests: field rules", () => {
	const bad = (name: string, body: unknown, field: string, code = "validation_failed"): Scenario => ({
		name,
		method: "POST",
		url: REQUESTS,
		headers: () => a.headers,
		body,
		status: 400,
		code,
		check: (res) => assert.equal((res.json() as { field?: string }).field, field),
	});
	const ok = { label: "L", items: [item("a")] };
	scenarios(
		() => t.app,
		[
			bad("no label", { items: [item("a")] }, "body.label"),
			bad("a blank label", { ...ok, label: "   " }, "body.label"),
			bad("a label over 200 characters", { ...ok, label: "x".repeat(201) }, "body.label"),
			bad("neither items nor template", { label: "L" }, "body.items"),
			bad("both items and template", { ...ok, template: "abc" }, "body.template"),
			bad("no items", { ...ok, items: [] }, "body.items"),
			bad("a repeated key", { ...ok, items: [item("a"), item("a")] }, "body.items.1.key"),
			bad("an unknown item type", { ...ok, items: [item("a", { type: "color" })] }, "body.items.0.type"),
			bad("a key outside [a-z0-9_-]", { ...ok, items: [item("A b")] }, "body.items.0.key"),
			bad(
				"required as a string",
				{ ...ok, items: [item("a", { required: "yes" })] },
				"body.items.0.required",
			),
			bad("status expired is not settable", { ...ok, status: "expired" }, "body.status"),
			bad("an unknown identityScope", { ...ok, identityScope: "some" }, "body.identityScope"),
			bad("requireHandshake as a string", { ...ok, requireHandshake: "true" }, "body.requireHandshake"),
			bad("an empty password", { ...ok, password: "" }, "body.password"),
			bad("expiresAt in the past", { ...ok, expiresAt: "2029-12-31T23:59:59Z" }, "body.expiresAt"),
			bad("expiresAt not a date", { ...ok, expiresAt: "tomorrow" }, "body.expiresAt"),
			bad("a slug chosen by the client", { ...ok, slug: "guessable" }, "body.slug"),
			bad("an unknown member", { ...ok, colour: "red" }, "body.colour"),
			bad("a callbackUrl that is not a string", { ...ok, callbackUrl: 5 }, "body.callbackUrl"),
		],
	);

	test("a refused create writes nothing", async () => {
		const count = async () =>
			Number(
				(
					await t.app.store.db
						.selectFrom("requests")
						.select((eb) => eb.fn.countAll().as("n"))
						.executeTakeFirstOrThrow()
				).n,
			);
		const before = await count();
		await create({ label: "L", items: [item("a")], callbackUrl: "http://127.0.0.1/x" });
		await create({ label: "L", items: [item("a")], expiresAt: "yesterday" });
		assert.equal(await count(), before);
	});
});

describe("requests: the callback URL policy at save", () => {
	let open: TestApp;
	let owner: TestAccount;
	before(async () => {
		dns.a.set("internal.test", ["10.1.2.3"]);
		dns.a.set("loopback.test", ["127.0.0.1"]);
		dns.a.set("metadata.test", ["169.254.169.254"]);
		dns.aaaa.set("mapped.test", ["::ffff:7f00:1"]);
		dns.a.set("public.test", ["93.184.216.34"]);
		open = await makeApp({ dnsServers: [dns.server], allowPrivateCallbacks: true });
		owner = await buildAccount(open.app);
	});
	after(() => open.close());

	const save = (app: TestApp, headers: Record<string, string>, callbackUrl: string) =>
		app.app.inject({
			method: "POST",
			url: REQUESTS,
			headers,
			payload: { label: "cb", items: [item("a")], callbackUrl },
		});

	// [url, refused by default, refused with ALLOW_PRIVATE_CALLBACKS=true]
	const cases: [string, boolean, boolean][] = [
		["ftp://example.org/cb", true, true],
		["/relative", true, true],
		["example.org/cb", true, true],
		["http://user:pw@example.org/cb", true, true],
		["http://127.0.0.1:8080/cb", true, false],
		["http://[::1]/cb", true, false],
		["http://localhost/cb", true, false],
		["http://10.0.0.1/cb", true, false],
		["http://172.16.0.1/cb", true, false],
		["http://192.168.0.10/cb", true, false],
		["http://[fd00::1]/cb", true, false],
		["http://169.254.169.254/latest/meta-data/", true, true],
		["http://[fe80::1]/cb", true, true],
		["http://224.0.0.1/cb", true, true],
		["http://[ff02::1]/cb", true, true],
		["http://0.0.0.0/cb", true, true],
		["http://100.64.0.1/cb", true, true],
		["http://255.255.255.255/cb", true, true],
		["http://[::ffff:169.254.169.254]/cb", true, true],
		["http://[::ffff:127.0.0.1]/cb", true, false],
		["http://internal.test/cb", true, false],
		["http://loopback.test/cb", true, false],
		["http://mapped.test/cb", true, false],
		["http://metadata.test/cb", true, true],
		["https://public.test/cb", false, false],
		// Not resolvable yet: accepted, and judged again on the address dialled at delivery.
		["https://not-yet-deployed.test/cb", false, false],
	];
	for (const [url, strict, withPrivate] of cases) {
		test(`${url}: ${strict ? "refused" : "accepted"}; with private callbacks ${withPrivate ? "refused" : "accepted"}`, async () => {
			for (const [app, headers, refused] of [
				[t, a.headers, strict],
				[open, owner.headers, withPrivate],
			] as const) {
				const res = await save(app, headers, url);
				if (refused) {
					const body = assertProblem(res, 400, "validation_callback_url_blocked");
					assert.equal(body.field, "body.callbackUrl");
				} else assert.equal(res.statusCode, 200, res.body);
			}
		});
	}

	test("PATCH applies the same policy; null removes the URL", async () => {
		const r = await created({ label: "cb", items: [item("a")], callbackUrl: "https://public.test/cb" });
		assertProblem(
			await t.app.inject({
				method: "PATCH",
				url: `${REQUESTS}/${r.id}`,
				headers: a.headers,
				payload: { callbackUrl: "http://metadata.test/" },
			}),
			400,
			"validation_callback_url_blocked",
		);
		const kept = await t.app.inject({ method: "GET", url: `${REQUESTS}/${r.id}`, headers: a.headers });
		assert.equal(kept.json().callbackUrl, "https://public.test/cb");
		const removed = await t.app.inject({
			method: "PATCH",
			url: `${REQUESTS}/${r.id}`,
			headers: a.headers,
			payload: { callbackUrl: null },
		});
		assert.equal(removed.json().callbackUrl, null);
	});
});

describe("requests: access", () => {
	test("a guest is 401; another workspace's request is 404 for view, change and delete", async () => {
		const r = await created({ label: "Private", items: [item("a")] });
		assertProblem(await t.app.inject({ method: "GET", url: REQUESTS }), 401, "not_authenticated");
		for (const method of ["GET", "PATCH", "DELETE"] as const) {
			assertProblem(
				await t.app.inject({
					method,
					url: `${REQUESTS}/${r.id}`,
					headers: b.headers,
					...(method === "PATCH" ? { payload: { label: "mine" } } : {}),
				}),
				404,
				"not_found",
			);
		}
		const theirs = await t.app.inject({ method: "GET", url: REQUESTS, headers: b.headers });
		assert.ok(!theirs.json().items.some((i: { id: string }) => i.id === r.id));
	});

	test("API keys: requests:read lists, requests:write creates; without them a named 403", async () => {
		const reader = buildApiKey(t.app, a, ["request:read"]);
		const writer = buildApiKey(t.app, a, ["request:*"]);
		const none = buildApiKey(t.app, a, ["link:read"]);
		assert.equal(
			(await t.app.inject({ method: "GET", url: REQUESTS, headers: reader.headers })).statusCode,
			200,
		);
		const denied = assertProblem(await create(ok(), reader.headers), 403, "api_key_scope_missing");
		assert.equal(denied.scope, "request:write");
		assertProblem(
			await t.app.inject({ method: "GET", url: REQUESTS, headers: none.headers }),
			403,
			"api_key_scope_missing",
		);
		const made = await create(ok(), writer.headers);
		assert.equal(made.statusCode, 200, made.body);
		// Copying a template reads it: a key without `template:read` cannot.
		const tpl = await t.app.inject({
			method: "POST",
			url: TEMPLATES,
			headers: a.headers,
			payload: { name: "T", items: [item("a")] },
		});
		const noTemplate = assertProblem(
			await create({ label: "x", template: tpl.json().id }, writer.headers),
			403,
			"api_key_scope_missing",
		);
		assert.equal(noTemplate.scope, "template:read");
	});
	const ok = () => ({ label: "By key", items: [item("a")] });
});

describe("requests: status and the public probe", () => {
	test("the probe tells every gate, the questions, the requester and the server", async () => {
		const r = await created({
			label: "Probe me",
			items: [item("name", { required: true })],
			password: "pw",
			requiresIdentifier: true,
			allowExtraFields: true,
			callbackUrl: "https://public.test/cb",
		});
		const res = await t.app.inject({ method: "GET", url: `${PROBE}/${r.slug}` });
		assert.equal(res.statusCode, 200, res.body);
		const server = (await t.app.inject({ method: "GET", url: "/api/server" })).json();
		const workspace = (
			await t.app.inject({
				method: "GET",
				url: `/api/collections/workspaces/records/${a.workspaceId}`,
				headers: a.headers,
			})
		).json();
		assert.deepEqual(res.json(), {
			label: "Probe me",
			status: "open",
			requiresPassword: true,
			requiresIdentifier: true,
			requireHandshake: false,
			allowExtraFields: true,
			identityScope: "any",
			answerSignup: false,
			answerSignupsUsedUp: false,
			template: [item("name", { required: true })],
			requester: { name: workspace.name, domain: t.app.config.domain },
			server: {
				domain: server.domain,
				fingerprint: server.fingerprint,
				origin: `http://localhost:${t.app.config.port}`,
			},
		});
		// Never the password, the callback URL or the owner's ids.
		for (const secret of ["pw", "public.test", a.accountId, r.id]) {
			assert.ok(!res.body.includes(`"${secret}`), secret);
		}
	});

	test("an unknown slug is 404", async () => {
		assertProblem(await t.app.inject({ method: "GET", url: `${PROBE}/no-such-slug` }), 404, "not_found");
	});

	test("closed while closed; expired from expiresAt on (exp-1, exp, exp+1); reopened by moving expiresAt", async () => {
		const exp = clock.now() + 60_000;
		const r = await created({ label: "Timed", items: [item("a")], expiresAt: new Date(exp).toISOString() });
		const status = async () =>
			(await t.app.inject({ method: "GET", url: `${PROBE}/${r.slug}` })).json().status;
		const recordStatus = async () =>
			(await t.app.inject({ method: "GET", url: `${REQUESTS}/${r.id}`, headers: a.headers })).json().status;
		const start = clock.now();
		try {
			clock.set(exp - 1);
			assert.equal(await status(), "open");
			clock.set(exp);
			assert.equal(await status(), "expired");
			assert.equal(await recordStatus(), "expired");
			clock.set(exp + 1);
			assert.equal(await status(), "expired");
			const moved = await t.app.inject({
				method: "PATCH",
				url: `${REQUESTS}/${r.id}`,
				headers: a.headers,
				payload: { expiresAt: null },
			});
			assert.equal(moved.json().status, "open");
			await t.app.inject({
				method: "PATCH",
				url: `${REQUESTS}/${r.id}`,
				headers: a.headers,
				payload: { status: "closed" },
			});
			assert.equal(await status(), "closed");
		} finally {
			clock.set(start);
		}
	});

	test("the request challenge scope gives a nonce for an existing slug only", async () => {
		const r = await created({ label: "Handshake", items: [item("a")], requireHandshake: true });
		const res = await t.app.inject({ method: "GET", url: `/api/challenges/request/${r.slug}` });
		assert.equal(res.statusCode, 200, res.body);
		assert.equal(res.json().scope, "request");
		assertProblem(
			await t.app.inject({ method: "GET", url: "/api/challenges/request/nope" }),
			404,
			"not_found",
		);
	});

	test("probes are rate-limited per client (probe: 120 a minute)", async () => {
		const r = await created({ label: "Popular", items: [item("a")] });
		const ip = "198.51.100.23";
		let last = 0;
		for (let i = 0; i < 121; i++) {
			last = (await t.app.inject({ method: "GET", url: `${PROBE}/${r.slug}`, remoteAddress: ip })).statusCode;
			if (i < 120) assert.equal(last, 200);
		}
		assert.equal(last, 429);
	});
});
