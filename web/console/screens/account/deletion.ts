// Deleting the signed-in account (docs/api.md "Deleting an account"): begin a confirmation, answer
// it with one of the account's passkeys, finish. The console then forgets the session, which the
// server ended with the account.
import { startAuthentication } from "@simplewebauthn/browser";
import { request } from "../../api.ts";
import { endSession } from "../../session.ts";

interface Begun {
	session: string;
	// biome-ignore lint/suspicious/noExplicitAny: the WebAuthn options JSON as @simplewebauthn/browser takes it
	options: any;
}

export async function deleteAccount(): Promise<void> {
	const begun = (await request<Begun>("POST", "/api/auth/delete/begin")).data;
	const credential = await startAuthentication({ optionsJSON: begun.options });
	await request<void>("POST", "/api/auth/delete/finish", { body: { session: begun.session, credential } });
	endSession(null);
}
