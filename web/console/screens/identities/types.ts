// An identity record as the `identities` collection answers it (docs/api.md "Identities and standing").
import { collection } from "../../api.ts";
import type { Wire } from "../../wire.ts";
import { removeKey } from "./keystore.ts";

export type Identity = Wire<"Identity">;

export const identities = collection<Identity>("identities");

/** Revokes (one-way) and removes the key from this browser; a key left behind is offered for removal on the identity's page. */
export async function revokeIdentity(identity: Identity): Promise<void> {
	await identities.update(identity.id, { status: "revoked" });
	await removeKey(identity.fingerprint).catch(() => undefined);
}
