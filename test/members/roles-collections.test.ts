// Every role against every workspace collection and action (list, create, view, update, delete),
// allowed and refused, in a workspace of two members and one of three. Expectations follow
// docs/api.md: the permission catalogue and its role rule (a member holds all but members:write,
// attestations:issue and vault:hidden; a viewer only the read permissions), each collection's Access line, "API keys" (a member sees and revokes their
// own keys, a holder of members:write every one; another's answers 404) and the identities rule
// (revoke and delete: the creator or an owner/admin). Targets are made by someone other than the
// actor, so "allowed" means the workspace's, not merely one's own.
import { after, before } from "node:test";
import { createNotification } from "../../src/features/notifications/service.ts";
import { newId } from "../../src/lib/crypto.ts";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { deviceKey } from "../helpers/device-key.ts";
import type { TestAccount } from "../helpers/factories.ts";
import {
	C,
	make,
	manages,
	memberId,
	needs,
	notFound,
	notOffered,
	ok,
	type Role,
	type Row,
	roleTable,
	type Target,
	type Team,
	type Want,
	writes,
} from "./role-table.ts";

let t: TestApp;
before(async () => {
	t = await makeApp({ allowAttestations: true });
});
after(() => t.close());

const rand = () => Math.random().toString(36).slice(2, 10);
const items = [{ key: "name", label: "Name", type: "text", required: true }];
type Expect = (role: Role, tm: Team) => Want;
const everyone: Expect = () => ok;
const managers: Expect = (r) => needs(manages(r));
const writers: Expect = (r) => needs(writes(r));

/** View, update (when `patch` is given) and delete one fresh target each. */
function actions(
	what: string,
	target: (tm: Team) => Promise<Target>,
	patch: unknown,
	want: { view: Expect; update: Expect; delete: Expect },
): Row[] {
	return [
		{ name: `view ${what}`, method: "GET", target, expect: want.view },
		{ name: `update ${what}`, method: "PATCH", target, body: () => patch, expect: want.update },
		{ name: `delete ${what}`, method: "DELETE", target, expect: want.delete },
	];
}

const made =
	(collection: string, by: (tm: Team) => TestAccount, body: () => unknown) =>
	async (tm: Team): Promise<Target> => ({
		collection,
		id: await make(t.app, tm, by(tm), collection, await body()),
		viewer: by(tm),
	});
const peer = (tm: Team) => tm.peer;
const actor = (tm: Team) => tm.actor;

const identity = async () => ({ name: "device", publicKey: (await deviceKey()).publicJwk });

const notification = (by: (tm: Team) => TestAccount) => async (tm: Team) => ({
	collection: "notifications",
	id: await createNotification(
		t.app.store.db,
		{ account: by(tm).accountId, workspace: tm.ws, kind: "test", title: "Hello" },
		t.app.clock.now(),
	),
	viewer: by(tm),
});

async function connection(tm: Team): Promise<Target> {
	const id = newId();
	const now = t.app.clock.now();
	await t.app.store.db
		.insertInto("connections")
		.values({
			id,
			workspace: tm.ws,
			client_id: `https://tool-${rand()}.example`,
			client_name: "Tool",
			allow_revoke: 0,
			allow_hand_over: 0,
			expires_at: now + 86_400_000,
			created_by: tm.peer.accountId,
			created: now,
			updated: now,
		})
		.execute();
	return { collection: "connections", id, viewer: tm.peer };
}

/** The actor's own identity; a viewer makes it as a member first, then is a viewer again. */
async function yourIdentity(tm: Team): Promise<Target> {
	if (tm.role !== "viewer") return made("identities", actor, identity)(tm);
	await setRole(tm, "member");
	try {
		return await made("identities", actor, identity)(tm);
	} finally {
		await setRole(tm, "viewer");
	}
}

async function setRole(tm: Team, role: Role) {
	const id = await memberId(t.app, tm, tm.actor);
	const res = await t.app.inject({
		method: "PATCH",
		url: `${C}/members/records/${id}`,
		headers: { ...tm.owner.headers, "x-workspace": tm.ws },
		payload: { role },
	});
	if (res.statusCode !== 200) throw new Error(`role change: ${res.statusCode} ${res.body}`);
}

const attestation = () => ({ type: "https://registry.example/member", claims: { member: true } });

/** The vault, shares, requests and templates: every role reads them, all but a viewer change them. */
const held = [
	{ collection: "records", body: () => ({ key: "k", value: "v" }), patch: { value: "w" } },
	{ collection: "sections", body: () => ({ key: `s${rand()}`, name: "S" }), patch: { name: "T" } },
	{ collection: "templates", body: () => ({ name: "T", items }), patch: { name: "U" } },
	{ collection: "links", body: () => ({ label: "L" }), patch: { label: "M" } },
	{ collection: "requests", body: () => ({ label: "R", items }), patch: { label: "Q" } },
];

const rows: Row[] = [
	...[
		"records",
		"sections",
		"templates",
		"links",
		"linkReads",
		"requests",
		"identities",
		"notifications",
		"apiKeys",
		"connections",
		"attestations",
	].map(
		(name): Row => ({
			name: `list ${name}`,
			method: "GET",
			url: () => `${C}/${name}/records`,
			expect: everyone,
		}),
	),

	...held.flatMap(({ collection, body, patch }): Row[] => [
		{
			name: `create ${collection}`,
			method: "POST",
			url: () => `${C}/${collection}/records`,
			body,
			expect: writers,
		},
		...actions(`another's ${collection}`, made(collection, peer, body), patch, {
			view: everyone,
			update: writers,
			delete: writers,
		}),
	]),

	// Identities: every role but a viewer holds identity:write (certifying changes the workspace);
	// revoke and delete are the creator's or an owner's/admin's. A viewer's own identity is one it
	// made while it was a member: as a viewer it changes nothing, that identity included.
	{
		name: "create an identity",
		method: "POST",
		url: () => `${C}/identities/records`,
		body: identity,
		expect: writers,
	},
	...actions(
		"your identity",
		yourIdentity,
		{ status: "revoked" },
		{
			view: everyone,
			update: writers,
			delete: writers,
		},
	),
	...actions(
		"another's identity",
		made("identities", peer, identity),
		{ status: "revoked" },
		{
			view: everyone,
			update: managers,
			delete: managers,
		},
	),

	// API keys: your own for everyone; another's for holders of members:write, else 404.
	{
		name: "create an API key",
		method: "POST",
		url: () => `${C}/apiKeys/records`,
		body: () => ({ name: "k", permissions: ["links:read"] }),
		expect: everyone,
	},
	...actions(
		"your API key",
		made("apiKeys", actor, () => ({ name: "mine", permissions: ["links:read"] })),
		{ name: "renamed" },
		{ view: everyone, update: everyone, delete: everyone },
	),
	...actions(
		"another's API key",
		made("apiKeys", peer, () => ({ name: "theirs", permissions: ["links:read"] })),
		{ name: "renamed" },
		{
			view: (r) => (manages(r) ? ok : notFound),
			update: (r) => (manages(r) ? ok : notFound),
			delete: (r) => (manages(r) ? ok : notFound),
		},
	),

	// Notifications: the caller's own only; they are raised by the server, never created.
	{
		name: "create a notification",
		method: "POST",
		url: () => `${C}/notifications/records`,
		body: () => ({ title: "x" }),
		expect: () => notOffered,
	},
	...actions(
		"your notification",
		notification(actor),
		{ read: true },
		{
			view: everyone,
			update: everyone,
			delete: everyone,
		},
	),
	...actions(
		"another's notification",
		notification(peer),
		{ read: true },
		{
			view: () => notFound,
			update: () => notFound,
			delete: () => notFound,
		},
	),

	// Connections: read with link:read, revoked (DELETE) with link:write; made by authorizing only.
	{
		name: "create a connection",
		method: "POST",
		url: () => `${C}/connections/records`,
		body: () => ({ clientId: "https://tool.example" }),
		expect: () => notOffered,
	},
	...actions(
		"a connection",
		connection,
		{ allowRevoke: true },
		{
			view: everyone,
			update: () => notOffered,
			delete: writers,
		},
	),

	// Attestations: read by every role; issuing, revoking and deleting need attestations:issue.
	{
		name: "issue an attestation",
		method: "POST",
		url: () => `${C}/attestations/records`,
		body: (tm) => ({ workspace: tm.ws, ...attestation() }),
		expect: managers,
	},
	...actions(
		"an attestation",
		async (tm) => ({
			collection: "attestations",
			id: await make(t.app, tm, tm.owner, "attestations", { workspace: tm.ws, ...attestation() }),
			viewer: tm.owner,
		}),
		{ status: "revoked" },
		{ view: everyone, update: managers, delete: managers },
	),
];

roleTable(() => t.app, rows);
