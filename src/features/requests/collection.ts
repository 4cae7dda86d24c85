// The `requests` collection: what the active workspace asks responders for. Open to API keys
// holding `requests:read` / `requests:write` (requests are not the vault). The slug is minted here
// and read-only; the password is write-only (only `requiresPassword` is served).
import { sql } from "kysely";
import { type Static, Type } from "typebox";
import type { RequestTable } from "../../db/schema.ts";
import { CALLBACK_URL_MAX, type CallbackPolicy } from "../callbacks/service.ts";
import { Nullable, Timestamp } from "../collections/fields.ts";
import { defineCollection } from "../collections/registry.ts";
import { TEMPLATE_MAX_ITEMS, TemplateItem } from "../vault/templates/service.ts";
import { createRequest, type RequestInput, requestRecord, updateRequest } from "./service.ts";
import * as store from "./store.ts";

const StoredStatus = Type.Union([Type.Literal("open"), Type.Literal("closed")], {
	description: "`open` takes answers; `closed` refuses them. Either may be set again at any time.",
});
const Scope = Type.Union([Type.Literal("any"), Type.Literal("from_root")], {
	description:
		"`any`: a proven identity of any server whose DNS-pinned root key certified it; `from_root`: only identities certified by the root key of the server the answer is kept on (this server's for a local answer, which names its identity by this server's `identityId` anyway; the relaying server's for a remote answer). Applies when `requireHandshake` is set.",
});

export const Request = Type.Object(
	{
		id: Type.String(),
		workspace: Type.String(),
		slug: Type.String({
			description: "The capability responders open (`/api/public/requests/{slug}`); minted here, read-only.",
		}),
		label: Type.String({ description: "1 to 200 characters, trimmed." }),
		status: Type.Union([Type.Literal("open"), Type.Literal("closed"), Type.Literal("expired")], {
			description: "`open`, `closed`, or `expired` (read-only: an open request at or past `expiresAt`).",
		}),
		items: Type.Array(TemplateItem, { description: "What the request asks for (the probe's `template`)." }),
		template: Nullable(Type.String(), "The template `items` were copied from; null when listed inline."),
		requiresPassword: Type.Boolean({
			description: "A password is set; the password itself is never served.",
		}),
		requiresIdentifier: Type.Boolean({ description: "A responder must enter an identifier." }),
		requireHandshake: Type.Boolean({
			description: "A responder must prove an identity with a signed challenge.",
		}),
		allowExtraFields: Type.Boolean({ description: "A responder may add fields the template does not list." }),
		identityScope: Scope,
		identity: Nullable(
			Type.String(),
			"The identity the request is made under (shown as `requester.identity`).",
		),
		expiresAt: Nullable(
			Timestamp("From this instant on the request reads as `expired`."),
			"Null: no expiry.",
		),
		callbackUrl: Nullable(Type.String(), "Receives submissions and grant events; null for none."),
		allowAnswerSignup: Type.Boolean({
			description:
				"A responder without an account may create an answer-only account here to answer (a passkey sign-up, even with sign-ups off, unless the operator forbids it with `ALLOW_ANSWER_SIGNUPS=false`). Default false.",
		}),
		answerSignupLimit: Type.Integer({
			description:
				"At most this many answer-only accounts may be created through this request's answer link (1 to 1000, default 20); past it a sign-up is refused with 403 `answer_signup_limit_reached`.",
		}),
		answerSignups: Type.Integer({
			description:
				"Answer-only accounts created through this request so far (read-only; an account deleted later still counts).",
		}),
		created: Timestamp("Creation time."),
		updated: Timestamp("Time of the last change."),
	},
	{ $id: "Request", description: "A data request (`requests` collection); never the password." },
);

const writable = {
	label: Type.String({ minLength: 1, maxLength: 200 }),
	items: Type.Array(TemplateItem, {
		minItems: 1,
		maxItems: TEMPLATE_MAX_ITEMS,
		description: `1 to ${TEMPLATE_MAX_ITEMS} TemplateItems with distinct keys. Give \`items\` or \`template\`, not both.`,
	}),
	template: Type.String({
		minLength: 1,
		maxLength: 64,
		description:
			"Id of a template of this workspace whose items are copied now (later template edits do not change the request); needs `template:read`.",
	}),
	status: StoredStatus,
	password: Nullable(
		Type.String({ minLength: 1, maxLength: 256 }),
		"Write-only: 1 to 256 characters, kept as an scrypt hash; null removes it.",
	),
	requiresIdentifier: Type.Boolean({ description: "Default false." }),
	requireHandshake: Type.Boolean({ description: "Default false." }),
	allowExtraFields: Type.Boolean({ description: "Default false." }),
	identityScope: Scope,
	expiresAt: Nullable(Type.String({ maxLength: 64 }), "ISO 8601 date-time in the future; null: no expiry."),
	callbackUrl: Nullable(
		Type.String({ maxLength: CALLBACK_URL_MAX }),
		"Absolute http(s) URL allowed by the callback URL policy (400 `validation_callback_url_blocked` otherwise); null for none.",
	),
	identity: Nullable(Type.String({ maxLength: 64 }), "An identity of this workspace, or null."),
	allowAnswerSignup: Type.Boolean({ description: "Default false." }),
	answerSignupLimit: Type.Integer({
		minimum: 1,
		maximum: 1000,
		description:
			"Default 20. Lowering it below `answerSignups` admits no further sign-up; the accounts made stay.",
	}),
};

const optional = Object.fromEntries(Object.entries(writable).map(([k, v]) => [k, Type.Optional(v)])) as {
	[K in keyof typeof writable]: ReturnType<typeof Type.Optional<(typeof writable)[K]>>;
};

const RequestCreate = Type.Object(
	{ ...optional, label: writable.label },
	{ additionalProperties: false, description: "`label` and one of `items` or `template` are required." },
);
const RequestUpdate = Type.Object(optional, { additionalProperties: false });

type Create = Static<typeof RequestCreate> & RequestInput;
type Update = Static<typeof RequestUpdate> & RequestInput;

const rule = (scope: string) => ({ scope, apiKeys: true });

/** The callback URL policy: ALLOW_PRIVATE_CALLBACKS and the resolvers to check hosts with. */
export interface RequestDeps {
	callbackPolicy: CallbackPolicy;
}

export const requestsCollection = defineCollection<RequestTable, Create, Update, RequestDeps>({
	name: "requests",
	description:
		"Data requests of the active workspace. `status` is `open` or `closed` as set, and reads `expired` once `expiresAt` has passed; `slug` is minted at creation; the password is write-only.",
	schemas: { item: Request, create: RequestCreate, update: RequestUpdate },
	query: {
		id: { type: "text", expr: sql.ref("requests.id"), sort: true },
		label: { type: "text", expr: sql.ref("requests.label"), sort: true },
		slug: { type: "text", expr: sql.ref("requests.slug") },
		status: { type: "text", expr: sql.ref("requests.status"), sort: true },
		template: { type: "text", expr: sql.ref("requests.template"), nullable: true },
		expiresAt: { type: "date", expr: sql.ref("requests.expires_at"), nullable: true, sort: true },
		created: { type: "date", expr: sql.ref("requests.created"), sort: true },
		updated: { type: "date", expr: sql.ref("requests.updated"), sort: true },
	},
	defaultSort: "-created",
	access: {
		list: rule("request:read"),
		view: rule("request:read"),
		create: rule("request:write"),
		update: rule("request:write"),
		delete: rule("request:write"),
	},
	idColumn: "requests.id",
	select: (db, caller) => store.selectRequests(db, caller.workspaceId),
	toItem: requestRecord,
	handlers: {
		async create({ db, caller, now, callbackPolicy }, input) {
			return { id: await createRequest({ db, caller, now, policy: callbackPolicy }, input) };
		},
		async update({ db, caller, now, callbackPolicy }, row, input) {
			await updateRequest({ db, caller, now, policy: callbackPolicy }, row, input);
		},
		async delete({ db }, row) {
			await store.deleteRequest(db, row.id);
		},
	},
});
