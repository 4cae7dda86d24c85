// A request's gates (spec "Requests and remote answers", submission rules): one implementation for
// an answer given here (submit.ts) and a remote answer relayed by another server (grants/accept.ts).
// Requests reuse the share's password and handshake gates (shares/gates.ts).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { AppError } from "../../http/errors.ts";
import type { ProvenIdentity } from "../challenges/service.ts";
import { invalidField } from "../collections/fields.ts";
import { openForAnswers } from "../requests/service.ts";
import { checkHandshake, checkPassword } from "../shares/service.ts";

/** What an answerer presents at a request's gates. */
export interface RequestGateInput {
	password?: string | undefined;
	identifier?: string | undefined;
	identityId?: string | undefined;
	challengeNonce?: string | undefined;
	challengeSignature?: string | undefined;
}

export type OpenRequest = Awaited<ReturnType<typeof openForAnswers>>;

/**
 * A request's gates, in the spec's order: the request still takes answers (its status), its
 * password (the share's password gate), the identifier it requires, then the proven identity,
 * wanted when the request requires one or the answerer offers one unasked. How an identity is
 * proven depends on who issued it: `prove` is told whether one is wanted (`localProof` for an
 * identity of this server; a remote answer's is vouched for by its own server, grants/accept.ts).
 */
export async function passRequestGates<P>(
	db: Kysely<Database>,
	slug: string,
	input: RequestGateInput,
	now: number,
	prove: (wanted: boolean, request: OpenRequest) => Promise<P>,
): Promise<{ request: OpenRequest; identifier: string; proof: P }> {
	const request = await openForAnswers(db, slug, now);
	await checkPassword(request.password_hash, input.password);
	const identifier = (input.identifier ?? "").trim();
	if (request.requires_identifier === 1 && identifier === "") {
		throw invalidField("identifier", "is required by this request");
	}
	const offered = Boolean(input.challengeNonce || input.challengeSignature);
	const proof = await prove(request.require_handshake === 1 || offered, request);
	return { request, identifier, proof };
}

/**
 * The handshake gate of an answer given here: the share's, for this request's challenge. An
 * identity counts only when its challenge verified (a bare `identityId` is dropped); a request
 * that takes identities this server certified refuses another.
 */
export function localProof(db: Kysely<Database>, slug: string, input: RequestGateInput, now: number) {
	return async (wanted: boolean, request: OpenRequest): Promise<ProvenIdentity | undefined> => {
		const proven = await checkHandshake({ db }, { required: wanted, scope: "request", slug }, input, now);
		if (proven && request.identity_scope === "from_root" && proven.id === undefined) {
			throw new AppError("remote_identity_invalid", "This request takes identities this server certified");
		}
		return proven;
	};
}
