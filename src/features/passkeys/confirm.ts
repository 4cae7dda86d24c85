// Confirming a grave act (deleting the account) with a fresh passkey assertion. begin: a request
// for a discoverable credential bound to the signed-in account, good five minutes. finish, in order:
// the response's shape and origin (nothing spent), the ceremony answered once and begun by this
// account, the passkey is this account's (another account's passkey is
// `account_confirmation_invalid`), the signature with user verification.
import type { AuthenticationResponseJSON } from "@simplewebauthn/server";
import { AppError } from "../../http/errors.ts";
import { randomToken, sha256Hex } from "../../lib/crypto.ts";
import { checkClientData } from "./checks.ts";
import type { PasskeyContext } from "./context.ts";
import { parseTransports } from "./login.ts";
import * as store from "./store.ts";
import { CEREMONY_TTL_MS, requestOptions, verifyAssertion } from "./webauthn.ts";

export async function beginConfirmation(ctx: PasskeyContext, accountId: string) {
	const options = await requestOptions(ctx.rp);
	const session = randomToken(32);
	await store.sweepCeremonies(ctx.db, ctx.now);
	await store.insertCeremony(ctx.db, {
		hash: sha256Hex(session),
		kind: "confirm",
		challenge: options.challenge,
		pkce_challenge: null,
		account: accountId,
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

/** Resolves when one of `accountId`'s passkeys answered the ceremony; throws otherwise. */
export async function finishConfirmation(
	ctx: PasskeyContext,
	accountId: string,
	input: { session: string; credential: AuthenticationResponseJSON },
): Promise<void> {
	const { credential } = input;
	checkClientData(ctx.rp, credential.response.clientDataJSON, "webauthn.get");
	const ceremony = await store.spendCeremony(ctx.db, sha256Hex(input.session), "confirm", ctx.now);
	if (!ceremony || ceremony.account !== accountId) {
		throw new AppError(
			"passkey_ceremony_invalid",
			"The confirmation is unknown, expired, answered or another account's",
		);
	}
	const passkey = await store.findPasskeyByCredentialId(ctx.db, credential.id);
	if (!passkey || passkey.account !== accountId) {
		throw new AppError("account_confirmation_invalid", "Confirm with a passkey of this account");
	}
	const counter = await verifyAssertion(ctx.rp, credential, ceremony.challenge, {
		credentialId: passkey.credential_id,
		publicKey: passkey.public_key,
		counter: passkey.counter,
		transports: parseTransports(passkey.transports),
	});
	await store.markUsed(ctx.db, passkey.id, counter, ctx.now);
}
