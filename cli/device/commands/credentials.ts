// Held credentials as the owner's app (spec "App links", "Attestations"). `svc open` accepts an
// attestation offer, `svc://a/<host>/<token>`: it shows the offer, picks one of the workspace's
// identities whose key is on this device, signs the offer server's challenge with it, and has this
// device's server claim and keep the credential (`POST /api/credentials/claim`). And it answers a
// service's `svc://present`: it offers the held credentials that match, discloses the requested
// claims the person leaves ticked, binds the presentation to the service (audience) and its nonce
// with the identity key, and posts `{presentation, state}` to the service's `response_uri`.
// Declined, nothing is sent. Off a terminal without --yes (the desktop's link handler), the
// console's screen for the link is opened in the browser instead.

import type { OfferLink, PresentRequest } from "../../../src/lib/app-links.ts";
import { buildPresentation } from "../../../src/lib/sd-jwt-present.ts";
import { Api } from "../api.ts";
import { openBrowser } from "../browser.ts";
import type { Context } from "../command.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { findIdentity, type StoredIdentity, signChallenge, storedIdentities } from "../keystore.ts";
import { note, printJson, printLine } from "../output.ts";
import { chosenServer } from "../sessions.ts";
import { ask } from "./tools.ts";

export const CREDENTIAL_OPTIONS = {
	identity: { type: "string" },
	credential: { type: "string" },
	withhold: { type: "string" },
} as const;

export const CREDENTIAL_HELP = `  --identity <ref>    svc://a: the identity to accept the offer with (id, fingerprint or
                      name; needed when several identities' keys are on this device)
  --credential <id>   svc://present: the held credential to present (needed when several match)
  --withhold <names>  svc://present: claims to leave out although the service asks for them
                      (comma-separated)`;

/** `GET /api/attestations/offers/{token}` (docs/api.md "The offer"). */
interface OfferView {
	type: string;
	label: string | null;
	status: "offered" | "active";
	claims?: Record<string, unknown>;
	expiresAt: string | null;
	offerExpiresAt: string;
	subjectFingerprint: string | null;
	server: { domain: string; fingerprint: string; origin: string };
	workspace: { id: string; name: string };
}

/** A record of the `credentials` collection. */
interface HeldCredential {
	id: string;
	issuer: string;
	type: string;
	identity: string;
	credential: string;
	claims: Record<string, unknown>;
	issuedAt: string;
	expiresAt: string | null;
}

/**
 * Where the device reaches another server named only by its domain: `https://<host>`; a loopback
 * host over http; and, for development and tests, SVC_PEER_OVERRIDES (`domain=http://127.0.0.1:port`,
 * comma-separated, as the server's PEER_OVERRIDES), where `origin` is then `http://<domain>`, the
 * form the server accepts for such a domain.
 */
export function peerAddress(host: string): { base: string; origin: string } {
	for (const entry of (process.env.SVC_PEER_OVERRIDES ?? "").split(",")) {
		const [domain, url] = entry.split("=");
		if (domain?.trim() === host && url) return { base: url.trim(), origin: `http://${host}` };
	}
	const scheme = /^(localhost|127\.0\.0\.1)(:\d+)?$/.test(host) ? "http" : "https";
	return { base: `${scheme}://${host}`, origin: `${scheme}://${host}` };
}

const yes = (ctx: Context) => ctx.values.yes === true;
const onTerminal = () => Boolean(process.stdin.isTTY && process.stderr.isTTY);

/** Asks, unless --yes; off a terminal without --yes nobody can be asked, which is a refusal. */
async function agree(ctx: Context, question: string, how: string): Promise<boolean> {
	if (yes(ctx)) return true;
	if (!onTerminal()) throw new UsageError(`not on a terminal, so nobody can be asked: ${how}`);
	return ask(question);
}

const when = (iso: string | null) => (iso ? iso.slice(0, 10) : "no end");

/** The identity to accept `view` with: the one named, the one the offer is for, or the only one. */
function chooseIdentity(server: string, view: OfferView, ref: string | undefined): StoredIdentity {
	if (ref) return findIdentity(server, ref);
	const mine = storedIdentities(server).filter((i) => i.id !== "");
	if (view.subjectFingerprint) {
		const meant = mine.find((i) => i.fingerprint === view.subjectFingerprint);
		if (meant) return meant;
		throw new CliError(
			`the offer is for the identity ${view.subjectFingerprint.slice(0, 16)}…, whose key is not on this device`,
			EXIT.notFound,
		);
	}
	if (mine.length === 1) return mine[0] as StoredIdentity;
	if (mine.length === 0) {
		throw new CliError(
			`no identity key for ${server} is on this device: make one with \`svc identity create --name <name>\``,
			EXIT.notFound,
		);
	}
	throw new UsageError(
		`the keys of ${mine.length} identities are on this device (${mine.map((i) => i.name).join(", ")}): choose one with --identity`,
	);
}

/**
 * The console's screen for a credential link, the address its "Open an app link" dialog goes to
 * (web/console/screens/credentials/open-link.tsx `credentialPath`).
 */
export function credentialConsoleAddress(server: string, kind: "offer" | "present", text: string): string {
	return `${server}/app/credentials/${kind}?${new URLSearchParams({ link: text.trim() })}`;
}

/**
 * Nobody to ask here (the desktop's handler runs svc without a terminal, and no --yes): the
 * console's screen for the link asks in the browser, with the identity keys that browser holds.
 * True when it was opened; false when svc goes on itself (and refuses when it must ask).
 */
function handOverToConsole(ctx: Context, kind: "offer" | "present", text: string): boolean {
	if (yes(ctx) || onTerminal() || ctx.values["no-browser"]) return false;
	const server = chosenServer(ctx.values.server as string | undefined);
	if (!server) return false;
	const address = credentialConsoleAddress(server, kind, text);
	if (!openBrowser(address)) return false;
	if (ctx.json) printJson({ kind, status: "console", server, address, opened: true });
	else {
		note("Not on a terminal, so it continues in the console (opened in the browser):");
		printLine(address);
	}
	return true;
}

export async function openOfferLink(ctx: Context, link: OfferLink, text: string): Promise<number> {
	if (handOverToConsole(ctx, "offer", text)) return EXIT.ok;
	const api = ctx.api();
	const peer = peerAddress(link.host);
	const offers = new Api({ server: peer.base });
	// Refusals (404, 410 expired, revoked or accepted by another identity) come back as sentences.
	const view = await offers.get<OfferView>(`/api/attestations/offers/${link.token}`);
	const identity = chooseIdentity(api.server, view, ctx.values.identity as string | undefined);
	const claims = Object.entries(view.claims ?? {});
	note(
		[
			`${view.server.domain} (${view.workspace.name}) offers to attest: ${view.type}${view.label ? ` (${view.label})` : ""}`,
			...claims.map(([name, value]) => `  ${name}: ${JSON.stringify(value)}`),
			`Valid until: ${when(view.expiresAt)}; the offer stands until ${when(view.offerExpiresAt)}.`,
			`Accept it with the identity ${identity.name} (${identity.fingerprint.slice(0, 16)}…)?`,
		].join("\n"),
	);
	const agreed = await agree(ctx, "Accept the offer?", "pass --yes to accept it");
	if (!agreed) {
		if (ctx.json) printJson({ kind: "offer", status: "declined" });
		else printLine("Declined: nothing was accepted.");
		return EXIT.ok;
	}
	const { domain } = await ctx.publicApi(api.server).get<{ domain: string }>("/api/server");
	const { nonce } = await offers.get<{ nonce: string }>(
		`/api/challenges/attestation/${link.token}?identityId=${encodeURIComponent(identity.id)}`,
	);
	const kept = await api.post<HeldCredential>("/api/credentials/claim", {
		// This server's own offer is claimed in-process: no origin.
		...(link.host === domain ? {} : { origin: peer.origin }),
		token: link.token,
		identityId: identity.id,
		challengeNonce: nonce,
		challengeSignature: signChallenge(identity, nonce),
	});
	if (ctx.json) printJson({ kind: "offer", status: "accepted", credential: withoutSecret(kept) });
	else
		printLine(`Kept ${kept.type} from ${kept.issuer} as ${kept.id} (svc open 'svc://present?…' presents it)`);
	return EXIT.ok;
}

/** A held credential without its SD-JWT (a bearer of every claim): for printing. */
function withoutSecret({ credential: _credential, ...rest }: HeldCredential) {
	return rest;
}

async function heldCredentials(api: Api): Promise<HeldCredential[]> {
	const { items } = await api.get<{ items: HeldCredential[] }>(
		"/api/collections/credentials/records?perPage=500&sort=-issuedAt",
	);
	return items;
}

function chooseCredential(request: PresentRequest, held: HeldCredential[], id: string | undefined) {
	const fits = held.filter(
		(c) =>
			(request.type === undefined || c.type === request.type) &&
			(request.issuers === undefined || request.issuers.includes(c.issuer)) &&
			(c.expiresAt === null || Date.parse(c.expiresAt) > Date.now()),
	);
	if (id) {
		const named = fits.find((c) => c.id === id);
		if (named) return named;
		throw new CliError(`no held credential ${id} matches what the service asks for`, EXIT.notFound);
	}
	if (fits.length === 1) return fits[0] as HeldCredential;
	const asked = `${request.type ?? "any type"} from ${request.issuers?.join(", ") ?? "any attester"}`;
	if (fits.length === 0) {
		throw new CliError(`no held credential matches what the service asks for (${asked})`, EXIT.notFound);
	}
	throw new UsageError(
		`${fits.length} held credentials match (${fits.map((c) => `${c.id}: ${c.type} from ${c.issuer}`).join("; ")}): choose one with --credential`,
	);
}

export async function openPresentLink(ctx: Context, request: PresentRequest, text: string): Promise<number> {
	if (handOverToConsole(ctx, "present", text)) return EXIT.ok;
	const api = ctx.api();
	const chosen = chooseCredential(
		request,
		await heldCredentials(api),
		ctx.values.credential as string | undefined,
	);
	const withheld = new Set(
		String(ctx.values.withhold ?? "")
			.split(",")
			.map((c) => c.trim())
			.filter(Boolean),
	);
	const disclosed = request.claims.filter((c) => c in chosen.claims && !withheld.has(c));
	const missing = request.claims.filter((c) => !(c in chosen.claims));
	note(
		[
			`${request.clientId} asks for a presentation of ${chosen.type} from ${chosen.issuer}.`,
			`It will see: ${disclosed.length > 0 ? disclosed.map((c) => `${c} = ${JSON.stringify(chosen.claims[c])}`).join(", ") : "no claim, only that you hold it"}`,
			...(withheld.size > 0 ? [`Left out: ${[...withheld].join(", ")}`] : []),
			...(missing.length > 0 ? [`Not in this credential: ${missing.join(", ")}`] : []),
			`Sent to: ${request.responseUri}`,
		].join("\n"),
	);
	const agreed = await agree(ctx, `Present it to ${request.clientId}?`, "pass --yes to present it");
	if (!agreed) {
		if (ctx.json) printJson({ kind: "present", status: "declined" });
		else printLine("Declined: nothing was sent.");
		return EXIT.ok;
	}
	const identity = storedIdentities(api.server).find((i) => i.id === chosen.identity);
	if (!identity) {
		throw new CliError(
			`the key of the identity ${chosen.identity}, which this credential is bound to, is not on this device`,
			EXIT.notFound,
		);
	}
	const presentation = await buildPresentation(chosen.credential, {
		claims: disclosed,
		audience: request.clientId,
		nonce: request.nonce,
		sign: async (input) => signChallenge(identity, input),
		now: Date.now() / 1000,
	});
	const redirect = await post(request, presentation);
	if (ctx.json) {
		printJson({
			kind: "present",
			status: "sent",
			credential: chosen.id,
			disclosed,
			redirect: redirect ?? null,
		});
		return EXIT.ok;
	}
	printLine(`Presented ${chosen.type} to ${request.clientId} (${disclosed.length} claims disclosed).`);
	if (redirect) {
		const opened = ctx.values["no-browser"] ? false : openBrowser(redirect);
		note(opened ? "The service's page is open in the browser:" : "The service continues at:");
		printLine(redirect);
	}
	return EXIT.ok;
}

/** Posts the presentation; answers the service's `redirect_uri` when it is on the service's origin. */
async function post(request: PresentRequest, presentation: string): Promise<string | undefined> {
	let res: Response;
	try {
		res = await fetch(request.responseUri, {
			method: "POST",
			headers: { "content-type": "application/json", accept: "application/json" },
			body: JSON.stringify({ presentation, state: request.state ?? "" }),
			redirect: "manual",
			signal: AbortSignal.timeout(30_000),
		});
	} catch (err) {
		throw new CliError(
			`cannot reach ${request.responseUri} (${err instanceof Error ? err.message : String(err)})`,
			EXIT.unreachable,
		);
	}
	const text = await res.text();
	if (!res.ok) throw new CliError(`the service answered ${res.status}: ${text.slice(0, 200)}`, EXIT.failed);
	let redirect: unknown;
	try {
		redirect = (JSON.parse(text) as { redirect_uri?: unknown }).redirect_uri;
	} catch {
		return undefined;
	}
	if (typeof redirect !== "string") return undefined;
	let target: URL;
	try {
		target = new URL(redirect);
	} catch {
		note(`The service named a return address that is not one; it is not followed: ${redirect.slice(0, 200)}`);
		return undefined;
	}
	if (target.origin !== request.clientId) {
		note(
			`The service named a return address outside ${request.clientId}; it is not followed: ${target.origin}`,
		);
		return undefined;
	}
	return target.toString();
}
