// A held credential as the `credentials` collection answers it (docs/api.md "Held credentials"),
// and the offer view as its server shows it (docs/api.md "The offer").
import { collection } from "../../api.ts";

export type ClaimValue = string | number | boolean;

export interface HeldCredential {
	id: string;
	/** The attesting domain. */
	issuer: string;
	type: string;
	/** The identity it is bound to. */
	identity: string;
	/** The SD-JWT with every disclosure. */
	credential: string;
	claims: Record<string, ClaimValue>;
	issuedAt: string;
	expiresAt: string | null;
}

export interface OfferView {
	type: string;
	label: string;
	status: "offered" | "active";
	claims?: Record<string, ClaimValue>;
	expiresAt: string | null;
	offerExpiresAt: string;
	subjectFingerprint: string | null;
	server: { domain: string; fingerprint: string; origin: string };
	workspace: { id: string; name: string };
}

export const credentials = collection<HeldCredential>("credentials");

/** A claim's value as the person reads it: text as it is, yes/no and numbers in words of the page. */
export function shown(value: ClaimValue, yes: string, no: string): string {
	return typeof value === "boolean" ? (value ? yes : no) : String(value);
}
