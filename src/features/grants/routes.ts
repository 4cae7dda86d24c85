// HTTP for grants between servers: relayed and accepted remote answers, the bulk read
// (`POST /api/grants/resolve`) and signed event batches (`POST /api/grants/events`).
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { requireSession } from "../../http/auth.ts";
import { AppError } from "../../http/errors.ts";
import { errors } from "../../http/schemas.ts";
import type { PeerOptions } from "../../lib/peer.ts";
import { MAX_VALUE_LENGTH } from "../answers/service.ts";
import { ServerClaim, Sharer } from "../server/service.ts";
import { TemplateItem } from "../vault/templates/service.ts";
import { acceptRemoteAnswer } from "./accept.ts";
import { acceptEventBatch, CLOCK_SKEW_S } from "./events-in.ts";
import { MAX_EVENTS_PER_BATCH, onWorkspaceDeleted, registerPeerEventHooks } from "./events-out.ts";
import { grantFile } from "./files.ts";
import { probeRemoteRequest, relayAnswer } from "./relay.ts";
import { resolveGrants } from "./resolve.ts";

export const MAX_GRANTS_PER_READ = 100;

const GrantValue = Type.Object({
	key: Type.String({ description: "The key the grant answers (for an answer: the template key)." }),
	type: Type.Union([Type.Literal("value"), Type.Literal("file")]),
	value: Type.Union([Type.String(), Type.Null()], { description: "Current value; null for a file." }),
	file: Type.Union([
		Type.Object({ name: Type.String(), type: Type.String(), size: Type.Integer(), sha256: Type.String() }),
		Type.Null(),
	]),
});

const GrantItem = Type.Object({
	id: Type.String({ description: "The grant id as asked for." }),
	status: Type.Union(
		[
			Type.Literal("active"),
			Type.Literal("paused"),
			Type.Literal("revoked"),
			Type.Literal("expired"),
			Type.Literal("not_found"),
		],
		{
			description:
				"The grant's status now; `not_found` for a grant that does not exist, was never handed out with a token, or was asked for with a wrong token (the three are indistinguishable).",
		},
	),
	code: Type.Optional(Type.Literal("not_found", { description: "Only on a `not_found` item." })),
	etag: Type.Optional(
		Type.String({ description: "Changes whenever the status or a value changes; absent on `not_found`." }),
	),
	maxAge: Type.Integer({ description: "Seconds the reader may keep the values (`GRANT_MAX_AGE`)." }),
	notModified: Type.Boolean({
		description: "True when the `etag` sent back still matches: no `values` then.",
	}),
	values: Type.Optional(
		Type.Array(GrantValue, {
			description: "Present only while the grant is active and not `notModified`, in the grant's key order.",
		}),
	),
});

const Str = (maxLength: number, description?: string) =>
	Type.Optional(Type.String({ maxLength, ...(description ? { description } : {}) }));

const RemoteProbeSchema = Type.Object(
	{
		label: Type.String(),
		status: Type.String({ description: "`open`, `closed` or `expired`, as that server says." }),
		requiresPassword: Type.Boolean(),
		requiresIdentifier: Type.Boolean(),
		requireHandshake: Type.Boolean(),
		allowExtraFields: Type.Boolean(),
		identityScope: Type.String(),
		template: Type.Array(TemplateItem),
		requester: Sharer,
		server: ServerClaim,
	},
	{ description: "Another server's request probe, read through its DNS pin." },
);

const RelayBody = Type.Object(
	{
		server: Type.String({
			minLength: 1,
			maxLength: 253,
			description: "The requester's server (its domain).",
		}),
		slug: Type.String({ minLength: 1, maxLength: 128, description: "The request's slug on that server." }),
		password: Str(200),
		identifier: Str(200),
		senderName: Str(200, "Free text; unverified."),
		values: Type.Optional(
			Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: MAX_VALUE_LENGTH })),
		),
		entries: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 64 }))),
		identityId: Str(
			64,
			"An identity of your workspace that signed the challenge (issued by the requester's server).",
		),
		challengeNonce: Str(256),
		challengeSignature: Str(256),
	},
	{ additionalProperties: false },
);

const RemoteBody = Type.Object(
	{
		server: Type.String({
			minLength: 1,
			maxLength: 253,
			description: "The responder's server (its domain).",
		}),
		grant: Type.Object(
			{
				id: Type.String({ minLength: 1, maxLength: 64 }),
				token: Type.String({ minLength: 1, maxLength: 128 }),
				keys: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 200 })),
			},
			{ additionalProperties: false },
		),
		password: Str(200),
		identifier: Str(200),
		senderName: Str(200),
		identity: Type.Optional(
			Type.Object(
				{
					fingerprint: Type.String({ maxLength: 64 }),
					certificate: Type.String({ maxLength: 8192 }),
					parentSignature: Type.String({ maxLength: 1024 }),
				},
				{ additionalProperties: false },
			),
		),
		challengeNonce: Str(256),
		challengeSignature: Str(256),
	},
	{ additionalProperties: false },
);

const RemoteResult = Type.Object({
	ok: Type.Boolean(),
	responseId: Type.String({
		description: "The answer's id on the requester's server; stable for the same grant.",
	}),
	completed: Type.Boolean(),
	updated: Type.Boolean(),
});

export const grantRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const db = app.store.db;
	const peer = (): PeerOptions => ({
		dnsServers: app.config.dnsServers,
		peerOverrides: app.config.peerOverrides,
		now: app.clock.now(),
	});
	// Changes to grants handed to another server are queued for it (sent by the outbox worker).
	registerPeerEventHooks(app.grantHooks);
	app.workspaceHooks.onWorkspaceDeleted.push((trx, workspaceId, now) =>
		onWorkspaceDeleted(trx, workspaceId, now),
	);

	app.get(
		"/api/requests/remote",
		{
			onRequest: requireSession,
			config: { rateLimit: app.limits.probe },
			schema: {
				tags: ["requests"],
				summary: "Read another server's request, to answer it from here",
				description:
					"Session only. Probes `server`'s `GET /api/public/requests/{slug}` through its DNS pin (`PEER_OVERRIDES` in development) and answers what it says, shaped as a request probe; `server` is the pinned claim (domain, root key fingerprint, address), `requester.domain` is `server`. What the other server sends beyond a probe's members, or a template item of no known shape, is left out. 400 `validation_failed` for a malformed domain or this server's own; 502 `remote_unreachable` when the server cannot be asked, its DNS pin does not hold, or it knows no such request.",
				security: [{ Session: [] }],
				querystring: Type.Object({
					server: Type.String({
						minLength: 1,
						maxLength: 253,
						description: "The requester's server (its domain).",
					}),
					slug: Type.String({
						minLength: 1,
						maxLength: 128,
						description: "The request's slug on that server.",
					}),
				}),
				response: { 200: RemoteProbeSchema, ...errors(400, 401, 429, 502) },
			},
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			return probeRemoteRequest(
				{ domain: app.config.domain, peer: peer() },
				request.query.server,
				request.query.slug,
			);
		},
	);

	app.post(
		"/api/requests/remote",
		{
			onRequest: requireSession,
			schema: {
				tags: ["requests"],
				summary:
					"Answer another server's request: the answer stays in your vault as a grant, relayed to that server",
				description:
					"Session only. The answer is minted in your active workspace as a share handed out with a grant token, then relayed to `server`'s `POST /api/public/requests/{slug}/remote` through its DNS pin (`PEER_OVERRIDES` in development). If that server refuses, everything written for the answer is taken back and its refusal is passed on with its code (401 `link_password_required`, 403 `remote_identity_invalid`, ...); when it cannot be asked, 502 `remote_unreachable`. A handshake: get the nonce from that server's `GET /api/challenges/request/{slug}`, sign it with the identity's key, send `identityId`, `challengeNonce`, `challengeSignature`.",
				security: [{ Session: [] }],
				body: RelayBody,
				response: {
					200: Type.Object({
						ok: Type.Boolean(),
						responseId: Type.String({ description: "The answer's id on the requester's server." }),
						completed: Type.Boolean(),
						updated: Type.Boolean(),
						grantId: Type.String({
							description: "The id of the share holding the answer in your workspace.",
						}),
						server: Type.String(),
					}),
					...errors(400, 401, 403, 404, 409, 429, 502),
				},
			},
		},
		async (request) =>
			relayAnswer(
				{ db, domain: app.config.domain, peer: peer(), now: app.clock.now() },
				request.caller ?? { kind: "guest" },
				request.body,
			),
	);

	app.post(
		"/api/public/requests/:slug/remote",
		{
			config: { rateLimit: app.limits.grantRead },
			schema: {
				tags: ["requests"],
				summary: "Accept an answer kept on another server (called by the responder's server)",
				description:
					"Every gate of a local answer: request open (404 `request_closed`, `request_expired`), password (401 `link_password_required`, `link_password_invalid`), identifier (400), a proven identity when required or offered (401 `challenge_required`, `challenge_invalid`, `signature_invalid`; 403 `remote_identity_invalid` unless `identity` was issued by `server`: the fingerprint is the certificate's key, `server`'s DNS-pinned root key signed it, `server` reports it active (else 403 `identity_revoked`), and it signed this request's challenge). The grant is read once with its token (`POST /api/grants/resolve` on `server`) and must be active with values answering the template (400 `validation_failed` naming `body.grant...`). Only the grant's address, token and keys are kept. 502 `remote_unreachable` when `server` cannot be asked. The same grant answering again updates the same answer.",
				params: Type.Object({ slug: Type.String({ minLength: 1, maxLength: 128 }) }),
				body: RemoteBody,
				response: { 200: RemoteResult, ...errors(400, 401, 403, 404, 409, 429, 502) },
			},
		},
		async (request) =>
			acceptRemoteAnswer({ db, peer: peer(), now: app.clock.now() }, request.params.slug, request.body),
	);
	app.post(
		"/api/grants/resolve",
		{
			config: { rateLimit: app.limits.grantRead, secret: true },
			// The spec names this refusal on its own (Errors, 400: "none or more than 100"): its code,
			// before the schema (whose minItems/maxItems document the bound) would say validation_failed.
			preValidation: async (request) => {
				const grants = (request.body as { grants?: unknown } | undefined)?.grants;
				if (Array.isArray(grants) && (grants.length === 0 || grants.length > MAX_GRANTS_PER_READ)) {
					throw new AppError(
						"grants_count_invalid",
						`Sent ${grants.length} grants; send 1 to ${MAX_GRANTS_PER_READ}`,
					);
				}
			},
			schema: {
				tags: ["grants"],
				summary: "Bulk read of grants handed out with a token (another server or a service reads them)",
				description:
					"1 to 100 grants, each with its own token; one item per grant asked for, in the same order. A wrong token, an unknown grant and a grant never handed out with a token all answer the same `not_found` item. Reading a grant consumes no view. Send back an item's `etag` to get `notModified: true` without values when nothing changed. 400 `grants_count_invalid` for none or more than 100 (an empty `grants` array included); any other malformed body is 400 `validation_failed`.",
				body: Type.Object(
					{
						grants: Type.Array(
							Type.Object(
								{
									id: Type.String({ minLength: 1, maxLength: 64 }),
									token: Type.String({ minLength: 1, maxLength: 128 }),
									etag: Type.Optional(Type.String({ maxLength: 128 })),
								},
								{ additionalProperties: false },
							),
							{ minItems: 1, maxItems: MAX_GRANTS_PER_READ },
						),
					},
					{ additionalProperties: false },
				),
				response: { 200: Type.Object({ items: Type.Array(GrantItem) }), ...errors(400, 429) },
			},
		},
		async (request) => ({
			items: await resolveGrants(db, request.body.grants, app.config.grantMaxAge, app.clock.now()),
		}),
	);

	app.post(
		"/api/grants/events",
		{
			config: { rateLimit: app.limits.grantRead },
			schema: {
				tags: ["grants"],
				summary: "Receive a signed batch of grant events from the server holding the grants",
				description: `Called by another server about answers it relayed here. \`payload\` is base64url of the exact signed JSON bytes \`{type: "grant-events-v1", sender, audience, iat, exp, events: [{event, grant, slug, status, at}]}\` (1 to ${MAX_EVENTS_PER_BATCH} events); \`signature\` is hex RSASSA-PKCS1-v1_5 SHA-256 by the sender's root key over the payload string. Refused with 401 \`event_signature_invalid\` (the sender does not retry) when the audience is not this server, the batch was signed five minutes ago or more (or over a minute in the future), or the signature is not the key pinned at \`_svc.<sender>\`; 503 \`peer_key_unavailable\` with \`Retry-After\` when that key cannot be fetched or does not match its pin (the sender retries; the detail never says how the name resolved or why it could not be reached); 400 \`validation_failed\` (\`body.payload\`) for a payload that is not such a batch, or with an event whose \`at\` does not exist or lies more than ${CLOCK_SKEW_S} s after this server's now. Each event is applied to the remote answer holding that grant from that sender unless one as new or newer was recorded (\`at\`), and passed to the request's callback with \`server\`. \`applied\` counts the events applied; unknown grants and older events are ignored, not refused.`,
				body: Type.Object(
					{
						payload: Type.String({ minLength: 1, maxLength: 512 * 1024 }),
						signature: Type.String({ minLength: 1, maxLength: 2048 }),
					},
					{ additionalProperties: false },
				),
				response: {
					200: Type.Object({ applied: Type.Integer({ description: "Events applied from this batch." }) }),
					...errors(400, 401, 429, 503),
				},
			},
		},
		async (request) =>
			acceptEventBatch({ db, domain: app.config.domain, peer: peer(), now: app.clock.now() }, request.body),
	);
	app.post(
		"/api/grants/files",
		{
			config: { rateLimit: app.limits.grantRead, secret: true },
			schema: {
				tags: ["grants"],
				summary: "A one-time download of a file a grant answers (called by the server holding the grant)",
				description:
					"The grant's holder (the requester's server of a remote answer) presents the grant's `id` and `token` and the `key` the file answers. The grant is checked as the bulk read checks it: a wrong token, an unknown grant and one never handed out with a token are the same 404 `not_found`. A grant not active is 404 `link_paused`, `link_revoked` or `link_expired`; a key that names no file the share still grants, 404 `record_not_found`. The answer names the share's `slug`, the `recordId` and a `downloadToken` for `GET /api/public/links/{slug}/files/{recordId}?dl=`: single use, ten minutes, served by that route with its gates (a stamped copy on a watermarked share, naming the grant's holder). No view is taken; the read log records the download as a `file` read with view 0.",
				body: Type.Object(
					{
						id: Type.String({ minLength: 1, maxLength: 64 }),
						token: Type.String({ minLength: 1, maxLength: 128 }),
						key: Type.String({ minLength: 1, maxLength: 64 }),
					},
					{ additionalProperties: false },
				),
				response: {
					200: Type.Object({
						slug: Type.String(),
						recordId: Type.String(),
						downloadToken: Type.String({ description: "Single use, within ten minutes." }),
						file: Type.Object({ name: Type.String(), type: Type.String(), size: Type.Integer() }),
					}),
					...errors(400, 404, 429),
				},
			},
		},
		async (request, reply) => {
			reply.header("cache-control", "no-store");
			return grantFile(db, request.body, app.clock.now());
		},
	);
};
