// The WebAuthn half of a ceremony, through @simplewebauthn/server: options that demand a
// discoverable credential with user verification, and verification mapped onto the spec's codes.
import type {
	AuthenticationResponseJSON,
	AuthenticatorTransport,
	PublicKeyCredentialCreationOptionsJSON,
	PublicKeyCredentialRequestOptionsJSON,
	RegistrationResponseJSON,
	verifyAuthenticationResponse,
	verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { AppError } from "../../http/errors.ts";
import type { RelyingParty } from "./checks.ts";

/** Loaded on the first ceremony, not at start (its crypto stack is about 14 MB of resident memory). */
let library: Promise<typeof import("@simplewebauthn/server")> | undefined;
function webauthn() {
	library ??= import("@simplewebauthn/server");
	return library;
}

/** Ceremonies are good five minutes (spec, Limits); the browser is told the same. */
export const CEREMONY_TTL_MS = 5 * 60 * 1000;

/** The WebAuthn user handle is the account id's UTF-8 bytes: random, and no personal data. */
export function userHandle(accountId: string): Uint8Array<ArrayBuffer> {
	return new Uint8Array(Buffer.from(accountId, "utf8"));
}

export async function creationOptions(
	rp: RelyingParty,
	user: { accountId: string; email: string; displayName: string },
	exclude: { id: string; transports: AuthenticatorTransport[] }[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
	const { generateRegistrationOptions } = await webauthn();
	return generateRegistrationOptions({
		rpName: rp.name,
		rpID: rp.id,
		userID: userHandle(user.accountId),
		userName: user.email,
		userDisplayName: user.displayName,
		timeout: CEREMONY_TTL_MS,
		attestationType: "none",
		excludeCredentials: exclude,
		authenticatorSelection: {
			residentKey: "required",
			requireResidentKey: true,
			userVerification: "required",
		},
	});
}

export async function requestOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
	// No allowCredentials: the authenticator offers its discoverable credentials for this RP.
	const { generateAuthenticationOptions } = await webauthn();
	return generateAuthenticationOptions({
		rpID: rp.id,
		timeout: CEREMONY_TTL_MS,
		userVerification: "required",
	});
}

export interface NewCredential {
	id: string;
	publicKey: string;
	counter: number;
	transports: string[];
	deviceType: string;
	backedUp: boolean;
}

/** Registration finish: a failure is `passkey_verification_failed` with status 400 (spec, Errors). */
export async function verifyCreation(
	rp: RelyingParty,
	response: RegistrationResponseJSON,
	challenge: string,
): Promise<NewCredential> {
	const fail = (why: string) => new AppError("passkey_verification_failed", why, { status: 400 });
	let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
	try {
		const { verifyRegistrationResponse } = await webauthn();
		result = await verifyRegistrationResponse({
			response,
			expectedChallenge: challenge,
			expectedOrigin: rp.origin,
			expectedRPID: rp.id,
			requireUserPresence: true,
			requireUserVerification: true,
		});
	} catch (err) {
		throw fail(err instanceof Error ? err.message : "The registration response does not verify");
	}
	if (!result.verified) throw fail("The registration response does not verify");
	const { credential, credentialDeviceType, credentialBackedUp } = result.registrationInfo;
	return {
		id: credential.id,
		publicKey: Buffer.from(credential.publicKey).toString("base64url"),
		counter: credential.counter,
		transports: response.response.transports ?? [],
		deviceType: credentialDeviceType,
		backedUp: credentialBackedUp,
	};
}

/** Login finish: a failure is `passkey_verification_failed` (401). Returns the new counter. */
export async function verifyAssertion(
	rp: RelyingParty,
	response: AuthenticationResponseJSON,
	challenge: string,
	stored: { credentialId: string; publicKey: string; counter: number; transports: string[] },
): Promise<number> {
	let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
	try {
		const { verifyAuthenticationResponse } = await webauthn();
		result = await verifyAuthenticationResponse({
			response,
			expectedChallenge: challenge,
			expectedOrigin: rp.origin,
			expectedRPID: rp.id,
			requireUserVerification: true,
			credential: {
				id: stored.credentialId,
				publicKey: new Uint8Array(Buffer.from(stored.publicKey, "base64url")),
				counter: stored.counter,
				transports: stored.transports as AuthenticatorTransport[],
			},
		});
	} catch (err) {
		throw new AppError(
			"passkey_verification_failed",
			err instanceof Error ? err.message : "The assertion does not verify",
		);
	}
	if (!result.verified) throw new AppError("passkey_verification_failed", "The assertion does not verify");
	return result.authenticationInfo.newCounter;
}
