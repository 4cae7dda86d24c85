// What other features ask of answers: a request's gates (gates.ts), and the checks and writes of
// an answer's values (submit.ts) that a relayed answer shares.

export type { RemoteReader, RemoteValue } from "./collected.ts";
export { localProof, type OpenRequest, passRequestGates, type RequestGateInput } from "./gates.ts";
export { type AnswerInput, checkValue, keepMinted, MAX_VALUE_LENGTH, plan } from "./submit.ts";
