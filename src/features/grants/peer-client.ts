// The JSON POST to another server now lives in lib/peer-client.ts (attestations use it too).
export { type PeerAnswer, postPeerJson } from "../../lib/peer-client.ts";
