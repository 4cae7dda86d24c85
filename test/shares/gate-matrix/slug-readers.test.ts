// The gate-by-reader matrix for the readers of one server (expected.ts): the probe, the resolve,
// the share page, CSV, vCard, iCalendar, the addressbook, the one-time file and archive tokens, the
// opened page's CSV token, the bulk grant read and the owner's preview of the page. One app; per gate
// one share in that gate's state, with an email, a date and a PDF, its file tokens minted by a
// resolve and its CSV token by the page (as a browser opens it) before the gate applied, and a grant
// token as another server would hold it. Then each cell reads its gate's share as the reader's client
// does.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createIdentity } from "../../../src/features/identity/service.ts";
import { ManualClock } from "../../../src/lib/clock.ts";
import { randomToken, sha256Hex } from "../../../src/lib/crypto.ts";
import { connect } from "../../connections/helpers.ts";
import { BROWSER_ACCEPT, csv, dav, icalendar, vcard } from "../../formats/helpers.ts";
import { makeApp, type TestApp } from "../../helpers/app.ts";
import { deviceKey } from "../../helpers/device-key.ts";
import { buildAccount, type TestAccount } from "../../helpers/factories.ts";
import { makePdf } from "../../stamping/fixtures.ts";
import {
	createLink,
	createSection,
	createValue,
	nextIp,
	patchLink,
	probeLink,
	publicGet,
	RECORDS,
	resolveLink,
	uploadFile,
} from "../helpers.ts";
import {
	answerFor,
	cellName,
	readersOf,
	SHARE_GATES,
	type ShareGate,
	type ShareReader,
	wrongPasswordFor,
} from "./expected.ts";
import {
	EMAIL,
	fileAnswer,
	grantAnswer,
	MOVE_IN,
	pageAnswer,
	previewAnswer,
	probeAnswer,
	refusal,
	resolveAnswer,
	STAMP,
} from "./observe.ts";

const T0 = Date.UTC(2026, 10, 26, 12);
/** The password of the `password` gate's share, and the wrong one its cells present as well. */
const PASSWORD = "open sesame";
const WRONG_PASSWORD = "open sesame!";
/** The expired fixture's expiry; the clock passes it once every fixture is made. */
const EXPIRES = T0 + 60_000;

/** One gate's share, as its readers reach it. */
interface Fixture {
	slug: string;
	fileId: string;
	downloadToken: string;
	archiveToken: string;
	grant: { id: string; token: string };
	/** The calendar's ETag from its subscription's first read, before the gate applied. */
	calendarTag: string | undefined;
	/** The opened page's CSV link (a one-time token of its view), or what the page answered instead. */
	csvLink: { href: string } | { refused: string };
	/** The share's owner, for the owner's preview. */
	owner: TestAccount;
}

const clock = new ManualClock(T0);
let t: TestApp;
let pdf: Buffer;
const fixtures = new Map<ShareGate, Fixture>();

/** What a gate's share is made with, and how the resolve that mints its file tokens reads it. */
interface Making {
	link?: Record<string, unknown>;
	hidden?: boolean;
	/** Made before the share (hand-over: a connection); its records then go in through a section. */
	viaSection?: (who: TestAccount) => Promise<Record<string, unknown>>;
	resolveBody?: (slug: string, who: TestAccount) => Promise<Record<string, unknown>>;
	/** Applied once the file tokens are minted. */
	after?: (id: string, who: TestAccount) => Promise<void>;
	/**
	 * Each reader meets the share as the first read after its expiry does: stored `active` (the
	 * reader before it wrote `expired`), so the conditions each reader's own SQL holds are tested,
	 * not only the status an earlier read wrote.
	 */
	unseen?: boolean;
}

const status = (s: string) => async (id: string, who: TestAccount) => {
	const res = await patchLink(t.app, who, id, { status: s });
	assert.equal(res.statusCode, 200, res.body);
};

/** A signed challenge of an identity of `who`, as the app sends it with a resolve. */
async function handshake(slug: string, who: TestAccount) {
	const device = await deviceKey();
	const identity = await createIdentity(
		t.app.store.db,
		t.app.rootKey,
		t.app.config,
		{ accountId: who.accountId, workspaceId: who.workspaceId, name: "Reader", publicKey: device.publicJwk },
		clock.now(),
	);
	const nonce = (await publicGet(t.app, `/api/challenges/link/${slug}`)).json().nonce as string;
	return { identityId: identity.id, challengeNonce: nonce, challengeSignature: await device.sign(nonce) };
}

const MAKING: Partial<Record<ShareGate, Making>> = {
	paused: { after: status("paused") },
	revoked: { after: status("revoked") },
	expired: { link: { expiresAt: new Date(EXPIRES).toISOString() }, unseen: true },
	// The calendar's first read, the page's and the resolve that mints the tokens take all three views.
	capReached: { link: { maxViews: 3 } },
	password: { link: { password: PASSWORD }, resolveBody: async () => ({ password: PASSWORD }) },
	handshake: { link: { requireHandshake: true }, resolveBody: handshake },
	watermark: { link: { stamp: STAMP } },
	hidden: { hidden: true },
	// Handed over while its section held values only; the file landed in the section afterwards.
	handOver: {
		viaSection: async (who) => {
			const { connectionId } = await connect(t.app, who, { allowHandOver: true });
			return { connection: connectionId, handedOver: true };
		},
	},
};

async function makeFixture(gate: ShareGate, m: Making): Promise<Fixture> {
	const who = await buildAccount(t.app, { name: "Ann" });
	const section = m.viaSection ? await createSection(t.app, who, "papers") : undefined;
	const inSection = section ? { section: section.id } : {};
	const hidden = m.hidden ? { hidden: true } : {};
	const email = await createValue(t.app, who, {
		key: "email",
		name: "Email",
		value: EMAIL,
		...inSection,
		...hidden,
	});
	const date = await createValue(t.app, who, {
		key: "move_in",
		name: "Move-in",
		value: MOVE_IN,
		...inSection,
		...hidden,
	});
	const made = async (extra: Record<string, unknown>) =>
		createLink(t.app, who, { label: `Gate ${gate}`, ...m.link, ...extra });
	let link: Awaited<ReturnType<typeof made>>;
	let fileId: string;
	if (section && m.viaSection) {
		link = await made({ sections: [section.id], ...(await m.viaSection(who)) });
		fileId = (
			await uploadFile(t.app, who, { key: "lease", section: section.id }, { bytes: pdf, name: "lease.pdf" })
		).id;
	} else {
		fileId = (await uploadFile(t.app, who, { key: "lease" }, { bytes: pdf, name: "lease.pdf" })).id;
		link = await made({ records: [email.id, date.id, fileId] });
	}
	if (m.hidden) {
		const res = await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${fileId}`,
			headers: who.headers,
			payload: { hidden: true },
		});
		assert.equal(res.statusCode, 200, res.body);
	}
	// A calendar program subscribes (with the password, as HTTP Basic, where there is one) and keeps
	// the ETag to ask again with; a share needing a proven identity cannot be subscribed to.
	let calendarTag: string | undefined;
	if (m.link?.requireHandshake !== true) {
		const password = typeof m.link?.password === "string" ? m.link.password : undefined;
		const basic = password
			? { authorization: `Basic ${Buffer.from(`:${password}`).toString("base64")}` }
			: {};
		const first = await t.app.inject({
			method: "GET",
			url: `/s/${link.slug}`,
			headers: { accept: "text/calendar", ...basic },
			remoteAddress: nextIp(),
		});
		assert.equal(first.statusCode, 200, first.body);
		calendarTag = String(first.headers.etag);
	}
	const csvLink = await openPage(
		link.slug,
		typeof m.link?.password === "string" ? m.link.password : undefined,
	);
	const resolved = await resolveLink(
		t.app,
		link.slug,
		m.resolveBody ? await m.resolveBody(link.slug, who) : undefined,
	);
	assert.equal(resolved.statusCode, 200, resolved.body);
	const body = resolved.json() as { records: { id: string; downloadToken?: string }[]; archiveToken: string };
	const downloadToken = body.records.find((r) => r.id === fileId)?.downloadToken;
	assert.ok(downloadToken, "the resolve minted a download token");
	// A grant token, as a server holding the share as a grant keeps it (test/grants/resolve.test.ts).
	const token = randomToken();
	await t.app.store.db
		.insertInto("grant_tokens")
		.values({
			link: link.id,
			token_hash: sha256Hex(token),
			keys: JSON.stringify({ email: email.id, move_in: date.id }),
			peer: null,
			request_slug: null,
			created: clock.now(),
			updated: clock.now(),
		})
		.execute();
	await m.after?.(link.id, who);
	return {
		slug: link.slug,
		fileId,
		downloadToken,
		archiveToken: body.archiveToken,
		grant: { id: link.id, token },
		calendarTag,
		csvLink,
		owner: who,
	};
}

/** A browser opens the share page (its form, with the password where there is one) and finds its CSV link. */
async function openPage(slug: string, password: string | undefined): Promise<Fixture["csvLink"]> {
	const res = await t.app.inject({
		method: password ? "POST" : "GET",
		url: `/s/${slug}`,
		headers: {
			accept: BROWSER_ACCEPT,
			...(password ? { "content-type": "application/x-www-form-urlencoded" } : {}),
		},
		...(password ? { payload: new URLSearchParams({ password }).toString() } : {}),
		remoteAddress: nextIp(),
	});
	const href = /href="(\/s\/[^"]+\?format=csv&amp;dl=[^"]+)"/.exec(res.body)?.[1];
	return href ? { href: href.replaceAll("&amp;", "&") } : { refused: pageAnswer(res) };
}

/** Writes the zip, lets the real `unzip` check it, and answers its `lease.pdf`. */
function leaseOf(zip: Buffer): Buffer | undefined {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-matrix-"));
	try {
		fs.writeFileSync(path.join(dir, "a.zip"), zip);
		execFileSync("unzip", ["-q", path.join(dir, "a.zip"), "-d", path.join(dir, "out")]);
		const file = path.join(dir, "out", "lease.pdf");
		return fs.existsSync(file) ? fs.readFileSync(file) : undefined;
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

/** A password as the formats take it: HTTP Basic, any user name (none). */
const basic = (password: string | undefined): Record<string, string> =>
	password === undefined ? {} : { authorization: `Basic ${Buffer.from(`:${password}`).toString("base64")}` };

const asFormat = (f: Fixture, accept: string, password?: string) =>
	t.app.inject({
		method: "GET",
		url: `/s/${f.slug}`,
		headers: { accept, ...basic(password) },
		remoteAddress: nextIp(),
	});

/**
 * Each reader as its client reads the share, its answer in the matrix's words; `password`, where
 * the reader has a place for one, is presented as its client presents it (the `password` cells
 * present a wrong one, expected.ts `wrongPassword`).
 */
const OBSERVE: Partial<Record<ShareReader, (f: Fixture, password?: string) => Promise<string>>> = {
	probe: async (f) => probeAnswer(await probeLink(t.app, f.slug)),
	resolve: async (f, password) =>
		resolveAnswer(await resolveLink(t.app, f.slug, password === undefined ? undefined : { password })),
	// A browser opens the page; with a password, it posts the page's form.
	page: async (f, password) => {
		if (password === undefined) return pageAnswer(await asFormat(f, BROWSER_ACCEPT));
		return pageAnswer(
			await t.app.inject({
				method: "POST",
				url: `/s/${f.slug}`,
				headers: { accept: BROWSER_ACCEPT, "content-type": "application/x-www-form-urlencoded" },
				payload: new URLSearchParams({ password }).toString(),
				remoteAddress: nextIp(),
			}),
		);
	},
	csv: async (f, password) => {
		const res = await asFormat(f, "text/csv", password);
		if (res.statusCode !== 200) return refusal(res);
		return csv(res.body).some((row) => row[1] === "email" && row[3] === EMAIL)
			? "served"
			: "200 without the values";
	},
	vcard: async (f, password) => {
		const res = await asFormat(f, "text/vcard", password);
		if (res.statusCode !== 200) return refusal(res);
		return vcard(res.body).getFirstPropertyValue("email") === EMAIL ? "served" : "200 without the values";
	},
	// As a subscribed calendar asks again: with the ETag it kept. A 304 keeps its copy (served).
	ical: async (f, password) => {
		const res = await t.app.inject({
			method: "GET",
			url: `/s/${f.slug}`,
			headers: {
				accept: "text/calendar",
				...(f.calendarTag ? { "if-none-match": f.calendarTag } : {}),
				...basic(password),
			},
			remoteAddress: nextIp(),
		});
		if (res.statusCode === 304) return "served";
		if (res.statusCode !== 200) return refusal(res);
		const events = icalendar(res.body).getAllSubcomponents("vevent");
		const dated = events.some((e) => String(e.getFirstPropertyValue("dtstart")) === MOVE_IN);
		return dated ? "served" : "200 without the values";
	},
	// As a contacts app opens the book: PROPFIND the collection, then GET the card.
	carddav: async (f, password) => {
		const headers = basic(password);
		const found = await dav(t.app, "PROPFIND", `/dav/s/${f.slug}/`, { headers: { depth: "1", ...headers } });
		if (found.statusCode !== 207) return refusal(found);
		const res = await dav(t.app, "GET", `/dav/s/${f.slug}/contact.vcf`, { headers });
		// The book opened: the card must then be served (a book listed for a refused share is a side door).
		if (res.statusCode !== 200) return `207 PROPFIND, then ${refusal(res)}`;
		return vcard(res.body).getFirstPropertyValue("email") === EMAIL ? "served" : "200 without the values";
	},
	fileToken: async (f) => {
		const res = await publicGet(t.app, `/api/public/links/${f.slug}/files/${f.fileId}?dl=${f.downloadToken}`);
		return res.statusCode === 200 ? fileAnswer(res.rawPayload, pdf) : refusal(res);
	},
	archive: async (f) => {
		const res = await publicGet(t.app, `/api/public/links/${f.slug}/archive?dl=${f.archiveToken}`);
		if (res.statusCode !== 200) return refusal(res);
		const lease = leaseOf(res.rawPayload);
		return lease ? fileAnswer(lease, pdf) : "200 without lease.pdf";
	},
	// As a browser follows the page's CSV link (a refusal is a page).
	formatToken: async (f) => {
		if ("refused" in f.csvLink) return f.csvLink.refused;
		const res = await t.app.inject({
			method: "GET",
			url: f.csvLink.href,
			headers: { accept: BROWSER_ACCEPT },
			remoteAddress: nextIp(),
		});
		if (res.statusCode !== 200) return pageAnswer(res);
		return csv(res.body).some((row) => row[1] === "email" && row[3] === EMAIL)
			? "served"
			: "200 without the values";
	},
	grantRead: async (f) => {
		const res = await t.app.inject({
			method: "POST",
			url: "/api/grants/resolve",
			payload: { grants: [f.grant] },
			remoteAddress: nextIp(),
		});
		if (res.statusCode !== 200) return refusal(res);
		return grantAnswer(res.json().items[0]);
	},
	// As the console asks for it, signed in as the owner; the view count must not move.
	ownerPreview: async (f) => {
		const views = async () =>
			(
				await t.app.store.db
					.selectFrom("links")
					.select("view_count")
					.where("id", "=", f.grant.id)
					.executeTakeFirstOrThrow()
			).view_count;
		const before = await views();
		const res = await t.app.inject({
			method: "GET",
			url: `/api/links/${f.grant.id}/preview?lang=en`,
			headers: f.owner.headers,
		});
		const answer = previewAnswer(res);
		return (await views()) === before ? answer : `${answer}, and a view taken`;
	},
};

describe("gate × reader: the readers of one server", () => {
	before(async () => {
		t = await makeApp({}, { clock });
		pdf = await makePdf([{}]);
		for (const gate of SHARE_GATES) {
			const m = MAKING[gate];
			if (m) fixtures.set(gate, await makeFixture(gate, m));
		}
		clock.advance(EXPIRES - T0 + 1_000);
	});
	after(() => t.close());

	for (const reader of readersOf("slug-readers.test.ts")) {
		for (const gate of SHARE_GATES) {
			test(cellName(gate, reader), async () => {
				const fixture = fixtures.get(gate);
				assert.ok(fixture, `no share in the state of gate ${gate}: add it to MAKING in slug-readers.test.ts`);
				const observe = OBSERVE[reader];
				assert.ok(observe, `no way to read as ${reader}: add it to OBSERVE in slug-readers.test.ts`);
				if (MAKING[gate]?.unseen) {
					await t.app.store.db
						.updateTable("links")
						.set({ status: "active" })
						.where("id", "=", fixture.grant.id)
						.execute();
				}
				assert.equal(await observe(fixture), answerFor(gate, reader));
				if (gate !== "password") return;
				// The password cell again, with a wrong password where the reader has a place for one.
				const wrong = wrongPasswordFor(reader);
				if (wrong !== null)
					assert.equal(await observe(fixture, WRONG_PASSWORD), wrong, "presenting a wrong password");
			});
		}
	}
});
