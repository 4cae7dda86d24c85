// What can go wrong in a device command, each with the exit code scripts rely on (docs/cli.md
// "Exit codes"), and every problem+json code the server answers with turned into one sentence.
import { type ErrorCode, errorCodes } from "../../src/http/errors.ts";

export const EXIT = {
	ok: 0,
	/** The server refused (a problem+json answer), or the work failed (a checksum, a file). */
	failed: 1,
	/** Bad arguments, an unknown command, a malformed link. */
	usage: 2,
	/** Not signed in to that server, or the session ended (`not_authenticated`). */
	signedOut: 3,
	/** The server could not be reached, or did not answer as this server does. */
	unreachable: 4,
	/** What was named does not exist (or is not visible to this account): a 404. */
	notFound: 5,
} as const;

export class CliError extends Error {
	constructor(
		message: string,
		readonly exitCode: number = EXIT.failed,
	) {
		super(message);
		this.name = "CliError";
	}
}

export class UsageError extends CliError {
	constructor(message: string) {
		super(message, EXIT.usage);
	}
}

export interface Problem {
	status: number;
	code: string;
	title?: string;
	detail?: string;
	[member: string]: unknown;
}

// Sentences for the codes a person meets from the command line, saying what to do where there is
// something to do. Any other code reads as the server's own title for it (src/http/errors.ts).
const SENTENCES: Partial<Record<ErrorCode, string>> = {
	not_authenticated: "You are not signed in, or the session ended: run `svc login <server>`.",
	invalid_api_key: "No API key matches: it was mistyped, revoked or has expired.",
	forbidden: "Your role in this workspace does not allow that.",
	not_found: "Not found: it does not exist, or this account cannot see it.",
	conflict: "That conflicts with the current state; reload and try again.",
	rate_limited: "Too many requests: wait a minute and try again.",
	file_too_large: "The file is larger than the server accepts.",
	passkey_grant_invalid:
		"The sign-in code is unknown, expired (two minutes), already used, or from another sign-in: run `svc login` again.",
	link_password_required: "This share needs a password: pass --password-file or --password-stdin.",
	link_password_invalid: "The password is wrong.",
	link_paused: "The share is paused by its owner.",
	link_revoked: "The share was revoked by its owner.",
	link_expired: "The share has expired (its date or its view cap).",
	link_not_found: "There is no such share.",
	link_status_invalid: "The share cannot change to that status.",
	challenge_required: "This needs a proven identity: pass --identity <fingerprint or name>.",
	challenge_invalid: "The challenge expired or was already used; try again.",
	signature_invalid: "The identity's signature did not verify: is the key on this device the certified one?",
	identity_revoked: "That identity is revoked.",
	request_account_required: "Answering a request needs an account on its server: run `svc login <server>`.",
	request_closed: "The request takes no more answers.",
	request_expired: "The request has expired.",
	api_key_vault_scope: "An API key can never carry vault permissions (vault:read, vault:write).",
	api_key_scope_missing: "The API key lacks a permission this needs.",
	file_download_invalid: "The download token is missing, spent or expired; read the share again.",
	validation_failed: "The server refused the input.",
	connection_client_invalid:
		"This server does not take that tool's address (http://localhost and 127.0.0.1 only when the server runs in development).",
	connection_not_connected:
		"The tool is no longer connected (it lapsed or was removed): open its svc://connect link.",
	attestation_offer_expired: "The offer has expired: ask the attester for a new one.",
	attestation_offer_revoked: "The attester withdrew the offer.",
	attestation_offer_claimed: "The offer was accepted by another identity: ask the attester for a new one.",
	attestation_identity_mismatch: "The offer is for another identity: accept it with that one (--identity).",
	remote_identity_invalid:
		"The attester could not check your identity with your server: is your server reachable from there, with its DNS record in place?",
	remote_unreachable: "The other server could not be reached; try again later.",
	credential_invalid:
		"The credential the attester issued did not check out, so it was not kept; the offer can be accepted again.",
	link_hand_over_not_allowed:
		"The tool may not receive this share: it is not allowed to (--allow-hand-over), or the share holds hidden entries or files.",
};

/** One sentence for a problem answer, with its code and the server's detail. */
export function describeProblem(problem: Problem): string {
	const known = problem.code in errorCodes ? errorCodes[problem.code as ErrorCode].title : undefined;
	const sentence =
		SENTENCES[problem.code as ErrorCode] ?? (known ? `${known}.` : (problem.title ?? "The server refused."));
	const detail =
		problem.detail && problem.detail !== known && problem.detail !== problem.title ? problem.detail : "";
	const field = typeof problem.field === "string" ? ` (${problem.field})` : "";
	const scope = typeof problem.scope === "string" ? ` (needs ${problem.scope})` : "";
	return `${sentence} [${problem.code}${detail ? `: ${detail}` : ""}]${field}${scope}`;
}

/** A problem+json answer from the server. */
export class ServerRefusal extends CliError {
	constructor(readonly problem: Problem) {
		super(
			describeProblem(problem),
			problem.code === "not_authenticated"
				? EXIT.signedOut
				: problem.status === 404
					? EXIT.notFound
					: EXIT.failed,
		);
		this.name = "ServerRefusal";
	}
}
