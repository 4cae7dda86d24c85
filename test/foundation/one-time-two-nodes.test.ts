// One-time artefacts spent at once on two server processes on one database (spec "One-time
// artefacts": each is spent on first presentation): a share's download token and archive token, the
// share page's CSV token (docs/api.md "Share page and formats"), a passkey sign-in code, an OIDC consent ticket, an OIDC authorization code, and an invitation link
// are each presented eight times at once, spread over both processes, and succeed exactly once.
// On PostgreSQL the processes meet only in the database; on SQLite they share one database file
// (WAL), which opens the window between a read and a write that one process never opens. A spend
// split into a select and then a delete serves a token more than once here (docs/testing.md
// "Mutations tried").
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { createAccount, createSession } from "../../src/features/accounts/service.ts";
import { newId, randomToken, sha256Hex } from "../../src/lib/crypto.ts";
import { dialect } from "../helpers/app.ts";
import type { ServerProcess } from "../helpers/process.ts";
import { useTwoNodes } from "../helpers/two-nodes.ts";
import { pkce } from "../helpers/webauthn.ts";

/** Presentations of one artefact at once, half on each process. */
const AT_ONCE = 8;
/** Artefacts raced one after the other, each kind. */
const ROUNDS = 4;
const SERVICE = "http://127.0.0.1:9";
const CALLBACK = `${SERVICE}/cb`;

let clients = 0;
/** A fresh client address per request (TRUST_PROXY): per-client rate limits never stand in the way. */
const nextIp = () => {
	clients += 1;
	return `198.18.${(clients >> 8) & 255}.${clients & 255}`;
};

interface Answer {
	status: number;
	body: string;
}

describe(`one-time artefacts spent at once on two processes (${dialect})`, () => {
	const nodes = useTwoNodes({ env: { TRUST_PROXY: "true" } });
	let account: string;
	let session: Record<string, string>;

	before(async () => {
		const now = Date.now();
		const made = await createAccount(
			nodes.store.db,
			{ email: `o-${newId()}@example.org`, name: "Owner" },
			now,
		);
		account = made.accountId;
		session = { authorization: `Bearer ${(await createSession(nodes.store.db, account, now)).token}` };
	});

	/** `AT_ONCE` presentations made by `send`, alternating between the two processes. */
	async function race(send: (node: ServerProcess, i: number) => Promise<Response>): Promise<Answer[]> {
		const { a, b } = nodes;
		return Promise.all(
			Array.from({ length: AT_ONCE }, async (_, i) => {
				const res = await send(i % 2 === 0 ? a : b, i);
				return { status: res.status, body: await res.text() };
			}),
		);
	}

	/** Exactly one success; every other presentation refused with `status` and `code`. */
	function once(results: Answer[], ok: number, status: number, code: string) {
		const statuses = results.map((r) => r.status).sort();
		const want = [ok, ...Array.from({ length: AT_ONCE - 1 }, () => status)].sort();
		assert.deepEqual(statuses, want, JSON.stringify(results.map((r) => [r.status, r.body.slice(0, 120)])));
		for (const r of results.filter((x) => x.status === status)) {
			const body = JSON.parse(r.body) as { code?: string; error?: string };
			assert.equal(body.code ?? body.error, code, r.body);
		}
	}

	const json = (method: string, headers: Record<string, string>, body: unknown): RequestInit => ({
		method,
		headers: { ...headers, "content-type": "application/json", "x-forwarded-for": nextIp() },
		body: JSON.stringify(body),
	});

	/** A share of one file, resolved once: its download token, archive token and the file's id. */
	async function resolvedShare() {
		const { a } = nodes;
		const form = new FormData();
		form.append("key", `doc-${newId().slice(0, 8)}`);
		form.append("file", new Blob([new Uint8Array(Buffer.from("%PDF-1.4 once"))]), "once.pdf");
		const file = await fetch(`${a.url}/api/collections/records/records`, {
			method: "POST",
			headers: session,
			body: form,
		});
		assert.equal(file.status, 200, await file.clone().text());
		const fileId = ((await file.json()) as { id: string }).id;
		const link = await fetch(
			`${a.url}/api/collections/links/records`,
			json("POST", session, { label: "Once", records: [fileId] }),
		);
		assert.equal(link.status, 200, await link.clone().text());
		const { slug } = (await link.json()) as { slug: string };
		const resolved = await fetch(`${a.url}/api/public/links/${slug}`, json("POST", {}, {}));
		assert.equal(resolved.status, 200, await resolved.clone().text());
		const body = (await resolved.json()) as { archiveToken: string; records: { downloadToken: string }[] };
		const download = body.records[0]?.downloadToken;
		assert.ok(download && body.archiveToken);
		return { slug, fileId, download, archive: body.archiveToken };
	}

	const publicGet = (node: ServerProcess, path: string) =>
		fetch(`${node.url}${path}`, { headers: { "x-forwarded-for": nextIp() } });

	test("a share's download token serves its file once", async () => {
		for (let round = 0; round < ROUNDS; round++) {
			const share = await resolvedShare();
			const path = `/api/public/links/${share.slug}/files/${share.fileId}?dl=${share.download}`;
			once(await race((node) => publicGet(node, path)), 200, 401, "file_download_invalid");
		}
	});

	test("a share's archive token serves its archive once", async () => {
		for (let round = 0; round < ROUNDS; round++) {
			const share = await resolvedShare();
			const path = `/api/public/links/${share.slug}/archive?dl=${share.archive}`;
			once(await race((node) => publicGet(node, path)), 200, 401, "file_download_invalid");
		}
	});

	test("the share page's CSV token serves its CSV once, under the page's one view", async () => {
		const { a } = nodes;
		for (let round = 0; round < ROUNDS; round++) {
			const made = await fetch(
				`${a.url}/api/collections/records/records`,
				json("POST", session, { key: `email-${round}`, value: "ann@example.org" }),
			);
			assert.equal(made.status, 200, await made.clone().text());
			const { id } = (await made.json()) as { id: string };
			const link = await fetch(
				`${a.url}/api/collections/links/records`,
				json("POST", session, { label: "Once", records: [id], password: "open sesame" }),
			);
			const { slug, id: linkId } = (await link.json()) as { slug: string; id: string };
			const opened = await fetch(`${a.url}/s/${slug}`, {
				method: "POST",
				headers: {
					"content-type": "application/x-www-form-urlencoded",
					accept: "text/html",
					"x-forwarded-for": nextIp(),
				},
				body: "password=open+sesame",
			});
			assert.equal(opened.status, 200);
			const href = /href="(\/s\/[^"]+\?format=csv&amp;dl=[^"]+)"/.exec(await opened.text())?.[1];
			assert.ok(href, "the opened page links its CSV");
			const path = href.replaceAll("&amp;", "&");
			once(await race((node) => publicGet(node, path)), 200, 401, "file_download_invalid");
			const reads = await fetch(
				`${a.url}/api/collections/linkReads/records?filter=${encodeURIComponent(`link='${linkId}'`)}`,
				{ headers: session },
			);
			const items = ((await reads.json()) as { items: { kind: string; view: number }[] }).items;
			assert.deepEqual(items.map((r) => `${r.kind} ${r.view}`).sort(), ["csv 1", "page 1"]);
		}
	});

	test("a passkey sign-in code is redeemed once", async () => {
		for (let round = 0; round < ROUNDS; round++) {
			const { verifier, challenge } = pkce();
			const code = randomToken(32);
			const now = Date.now();
			await nodes.store.db
				.insertInto("passkey_codes")
				.values({
					hash: sha256Hex(code),
					account,
					pkce_challenge: challenge,
					created: now,
					expires: now + 60_000,
				})
				.execute();
			const results = await race((node) =>
				fetch(`${node.url}/api/passkeys/token`, json("POST", {}, { code, verifier })),
			);
			once(results, 200, 400, "passkey_grant_invalid");
		}
	});

	test("an OIDC consent ticket is answered once", async () => {
		for (let round = 0; round < ROUNDS; round++) {
			const ticket = randomToken(32);
			const now = Date.now();
			await nodes.store.db
				.insertInto("oidc_requests")
				.values({
					hash: sha256Hex(randomToken(32)),
					client_id: SERVICE,
					redirect_uri: CALLBACK,
					scopes: "",
					state: "st",
					nonce: null,
					code_challenge: pkce().challenge,
					keys: "[]",
					issuer: "https://svc.example",
					lang: "en",
					ticket_hash: sha256Hex(ticket),
					account,
					auth_time: Math.floor(now / 1000),
					created: now,
					expires: now + 60_000,
				})
				.execute();
			const results = await race((node) =>
				fetch(
					`${node.url}/oidc/authorize/consent`,
					json("POST", {}, { ticket, approve: true, scopes: [], links: {} }),
				),
			);
			once(results, 200, 400, "oidc_request_invalid");
			const ok = JSON.parse(results.find((r) => r.status === 200)?.body ?? "{}") as { redirect: string };
			assert.ok(new URL(ok.redirect).searchParams.get("code"), "the one answer carries a code");
		}
	});

	test("an OIDC authorization code is exchanged once", async () => {
		for (let round = 0; round < ROUNDS; round++) {
			const { verifier, challenge } = pkce();
			const code = randomToken(32);
			const now = Date.now();
			await nodes.store.db
				.insertInto("oidc_codes")
				.values({
					hash: sha256Hex(code),
					account,
					client_id: SERVICE,
					redirect_uri: CALLBACK,
					code_challenge: challenge,
					scopes: "",
					nonce: null,
					issuer: "https://svc.example",
					auth_time: Math.floor(now / 1000),
					links: "{}",
					created: now,
					expires: now + 60_000,
				})
				.execute();
			const form = new URLSearchParams({
				grant_type: "authorization_code",
				code,
				client_id: SERVICE,
				redirect_uri: CALLBACK,
				code_verifier: verifier,
			}).toString();
			const results = await race((node) =>
				fetch(`${node.url}/oidc/token`, {
					method: "POST",
					headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": nextIp() },
					body: form,
				}),
			);
			once(results, 200, 400, "invalid_grant");
		}
	});

	test("an invitation link is accepted once, by one of eight accounts", async () => {
		for (let round = 0; round < ROUNDS; round++) {
			const { a } = nodes;
			const made = await fetch(
				`${a.url}/api/collections/invitations/records`,
				json("POST", session, { email: `i-${newId()}@example.org`, role: "member" }),
			);
			assert.equal(made.status, 200, await made.clone().text());
			const token = String(made.headers.get("x-plain-token"));
			const now = Date.now();
			const takers: Record<string, string>[] = [];
			for (let i = 0; i < AT_ONCE; i++) {
				const who = await createAccount(nodes.store.db, { email: `t-${newId()}@example.org` }, now);
				takers.push({
					authorization: `Bearer ${(await createSession(nodes.store.db, who.accountId, now)).token}`,
				});
			}
			const results = await race((node, i) =>
				fetch(`${node.url}/api/invitations/accept`, json("POST", takers[i] ?? {}, { token })),
			);
			once(results, 200, 410, "invitation_used");
		}
	});
});
