// Registration ceremony. Nothing but the ceremony row is written until finish; finishing writes the
// passkey (and for a signup the account with its personal workspace) and spends the ticket, all in
// one transaction, so a refusal leaves no half-made account.
//
// begin, in order: PKCE challenge and name well formed; with a ticket: the ticket live (`email`
// ignored) and, for a signup ticket, its email still free; with an invitation: the invitation live
// and its email free (sign-ups need not be on); without: signups allowed, email valid, email free.
// finish, in order: shape and origin (nothing spent), the ceremony answered once, the attestation
// with user verification, then the ticket spent, the email still free, the passkey new, and the
// invitation accepted by the new account.
import type { AuthenticatorTransport, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Transaction } from "kysely";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import { newId, randomToken, sha256Hex } from "../../lib/crypto.ts";
import { accountByEmail, accountById, createAccount, lockAccount } from "../accounts/service.ts";
import { acceptIn, liveInvitation } from "../invitations/service.ts";
import { answerSignupRequest, takeAnswerSignup } from "../requests/service.ts";
import { checkClientData, checkEmail, checkName, checkPkceChallenge } from "./checks.ts";
import { mintCode, type PasskeyContext } from "./context.ts";
import { parseTransports } from "./login.ts";
import * as store from "./store.ts";
import { CEREMONY_TTL_MS, creationOptions, verifyCreation } from "./webauthn.ts";

const TRANSPORTS = new Set<string>([
	"ble",
	"hybrid",
	"internal",
	"nfc",
	"usb",
] satisfies AuthenticatorTransport[]);

interface Target {
	accountId: string;
	email: string;
	/** Set when finishing creates the account. */
	signup: boolean;
	displayName: string;
	ticketHash: string | null;
	invitationHash: string | null;
	/** An answer-only sign-up: the request (id) it was begun for. */
	answerRequest: string | null;
}

async function targetOf(
	ctx: PasskeyContext,
	input: { email?: string; ticket?: string; invitation?: string; request?: string },
	name: string | undefined,
): Promise<Target> {
	if (input.request !== undefined && input.ticket === undefined && input.invitation === undefined) {
		// An answer-only sign-up: allowed by the operator and by this request, whatever ALLOW_SIGNUPS says.
		const answerRequest = await answerSignupRequest(ctx.db, input.request, ctx.allowAnswerSignups, ctx.now);
		const email = checkEmail(input.email);
		await checkEmailFree(ctx, email);
		return {
			accountId: newId(),
			email,
			signup: true,
			displayName: name ?? localPart(email),
			ticketHash: null,
			invitationHash: null,
			answerRequest,
		};
	}
	if (input.invitation !== undefined) {
		const invitation = await liveInvitation(ctx.db, input.invitation, ctx.now);
		const email = checkEmail(invitation.email);
		await checkEmailFree(ctx, email);
		return {
			accountId: newId(),
			email,
			signup: true,
			displayName: name ?? localPart(email),
			ticketHash: null,
			invitationHash: sha256Hex(input.invitation),
			answerRequest: null,
		};
	}
	if (input.ticket !== undefined) {
		const ticketHash = sha256Hex(input.ticket);
		const ticket = await store.findLiveTicket(ctx.db, ticketHash, ctx.now);
		if (!ticket) throw new AppError("passkey_ticket_invalid", "The ticket is unknown, expired or used");
		if (ticket.account) {
			const account = await accountById(ctx.db, ticket.account);
			if (!account) throw new AppError("passkey_ticket_invalid", "The ticket's account no longer exists");
			return {
				accountId: account.id,
				email: account.email,
				signup: false,
				displayName: account.name,
				ticketHash,
				invitationHash: null,
				answerRequest: null,
			};
		}
		const email = checkEmail(ticket.email ?? "");
		await checkEmailFree(ctx, email);
		return {
			accountId: newId(),
			email,
			signup: true,
			displayName: name ?? localPart(email),
			ticketHash,
			invitationHash: null,
			answerRequest: null,
		};
	}
	if (!ctx.allowSignups)
		throw new AppError("signups_disabled", "Sign-ups are off; ask the operator for a ticket");
	const email = checkEmail(input.email);
	await checkEmailFree(ctx, email);
	return {
		accountId: newId(),
		email,
		signup: true,
		displayName: name ?? localPart(email),
		ticketHash: null,
		invitationHash: null,
		answerRequest: null,
	};
}

async function checkEmailFree(ctx: PasskeyContext, email: string): Promise<void> {
	if (await accountByEmail(ctx.db, email)) {
		throw new AppError("passkey_email_taken", "An account with this email exists; sign in instead");
	}
}

const localPart = (email: string) => email.split("@")[0] as string;

export async function beginRegistration(
	ctx: PasskeyContext,
	input: {
		email?: string;
		ticket?: string;
		invitation?: string;
		request?: string;
		name?: string;
		challenge?: string;
	},
) {
	const pkce = input.challenge === undefined ? null : checkPkceChallenge(input.challenge);
	const name = checkName(input.name);
	const target = await targetOf(ctx, input, name);
	const existing = target.signup ? [] : await store.listCredentialIds(ctx.db, target.accountId);
	const options = await creationOptions(
		ctx.rp,
		{ accountId: target.accountId, email: target.email, displayName: target.displayName },
		existing.map((c) => ({
			id: c.credential_id,
			transports: knownTransports(parseTransports(c.transports)),
		})),
	);
	const session = randomToken(32);
	await store.sweepCeremonies(ctx.db, ctx.now);
	await store.insertCeremony(ctx.db, {
		hash: sha256Hex(session),
		kind: "register",
		challenge: options.challenge,
		pkce_challenge: pkce,
		account: target.accountId,
		email: target.signup ? target.email : null,
		// For a signup: the account's name; when adding to an account: the passkey's name.
		name: name ?? null,
		ticket_hash: target.ticketHash,
		invitation_hash: target.invitationHash,
		answer_request: target.answerRequest,
		created: ctx.now,
		expires: ctx.now + CEREMONY_TTL_MS,
	});
	return { session, options };
}

export async function finishRegistration(
	ctx: PasskeyContext,
	input: { session: string; credential: RegistrationResponseJSON },
): Promise<{ code?: string }> {
	checkClientData(ctx.rp, input.credential.response.clientDataJSON, "webauthn.create");
	const ceremony = await store.spendCeremony(ctx.db, sha256Hex(input.session), "register", ctx.now);
	if (!ceremony?.account) {
		throw new AppError(
			"passkey_ceremony_invalid",
			"The registration ceremony is unknown, expired or answered",
		);
	}
	const accountId = ceremony.account;
	const credential = await verifyCreation(ctx.rp, input.credential, ceremony.challenge);
	const passkeyName = ceremony.email
		? defaultPasskeyName(ctx.now)
		: (ceremony.name ?? defaultPasskeyName(ctx.now));

	try {
		return await ctx.db.transaction().execute(async (trx) => {
			if (ceremony.ticket_hash && !(await store.spendTicket(trx, ceremony.ticket_hash, ctx.now))) {
				throw new AppError("passkey_ticket_invalid", "The ticket expired or was used meanwhile");
			}
			if (ceremony.email) {
				if (await accountByEmail(trx, ceremony.email)) throw emailTaken();
				// An answer-only sign-up stands only while its request still admits one, and takes one of its cap.
				if (ceremony.answer_request) {
					await takeAnswerSignup(trx, ceremony.answer_request, ctx.allowAnswerSignups, ctx.now);
				}
				await createAccount(
					trx,
					{
						id: accountId,
						email: ceremony.email,
						name: ceremony.name ?? undefined,
						...(ceremony.answer_request ? { answerOnlyFor: ceremony.answer_request } : {}),
					},
					ctx.now,
				);
				await sendSignupVerification(ctx, trx, accountId);
			} else if (!(await lockAccount(trx, accountId))) {
				throw new AppError("passkey_ticket_invalid", "The ticket's account no longer exists");
			}
			// The new account joins the workspace it was invited to; a refusal (revoked, accepted or
			// expired meanwhile) rolls the account back with everything else.
			if (ceremony.invitation_hash) await acceptIn(trx, ceremony.invitation_hash, accountId, ctx.now);
			if (await store.findPasskeyByCredentialId(trx, credential.id)) throw credentialTaken();
			await store.insertPasskey(trx, {
				id: newId(),
				account: accountId,
				name: passkeyName,
				credential_id: credential.id,
				public_key: credential.publicKey,
				counter: credential.counter,
				transports: JSON.stringify(knownTransports(credential.transports)),
				device_type: credential.deviceType,
				backed_up: credential.backedUp ? 1 : 0,
				created: ctx.now,
				updated: ctx.now,
				last_used: null,
			});
			if (!ceremony.pkce_challenge) return {};
			return { code: await mintCode(trx, accountId, ceremony.pkce_challenge, ctx.now) };
		});
	} catch (err) {
		// Two finishes racing for one email or one credential: the database's unique index decides.
		if (!isUniqueViolation(err)) throw err;
		if (ceremony.email && (await accountByEmail(ctx.db, ceremony.email))) throw emailTaken();
		throw credentialTaken();
	}
}

/** With mail on, a new account is sent a link to verify its address; over a mail cap it is not. */
async function sendSignupVerification(ctx: PasskeyContext, trx: Transaction<Database>, accountId: string) {
	if (!ctx.mail) return;
	try {
		await ctx.mail.sendVerification(trx, accountId, undefined, ctx.now);
	} catch (err) {
		if (!(err instanceof AppError && err.code === "mail_rate_limited")) throw err;
	}
}

const emailTaken = () =>
	new AppError("passkey_email_taken", "An account with this email was created meanwhile");
const credentialTaken = () =>
	new AppError("passkey_verification_failed", "This passkey is already registered", { status: 400 });

function knownTransports(list: string[]) {
	return list.filter((t): t is AuthenticatorTransport => TRANSPORTS.has(t));
}

function defaultPasskeyName(now: number): string {
	return `Passkey of ${new Date(now).toISOString().slice(0, 10)}`;
}
