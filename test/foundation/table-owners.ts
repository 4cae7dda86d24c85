// Each table's owning feature (docs/architecture.md "Features and their tables"): checked against
// every write in src/features by table-ownership.test.ts, and written into docs/architecture.md by
// `npm run docs` (scripts/gen-docs.ts), so the doc and the check read one list.
import type { Database } from "../../src/db/schema.ts";

/** Each table's owning feature: the folder under src/features whose code alone writes it. */
export const OWNER: Record<keyof Database, string> = {
	server_keys: "server",
	accounts: "accounts",
	sessions: "accounts",
	workspaces: "workspaces",
	members: "workspaces",
	invitations: "invitations",
	passkeys: "passkeys",
	passkey_ceremonies: "passkeys",
	passkey_codes: "passkeys",
	passkey_tickets: "passkeys",
	api_keys: "apikeys",
	identities: "identity",
	identity_tombstones: "identity",
	challenges: "challenges",
	sections: "vault",
	records: "vault",
	templates: "vault",
	file_tokens: "vault",
	notifications: "notifications",
	notification_settings: "notifications",
	links: "shares",
	link_records: "shares",
	link_sections: "shares",
	link_tokens: "shares",
	link_reads: "shares",
	requests: "requests",
	request_answers: "answers",
	grant_tokens: "grants",
	peer_events: "grants",
	outbox: "callbacks",
	connections: "connections",
	connection_tokens: "connections",
	connection_grants: "connections",
	oidc_requests: "oidc",
	oidc_codes: "oidc",
	oidc_tokens: "oidc",
	oidc_links: "oidc",
	attestations: "attestations",
	status_entries: "attestations",
	verify_nonces: "attestations",
	credentials: "attestations",
	mail_outbox: "mail",
	mail_counters: "mail",
	notice_mails: "notifications",
	email_verifications: "accounts",
};

/** The owner table of docs/architecture.md: each feature once, in the list's order, with its tables. */
export function ownerTable(): string {
	const byFeature = new Map<string, string[]>();
	for (const [table, feature] of Object.entries(OWNER)) {
		byFeature.set(feature, [...(byFeature.get(feature) ?? []), table]);
	}
	const rows = [...byFeature].map(
		([f, tables]) => `| \`${f}\` | ${tables.map((t) => `\`${t}\``).join(", ")} |`,
	);
	return ["| feature | tables |", "| --- | --- |", ...rows].join("\n");
}
