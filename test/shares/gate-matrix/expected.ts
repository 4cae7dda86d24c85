// The gate-by-reader matrix (issue 34, docs/testing.md "The gate-by-reader matrix"): for every gate
// of a share (SHARE_GATES) and every way a share is read (SHARE_READERS), what the reader must
// answer while that gate applies, from the spec and docs/api.md ("Resolve", "Files and archives",
// "Share page and formats", "Addressbook", "Grants between servers", "Entries as grants"). One
// table; completeness.test.ts checks it covers every pair, and each reader's cells run in the file
// READER_FILES names, which compares what the reader answered, put in the same words, with this.
import {
	SHARE_GATES,
	SHARE_READERS,
	type ShareGate,
	type ShareReader,
} from "../../../src/features/shares/gates.ts";

export { SHARE_GATES, SHARE_READERS, type ShareGate, type ShareReader };

/**
 * What a reader answered, in the matrix's words (each file's `observe` puts an answer so):
 * - `served`: 200 with the shared values (a file or archive: the original bytes); for the probe,
 *   the share reported active and open, without data;
 * - `served stamped`: served, with the watermark (the stamp line, stamped file bytes, the note);
 * - `served marked hidden`: served, the hidden entries marked so (`hidden: true`, a `<details>`);
 * - `<status> <code>`: a problem+json refusal, say `404 link_paused`;
 * - `status <s>, no values`: a grant read answering the status and nothing else; `not_found`;
 * - the probe: `status <s>`, `requiresPassword`, `requireHandshake`, `watermarked`;
 * - the page for a browser: `404 page: <status>`, `200 password form`, `403 password form, wrong
 *   password` (the form again, its error in a `role="alert"` paragraph), `403 open in the app`;
 * - `not listed`: the reader answers but leaves the entry out;
 * - the owner's preview of a share that is not active: `preview: <status>` (the page readers meet).
 * `not applicable: <why>` marks a gate that does not concern the reader: that cell asserts the
 * reader serves the share as if the gate were not there (`served`).
 */
export type Answer = string;

export const NOT_APPLICABLE = "not applicable: ";

const notApplicable = (why: string): Answer => `${NOT_APPLICABLE}${why}`;

/** What a not-applicable cell must observe instead: the reader serves as without the gate. */
export function mustObserve(expected: Answer): Answer {
	return expected.startsWith(NOT_APPLICABLE) ? "served" : expected;
}

const status = (s: string) => ({
	probe: `status ${s}`,
	resolve: `404 link_${s}`,
	page: `404 page: ${s}`,
	csv: `404 link_${s}`,
	vcard: `404 link_${s}`,
	ical: `404 link_${s}`,
	carddav: `404 link_${s}`,
	fileToken: `404 link_${s}`,
	archive: `404 link_${s}`,
	// Followed from the opened page by a browser: the refusal is a page.
	formatToken: `404 page: ${s}`,
	grantRead: `status ${s}, no values`,
	oidcClaims: `status ${s}, no values`,
	remoteAnswer: `status ${s}, no values`,
	ownerPreview: `preview: ${s}`,
});

/** userinfo leaves out a sign-in's grant that no longer stands. */
const NOT_LISTED = "no svc_links";

const TOKEN_AFTER_GATE = notApplicable(
	"the token is minted by a resolve that passed this gate and carries its view (docs/api.md 'Files and archives')",
);
const PAGE_TOKEN_AFTER_GATE = notApplicable(
	"the token is minted by the page's read that passed this gate and carries its view (docs/api.md 'Share page and formats')",
);
const GRANT_TOKEN = notApplicable(
	"a grant is read with its own grant token, and only its status applies (docs/api.md 'Bulk read')",
);
const OWNER_SET_IT = notApplicable(
	"the owner's preview shows what the gate opens: the owner set it (docs/api.md 'The owner's preview')",
);
const FILES_ONLY = notApplicable("a stamp marks files, and this form carries no file bytes");
const TOOLS_ONLY = notApplicable(
	"hand-over decides only what a tool is given (GET /api/connection 'url'); a reader of the share is served",
);

/** `expected[gate][reader]`: what the reader answers while the gate applies. */
export const expected: Record<ShareGate, Partial<Record<ShareReader, Answer>>> = {
	paused: status("paused"),
	// A sign-in link that no longer stands (revoked, expired, cap reached) is not listed at
	// userinfo any more (docs/api.md, OpenID Connect: userinfo lists a grant only while it stands): the service finds no grant to read.
	revoked: { ...status("revoked"), oidcClaims: NOT_LISTED },
	expired: { ...status("expired"), oidcClaims: NOT_LISTED },
	// A share whose views reached the cap is expired; the tokens of the view that reached it are
	// still honoured (docs/api.md "Files and archives").
	capReached: {
		...status("expired"),
		fileToken: "served",
		archive: "served",
		formatToken: "served",
		oidcClaims: NOT_LISTED,
	},
	password: {
		probe: "requiresPassword",
		resolve: "401 link_password_required",
		page: "200 password form",
		csv: "401 link_password_required",
		vcard: "401 link_password_required",
		ical: "401 link_password_required",
		// A gated share never appears in the addressbook (spec "Shares", archive rules).
		carddav: "404 link_not_found",
		fileToken: TOKEN_AFTER_GATE,
		archive: TOKEN_AFTER_GATE,
		formatToken: PAGE_TOKEN_AFTER_GATE,
		grantRead: GRANT_TOKEN,
		oidcClaims: GRANT_TOKEN,
		remoteAnswer: GRANT_TOKEN,
		ownerPreview: OWNER_SET_IT,
	},
	handshake: {
		probe: "requireHandshake",
		resolve: "401 challenge_required",
		page: "403 open in the app",
		csv: "401 challenge_required",
		vcard: "401 challenge_required",
		ical: "401 challenge_required",
		carddav: "404 link_not_found",
		fileToken: TOKEN_AFTER_GATE,
		archive: TOKEN_AFTER_GATE,
		// A browser is never shown the page of such a share, so no page read mints a format token.
		formatToken: "403 open in the app",
		grantRead: GRANT_TOKEN,
		oidcClaims: GRANT_TOKEN,
		remoteAnswer: GRANT_TOKEN,
		ownerPreview: OWNER_SET_IT,
	},
	watermark: {
		probe: "watermarked",
		resolve: "served stamped",
		page: "served stamped",
		csv: FILES_ONLY,
		vcard: FILES_ONLY,
		ical: FILES_ONLY,
		carddav: FILES_ONLY,
		fileToken: "served stamped",
		archive: "served stamped",
		formatToken: FILES_ONLY,
		grantRead: notApplicable(
			"a grant serves a file's name and digest, never its bytes (docs/api.md 'Bulk read')",
		),
		oidcClaims: notApplicable("a sign-in grant serves values by key, never file bytes"),
		remoteAnswer: notApplicable("a remote answer keeps values only; files are never copied"),
		// The page says files are stamped; the preview offers no file to download.
		ownerPreview: "served stamped",
	},
	// Hidden records are served like any other, marked for the reader's app to mask; what hidden
	// changes is that such a share is never handed to a tool (docs/api.md "Resolve").
	hidden: {
		probe: notApplicable("the probe carries no values"),
		resolve: "served marked hidden",
		page: "served marked hidden",
		csv: "served",
		vcard: "served",
		ical: "served",
		carddav: "served",
		fileToken: "served",
		archive: "served",
		formatToken: "served",
		grantRead: "served",
		oidcClaims: "served",
		remoteAnswer: "served",
		ownerPreview: "served marked hidden",
	},
	handOver: Object.fromEntries(SHARE_READERS.map((r) => [r, TOOLS_ONLY])),
};

/**
 * `wrongPassword[reader]`: what the reader answers when its client presents a wrong password to the
 * share of gate `password` (docs/api.md "Resolve" gate 2, "Gates and what each form answers",
 * "Addressbook"). Each `password` cell reads as the client does without the password (`expected`),
 * then, where the reader has a place for one, with a wrong one: a check that refuses only a missing
 * password, or never waits for its verdict, passes the first read and fails the second.
 * `not applicable: <why>`: the reader has no place for a password, and its cell reads once.
 */
export const wrongPassword: Partial<Record<ShareReader, Answer>> = {
	probe: notApplicable("the probe takes no password: it says that one is needed"),
	resolve: "401 link_password_invalid",
	// The form is posted with the wrong password.
	page: "403 password form, wrong password",
	// As HTTP Basic, as a script or a calendar program sends it (a calendar with the ETag it kept).
	csv: "401 link_password_invalid",
	vcard: "401 link_password_invalid",
	ical: "401 link_password_invalid",
	// A contacts app sending Basic still finds no book: a gated share never appears there.
	carddav: "404 link_not_found",
	fileToken: TOKEN_AFTER_GATE,
	archive: TOKEN_AFTER_GATE,
	formatToken: PAGE_TOKEN_AFTER_GATE,
	grantRead: GRANT_TOKEN,
	oidcClaims: GRANT_TOKEN,
	remoteAnswer: GRANT_TOKEN,
	ownerPreview: OWNER_SET_IT,
};

/** Which file runs each reader's cells (one app per file; the runner runs two files at once). */
export const READER_FILES: Partial<Record<ShareReader, string>> = {
	probe: "slug-readers.test.ts",
	resolve: "slug-readers.test.ts",
	page: "slug-readers.test.ts",
	csv: "slug-readers.test.ts",
	vcard: "slug-readers.test.ts",
	ical: "slug-readers.test.ts",
	carddav: "slug-readers.test.ts",
	fileToken: "slug-readers.test.ts",
	archive: "slug-readers.test.ts",
	formatToken: "slug-readers.test.ts",
	grantRead: "slug-readers.test.ts",
	oidcClaims: "oidc-claims.test.ts",
	remoteAnswer: "remote-answers.test.ts",
	ownerPreview: "slug-readers.test.ts",
};

/** The pairs of SHARE_GATES × SHARE_READERS the table has no answer for. */
export function missingPairs(): { gate: ShareGate; reader: ShareReader }[] {
	return SHARE_GATES.flatMap((gate) =>
		SHARE_READERS.filter((reader) => expected[gate]?.[reader] === undefined).map((reader) => ({
			gate,
			reader,
		})),
	);
}

/** The readers the wrong-password row has no answer for. */
export function missingWrongPassword(): ShareReader[] {
	return SHARE_READERS.filter((reader) => wrongPassword[reader] === undefined);
}

/**
 * What a `password` cell must observe when the reader presents a wrong password; null when that
 * does not concern the reader (it has no place for one). A reader without an entry fails its cell.
 */
export function wrongPasswordFor(reader: ShareReader): Answer | null {
	const answer = wrongPassword[reader];
	if (answer === undefined)
		throw new Error(`no answer for a wrong password for ${reader} in expected.ts (wrongPassword)`);
	return answer.startsWith(NOT_APPLICABLE) ? null : answer;
}

/** The readers of `file`, in SHARE_READERS order. */
export function readersOf(file: string): ShareReader[] {
	return SHARE_READERS.filter((r) => READER_FILES[r] === file);
}

/** The test name of a cell: `paused × csv`. */
export const cellName = (gate: ShareGate, reader: ShareReader) => `${gate} × ${reader}`;

/** The answer a cell must observe; a pair without an entry fails its cell, naming it. */
export function answerFor(gate: ShareGate, reader: ShareReader): Answer {
	const answer = expected[gate]?.[reader];
	if (answer === undefined)
		throw new Error(`no expected answer for ${cellName(gate, reader)} in expected.ts`);
	return mustObserve(answer);
}
