// @sd-jwt/sd-jwt-vc and its hasher, loaded when the first credential is issued or presented: by the
// server (attestations/credential.ts) and by a holder's `svc` (sd-jwt-present.ts).
import { lazy } from "./lazy.ts";

export const sdJwtLibrary = lazy(async () => {
	const [vc, crypto] = await Promise.all([import("@sd-jwt/sd-jwt-vc"), import("@sd-jwt/crypto-nodejs")]);
	return { SDJwtVcInstance: vc.SDJwtVcInstance, digest: crypto.digest };
});
