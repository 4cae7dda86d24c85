// A held credential as the `credentials` collection answers it (docs/api.md "Held credentials"),
// and the offer view as its server shows it (docs/api.md "The offer").
import { collection } from "../../api.ts";
import type { Wire } from "../../wire.ts";

export type ClaimValue = string | number | boolean;

export type HeldCredential = Wire<"Credential">;

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
/**
 * A claim's value in words. A held credential may come from any attester, whose claims the
 * document leaves open: a value that is not a string, number or yes/no shows as its JSON.
 */
export function shown(value: unknown, yes: string, no: string): string {
	if (typeof value === "boolean") return value ? yes : no;
	if (typeof value === "string" || typeof value === "number") return String(value);
	return JSON.stringify(value) ?? "";
}
