// Login ceremony. begin: PKCE challenge -> a discoverable-credential request good five minutes.
// finish, in order: the request's shape and origin (nothing spent yet), the ceremony answered once,
// the passkey, its owner, the signature with user verification, then a two-minute one-time code.
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { AppError } from "../../http/errors.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { checkClientData, checkPkceChallenge } from "./checks.ts";
import { mintCode, type PasskeyContext } from "./context.ts";
import * as store from "./store.ts";
import { CEREMONY_TTL_MS, requestOptions, verifyAssertion } from "./webauthn.ts";

export async function beginLogin(ctx: PasskeyContext, input: { challenge: string }) {
	const pkce = checkPkceChallenge(input.challenge);
	const options = await requestOptions(ctx.rp);
	const session = randomToken(32);
	await store.sweepCeremonies(ctx.db, ctx.now);
	await store.insertCeremony(ctx.db, {
		hash: sha256Hex(session),
		kind: "login",
		challenge: options.challenge,
		pkce_challenge: pkce,
		account: null,
		email: null,
		name: null,
		ticket_hash: null,
		invitation_hash: null,
		answer_request: null,
		created: ctx.now,
		expires: ctx.now + CEREMONY_TTL_MS,
	});
	return { session, options };
}

export async function finishLogin(
	ctx: PasskeyContext,
	input: { session: string; credential: AuthenticationResponseJSON },
): Promise<{ code: string }> {
	const { credential } = input;
	checkClientData(ctx.rp, credential.response.clientDataJSON, "webauthn.get");

	const ceremony = await store.spendCeremony(ctx.db, sha256Hex(input.session), "login", ctx.now);
	if (!ceremony?.pkce_challenge) {
		throw new AppError("passkey_ceremony_invalid", "The login ceremony is unknown, expired or answered");
	}

	const passkey = await store.findPasskeyByCredentialId(ctx.db, credential.id);
	if (!passkey) throw new AppError("passkey_verification_failed", "This passkey is not registered here");
	// A discoverable credential names its user; it must be the passkey's account.
	const handle = credential.response.userHandle;
	if (handle && Buffer.from(handle, "base64url").toString("utf8") !== passkey.account) {
		throw new AppError("passkey_verification_failed", "The passkey's user handle is not its account");
	}

	const counter = await verifyAssertion(ctx.rp, credential, ceremony.challenge, {
		credentialId: passkey.credential_id,
		publicKey: passkey.public_key,
		counter: passkey.counter,
		transports: parseTransports(passkey.transports),
	});
	await store.markUsed(ctx.db, passkey.id, counter, ctx.now);
	return { code: await mintCode(ctx.db, passkey.account, ceremony.pkce_challenge, ctx.now) };
}

export function parseTransports(json: string): string[] {
	try {
		const list: unknown = JSON.parse(json);
		return Array.isArray(list) ? list.filter((t): t is string => typeof t === "string") : [];
	} catch {
		return [];
	}
}
