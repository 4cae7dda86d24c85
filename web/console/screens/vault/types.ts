// The vault's records and sections as the collections API answers them (docs/api.md "Vault").
import { ApiError, collection } from "../../api.ts";
import type { Wire } from "../../wire.ts";

export interface FileInfo {
	name: string;
	type: string;
	size: number;
	sha256: string;
}

export type VaultRecord = Wire<"VaultRecord">;

export type Section = Wire<"Section">;

export const records = collection<VaultRecord>("records");
export const sections = collection<Section>("sections");

/** Vault keys and section keys: `[a-z0-9_-]{1,64}`. */
export const KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;

/** A key made from a name ("Bank details" -> "bank-details"), for a default the person can change. */
export function keyFrom(text: string): string {
	return text
		.toLowerCase()
		.replace(/ß/g, "ss")
		.normalize("NFKD")
		.replace(/[\u0300-\u036f]/g, "")
		.replace(/[^a-z0-9_-]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 64);
}

/** A key made from a file's name without its extension ("Lease 2025.pdf" -> "lease-2025"). */
export function keyFromFile(fileName: string): string {
	return keyFrom(fileName.replace(/\.[^.]*$/, "") || fileName);
}

/** The member a validation refusal names ("body.key" -> "key"), to mark that field. */
export function refusedField(err: unknown): string | null {
	if (!(err instanceof ApiError) || err.code !== "validation_failed") return null;
	const field = err.problem.field;
	return typeof field === "string" ? field.replace(/^body\./, "") : null;
}
