// An attestation record as the `attestations` collection answers it.
import { collection } from "../../api.ts";

export interface Attestation {
	id: string;
	workspace: string;
	type: string;
	claims: Record<string, string | number | boolean>;
	label: string;
	expiresAt: string | null;
	offerExpiresAt: string;
	subjectFingerprint: string | null;
	subjectDomain: string | null;
	subjectName: string | null;
	status: "offered" | "active" | "revoked";
	created: string;
}

export const attestations = collection<Attestation>("attestations");
