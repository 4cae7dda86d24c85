// The gates of a share, as ordered named checks (spec "Link (share) status", resolve rules), and
// the one table of which reader runs which. The checks, in this order, with these codes:
//   1. status     gates/checks.ts checkStatus (or its token and peek forms): only an active share
//                 is read; "open" itself (cap, expiry) is gates/open.ts, in JavaScript and in SQL
//   2. password   checkPassword: link_password_required, then link_password_invalid
//   3. handshake  checkHandshake: a challenge of this slug signed by the identity
//   4. view       takeView: one view taken atomically, logged with its kind
// Requests reuse the password and handshake gates for their answers (answers/service.ts).
// The resolve of an ungated share takes its view in one statement (public-queries/open-resolve.ts)
// whose conditions are gates/open.ts's; anything it does not take comes here.
import { safeEqual, sha256Hex } from "../../lib/crypto.ts";
import type { ProvenIdentity } from "../challenges/service.ts";
import type { SharesContext } from "./context.ts";
import {
	checkHandshake,
	checkPassword,
	type GateInput,
	passStatus,
	refuseGated,
	refuseUnprovable,
	type StatusPolicy,
	takeView,
	type ViewKind,
} from "./gates/checks.ts";
import { effectiveStatus, type LinkStatus } from "./gates/open.ts";
import type { PublicLinkRow } from "./public-queries.ts";

export { checkHandshake, checkPassword, type GateInput, type ViewKind } from "./gates/checks.ts";
export { isUngated } from "./gates/open.ts";

/**
 * Every gate a reader of a share may have to honour, as the gate-by-reader test names them
 * (test/shares/gate-matrix/): adding one here makes that test name each reader that does
 * not yet answer for it.
 */
export const SHARE_GATES = [
	"paused",
	"revoked",
	"expired",
	"capReached",
	"password",
	"handshake",
	"watermark",
	"hidden",
	"handOver",
] as const;
export type ShareGate = (typeof SHARE_GATES)[number];

/** Every way a share is read from outside, as the gate-by-reader test names them. */
export const SHARE_READERS = [
	"probe",
	"resolve",
	"page",
	"csv",
	"vcard",
	"ical",
	"carddav",
	"fileToken",
	"archive",
	"formatToken",
	"grantRead",
	"oidcClaims",
	"remoteAnswer",
	"ownerPreview",
] as const;
export type ShareReader = (typeof SHARE_READERS)[number];

/** Which checks one reader runs (READER_GATES). */
export interface ReaderGates {
	/** The status gate: `refuse`, `report`, `token` or `peek` (gates/checks.ts `passStatus`). */
	status: StatusPolicy;
	/**
	 * The password and handshake gates: `ask` (password, then proven identity, in that order);
	 * `appOnly` (asked by a browser, which cannot prove an identity: a share needing one is refused
	 * with challenge_required before its password is asked; other clients as `ask`); `ungatedOnly`
	 * (a share behind either answers link_not_found, with `detail`); `none` (not this reader's: it
	 * presents a token minted by a read that passed them, or reports them).
	 */
	secrets: "ask" | "appOnly" | "ungatedOnly" | "none";
	/** The read-log kind of the one view it takes when its answer carries values; null: it takes none. */
	view: ViewKind | null;
	detail?: string;
}

/** Which reader runs which checks, in one place; each reader's code asks this table. */
export const READER_GATES: Record<ShareReader, ReaderGates> = {
	// GET /api/public/links/{slug}: reports the status and the gates (requiresPassword,
	// requireHandshake), never values, never a view.
	probe: { status: "report", secrets: "none", view: null },
	// POST /api/public/links/{slug}; an ungated share at once (gates/open.ts in its SQL).
	resolve: { status: "refuse", secrets: "ask", view: "api" },
	// /s/{slug} as the HTML page; HEAD and a 304 pass the gates without the view.
	page: { status: "refuse", secrets: "appOnly", view: "page" },
	csv: { status: "refuse", secrets: "ask", view: "page" },
	vcard: { status: "refuse", secrets: "ask", view: "page" },
	ical: { status: "refuse", secrets: "ask", view: "page" },
	// /dav/s/{slug}/: GET of the card and REPORT take the view; PROPFIND, OPTIONS, HEAD, 304 none.
	carddav: {
		status: "refuse",
		secrets: "ungatedOnly",
		view: "addressbook",
		detail: "A share with a password or a handshake has no address book",
	},
	// downloadToken and archiveToken: the view is the resolve's that minted them (read kinds file,
	// archive). The owner's archive (/api/links/{id}/archive) is no reader of the share: the owner
	// reads their own, in any status, and claims no view.
	fileToken: { status: "token", secrets: "none", view: null },
	archive: { status: "token", secrets: "none", view: null },
	// /s/{slug}?format=csv|vcf|ics&dl=: a data format downloaded from the opened share page with
	// the one-time token the page's read minted (read kinds csv, vcard, ical); the view is the page's.
	formatToken: { status: "token", secrets: "none", view: null },
	// POST /api/grants/resolve: the grant's token is its credential; values while active.
	grantRead: { status: "peek", secrets: "none", view: null },
	// A sign-in link's claims are read as grants are (oidc reads them through the grant read).
	oidcClaims: { status: "peek", secrets: "none", view: null },
	// GET /api/requests/{id}/links: the requester reads the answers it collected; values while active.
	remoteAnswer: { status: "peek", secrets: "none", view: null },
	// GET /api/links/{id}/preview: the owner, signed in, sees the page as a reader who passed the
	// password and identity gates would; the status as it stands, no view, nothing logged.
	ownerPreview: { status: "peek", secrets: "none", view: null },
};

/** A reader who passed the gates: the status it sees and who it proved to be (handshake shares). */
export interface Passed {
	status: LinkStatus;
	reader: ProvenIdentity | undefined;
}

/** Who asks, where a reader's gates depend on it: a browser cannot prove an identity. */
export interface Client {
	browser?: boolean;
	/** The client's address: password attempts are counted per share and client (docs/api.md "Rate limits"). */
	ip?: string;
}

/**
 * `reader`'s gates before the view, in order (READER_GATES). Alone, for answers that carry no
 * value (a 304, a HEAD, a PROPFIND) yet must be refused exactly as a read would be.
 */
export async function passGates(
	ctx: SharesContext,
	reader: ShareReader,
	link: PublicLinkRow,
	input: GateInput,
	now: number,
	client: Client = {},
): Promise<Passed> {
	const gates = READER_GATES[reader];
	const status = await passStatus(ctx, gates.status, link, now);
	const secrets = gates.secrets === "appOnly" && !client.browser ? "ask" : gates.secrets;
	if (secrets === "ungatedOnly") refuseGated(link, gates.detail ?? "");
	if (secrets === "appOnly") refuseUnprovable(link);
	if (secrets === "ask" || secrets === "appOnly") {
		// Every route that checks a share's password counts on one counter for the share and client.
		if (link.password_hash !== null && typeof input.password === "string" && input.password !== "") {
			await ctx.passwordAttempts?.(link.id, client.ip ?? "");
		}
		await checkPassword(link.password_hash, input.password);
		const required = link.require_handshake === 1;
		const proven = await checkHandshake(ctx, { required, scope: "link", slug: link.slug }, input, now);
		return { status, reader: proven };
	}
	return { status, reader: undefined };
}

/** A reader who passed every gate: who they proved to be (handshake shares) and the view they took. */
export interface Admitted {
	reader: ProvenIdentity | undefined;
	view: number;
}

/** Runs `reader`'s gates in order for one read that takes its view (READER_GATES[reader].view). */
export async function admit(
	ctx: SharesContext,
	reader: ShareReader,
	link: PublicLinkRow,
	input: GateInput,
	now: number,
	client: Client = {},
): Promise<Admitted> {
	const kind = READER_GATES[reader].view;
	if (kind === null) throw new Error(`admit: the ${reader} reader takes no view`);
	const passed = await passGates(ctx, reader, link, input, now, client);
	const view = await takeView(ctx, link, now, { kind, reader: passed.reader?.fingerprint ?? null });
	return { reader: passed.reader, view };
}

/**
 * The status gate of a reader that reports the status and reads values only while it is active
 * (`peek`: the grant read, the answers a request collected, the owner's preview), for a row read
 * without its gates.
 */
export function peekStatus(
	reader: ShareReader,
	link: Parameters<typeof effectiveStatus>[0],
	now: number,
): { status: LinkStatus; values: boolean } {
	if (READER_GATES[reader].status !== "peek") throw new Error(`peekStatus: ${reader} does not peek`);
	const status = effectiveStatus(link, now);
	return { status, values: status === "active" };
}

/** Compared with a token when no grant matched: the same work as a real compare. */
const NO_GRANT = sha256Hex("no grant has this token");

/**
 * The token gate of a grant handed to its holder (the bulk grant read, a grant's file, userinfo):
 * the row found by id must hold this very token (hashed and compared the same way when no row was
 * found), and a sign-in link the person revoked is withdrawn for good, as if never handed out.
 * Answers the grant read's status gate (`peekStatus`), or undefined for "no such grant".
 */
export function passGrantToken(
	row:
		| (Parameters<typeof effectiveStatus>[0] & { token_hash: string; sign_in_client: string | null })
		| undefined,
	token: string,
	now: number,
): { status: LinkStatus; values: boolean } | undefined {
	const matches = safeEqual(sha256Hex(token), row?.token_hash ?? NO_GRANT);
	if (!row || !matches) return undefined;
	const peeked = peekStatus("grantRead", row, now);
	if (row.sign_in_client !== null && peeked.status === "revoked") return undefined;
	return peeked;
}
