// What other features use of the server's own keys: the root key (identity certificates, signed
// answers), the signing keys it certifies (OIDC, credentials), and the claim a share page shows.
export {
	CREDENTIAL_KEYS,
	type KeyRing,
	type KeyRingCache,
	keyRing,
	OIDC_KEYS,
	type SigningKey,
} from "./certified-keys.ts";
export { ServerClaim, Sharer, serverClaim, sharerOf } from "./claim.ts";
export { type RootKey, RSA_SHA256, x509Library } from "./root-key.ts";
