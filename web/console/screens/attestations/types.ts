// An attestation record as the `attestations` collection answers it.
import { collection } from "../../api.ts";
import type { Wire } from "../../wire.ts";

export type Attestation = Wire<"Attestation">;

export const attestations = collection<Attestation>("attestations");
