// The requester's own checks of a remote answer (`POST /api/public/requests/{slug}/remote`), posted
// straight to req.test as a relaying server would, so resp.test's own planning never runs first: a
// grant that does not resolve, values that do not answer the template, an identity its server
// reports revoked, and a valid certificate of another server than the relaying one. Each is
// refused with its code and leaves nothing on the requester's side: no answer, no callback.
// Then `identityScope` on a local answer: this server's identities, and one of another server.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
	buildIdentity,
	buildRequest,
	call,
	expectCode,
	REQ,
	RESP,
	useTwoServers,
} from "../helpers/two-servers.ts";

const two = useTwoServers();
const CALLBACK = "http://127.0.0.1:9/hook";

/** What the requester keeps of the answers to a request: its answer rows and its queued callbacks. */
async function kept(requestId: string) {
	const db = two.req.store.db;
	const answers = await db
		.selectFrom("request_answers")
		.select("id")
		.where("request", "=", requestId)
		.execute();
	const callbacks = await db.selectFrom("outbox").select("id").where("request", "=", requestId).execute();
	return { answers: answers.length, callbacks: callbacks.length };
}
const nothing = { answers: 0, callbacks: 0 };

/**
 * A real grant on resp.test answering `values`, and its token: relayed to a request that takes any
 * key, and read back from what req.test kept of it.
 */
async function grantOnResp(values: Record<string, string>) {
	const open = await buildRequest(two.req, {
		items: [{ key: "name", label: "Full name", type: "text", required: true }],
		allowExtraFields: true,
	});
	const res = await call(two.resp, "POST", "/api/requests/remote", { server: REQ, slug: open.slug, values });
	assert.equal(res.status, 200, res.body);
	const row = await two.req.store.db
		.selectFrom("request_answers")
		.select(["grant_id", "grant_token"])
		.where("id", "=", res.json().responseId)
		.executeTakeFirstOrThrow();
	return { id: row.grant_id as string, token: row.grant_token as string };
}

const nonceFor = async (slug: string) =>
	(await call(two.req, "GET", `/api/challenges/request/${slug}`, undefined, false)).json().nonce as string;

/** A remote answer as resp.test would relay it, posted straight to req.test. */
const postRemote = (slug: string, body: Record<string, unknown>) =>
	call(two.req, "POST", `/api/public/requests/${slug}/remote`, { server: RESP, ...body }, false);

function expectField(res: { status: number; body: string }, field: string) {
	expectCode(res, 400, "validation_failed");
	assert.equal(JSON.parse(res.body).field, field, res.body);
}

describe("the requester's own checks of a remote answer", () => {
	test("a grant that does not resolve (unknown id, wrong token, revoked there): 400 on body.grant, nothing kept", async () => {
		const r = await buildRequest(two.req, { callbackUrl: CALLBACK });
		const grant = await grantOnResp({ name: "Ada" });
		expectField(await postRemote(r.slug, { grant: { id: "nosuchgrant", token: grant.token } }), "body.grant");
		expectField(
			await postRemote(r.slug, { grant: { id: grant.id, token: `${grant.token}x` } }),
			"body.grant",
		);
		const revoked = await call(two.resp, "PATCH", `/api/collections/links/records/${grant.id}`, {
			status: "revoked",
		});
		assert.equal(revoked.status, 200, revoked.body);
		expectField(await postRemote(r.slug, { grant }), "body.grant");
		assert.deepEqual(await kept(r.id), nothing);
	});

	const templateRows: {
		name: string;
		items: Record<string, unknown>[];
		values: Record<string, string>;
		field: string;
	}[] = [
		{
			name: "a typed value not of its item's type",
			items: [{ key: "email", label: "Email", type: "email", required: true }],
			values: { email: "not-an-email" },
			field: "body.grant.keys.email",
		},
		{
			name: "a required item the grant lacks",
			items: [{ key: "phone", label: "Phone", type: "phone", required: true }],
			values: {},
			field: "body.grant.keys.phone",
		},
		{
			name: "a key the request does not ask for",
			items: [],
			values: { nickname: "Ada" },
			field: "body.grant.keys.nickname",
		},
		{
			name: "a file item answered by a value",
			items: [{ key: "passport", label: "Passport", type: "file", required: false }],
			values: { passport: "P1234567" },
			field: "body.grant.keys.passport",
		},
	];
	for (const row of templateRows) {
		test(`values against the template, the responder's check bypassed: ${row.name} is refused, nothing kept`, async () => {
			const r = await buildRequest(two.req, {
				items: [{ key: "name", label: "Full name", type: "text", required: true }, ...row.items],
				callbackUrl: CALLBACK,
			});
			const grant = await grantOnResp({ name: "Ada", ...row.values });
			expectField(await postRemote(r.slug, { grant }), row.field);
			assert.deepEqual(await kept(r.id), nothing);
		});
	}

	test("an identity its server reports revoked: 403 identity_revoked, nothing kept", async () => {
		const r = await buildRequest(two.req, { requireHandshake: true, callbackUrl: CALLBACK });
		const { device, identity, relayed } = await buildIdentity(two.resp);
		const withdrawn = await call(two.resp, "PATCH", `/api/collections/identities/records/${identity.id}`, {
			status: "revoked",
		});
		assert.equal(withdrawn.status, 200, withdrawn.body);
		const grant = await grantOnResp({ name: "Ada" });
		const nonce = await nonceFor(r.slug);
		// The certificate and the challenge are good: only resp.test's signed standing says no.
		const res = await postRemote(r.slug, {
			grant,
			identity: relayed,
			challengeNonce: nonce,
			challengeSignature: await device.sign(nonce),
		});
		expectCode(res, 403, "identity_revoked");
		assert.deepEqual(await kept(r.id), nothing);
	});

	test("a valid certificate issued by another server than the relaying one: 403 remote_identity_invalid, nothing kept", async () => {
		const r = await buildRequest(two.req, { requireHandshake: true, callbackUrl: CALLBACK });
		// Certified by req.test's own root key, presented as resp.test's.
		const { device, relayed } = await buildIdentity(two.req);
		const grant = await grantOnResp({ name: "Ada" });
		const nonce = await nonceFor(r.slug);
		const res = await postRemote(r.slug, {
			grant,
			identity: relayed,
			challengeNonce: nonce,
			challengeSignature: await device.sign(nonce),
		});
		expectCode(res, 403, "remote_identity_invalid");
		assert.deepEqual(await kept(r.id), nothing);
	});
});

describe("identityScope on a local answer", () => {
	for (const scope of ["any", "from_root"] as const) {
		test(`identityScope ${scope}: an identity of this server is recorded; one of another server is refused`, async () => {
			const r = await buildRequest(two.req, {
				requireHandshake: true,
				identityScope: scope,
				callbackUrl: CALLBACK,
			});
			const answer = async (identity: { id: string }, device: { sign(m: string): Promise<string> }) => {
				const nonce = await nonceFor(r.slug);
				return call(two.req, "POST", `/api/public/requests/${r.slug}`, {
					values: { name: "Tess" },
					identityId: identity.id,
					challengeNonce: nonce,
					challengeSignature: await device.sign(nonce),
				});
			};
			// resp.test's identity, signing with its own key: a local answer names its identity by id,
			// and no identity here has that id, so there is no key to check the signature with.
			const foreign = await buildIdentity(two.resp);
			expectCode(await answer(foreign.identity, foreign.device), 401, "signature_invalid");
			assert.deepEqual(await kept(r.id), nothing);

			const local = await buildIdentity(two.req);
			const ok = await answer(local.identity, local.device);
			assert.equal(ok.status, 200, ok.body);
			assert.equal(ok.json().identity, local.identity.id);
			const row = await two.req.store.db
				.selectFrom("request_answers")
				.select("identity")
				.where("id", "=", ok.json().responseId)
				.executeTakeFirstOrThrow();
			assert.equal(row.identity, local.identity.id);
		});
	}
});
