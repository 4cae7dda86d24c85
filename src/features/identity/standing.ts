// The words of an identity-status answer, shared by this server's signed answer (service.ts) and
// the reading of another server's (trust.ts).
export type Standing = "active" | "revoked" | "unknown";

export const STATUS_TYPE = "identity-status-v1";
export const FINGERPRINT = /^[0-9a-f]{64}$/;
