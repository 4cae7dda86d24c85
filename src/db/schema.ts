// Typed tables (kysely's `user.table.ts` habit). Times are integer milliseconds since the epoch in
// both dialects so `updated` is exact and cheap to compare; booleans are 0/1 integers; JSON is text.
// Each area's tables sit in ./tables/; this file joins them into the one Database type Kysely takes.

import type {
	AttestationTable,
	CredentialTable,
	StatusEntryTable,
	VerifyNonceTable,
} from "./tables/attestations.ts";
import type {
	ConnectionGrantTable,
	ConnectionTable,
	ConnectionTokenTable,
	MailCounterTable,
	MailOutboxTable,
	OutboxTable,
	PeerEventTable,
} from "./tables/delivery.ts";
import type { OidcCodeTable, OidcLinkTable, OidcRequestTable, OidcTokenTable } from "./tables/oidc.ts";
import type {
	AccountTable,
	ApiKeyTable,
	ChallengeTable,
	EmailVerificationTable,
	IdentityTable,
	IdentityTombstoneTable,
	InvitationTable,
	MemberTable,
	PasskeyCeremonyTable,
	PasskeyCodeTable,
	PasskeyTable,
	PasskeyTicketTable,
	ServerKeyTable,
	SessionTable,
	WorkspaceTable,
} from "./tables/people.ts";
import type { GrantTokenTable, RequestAnswerTable, RequestTable } from "./tables/requests.ts";
import type {
	LinkReadTable,
	LinkRecordTable,
	LinkSectionTable,
	LinkTable,
	LinkTokenTable,
} from "./tables/shares.ts";
import type {
	FileTokenTable,
	NoticeMailTable,
	NotificationSettingTable,
	NotificationTable,
	RecordTable,
	SectionTable,
	TemplateTable,
} from "./tables/vault.ts";

export type * from "./tables/attestations.ts";
export type * from "./tables/delivery.ts";
export type * from "./tables/oidc.ts";
export type * from "./tables/people.ts";
export type * from "./tables/requests.ts";
export type * from "./tables/shares.ts";
export type * from "./tables/vault.ts";

export interface Database {
	server_keys: ServerKeyTable;
	accounts: AccountTable;
	workspaces: WorkspaceTable;
	members: MemberTable;
	invitations: InvitationTable;
	sessions: SessionTable;
	passkeys: PasskeyTable;
	passkey_ceremonies: PasskeyCeremonyTable;
	passkey_codes: PasskeyCodeTable;
	passkey_tickets: PasskeyTicketTable;
	api_keys: ApiKeyTable;
	identities: IdentityTable;
	identity_tombstones: IdentityTombstoneTable;
	challenges: ChallengeTable;
	sections: SectionTable;
	records: RecordTable;
	templates: TemplateTable;
	notifications: NotificationTable;
	notification_settings: NotificationSettingTable;
	file_tokens: FileTokenTable;
	requests: RequestTable;
	request_answers: RequestAnswerTable;
	outbox: OutboxTable;
	links: LinkTable;
	link_records: LinkRecordTable;
	link_sections: LinkSectionTable;
	link_tokens: LinkTokenTable;
	link_reads: LinkReadTable;
	connections: ConnectionTable;
	connection_tokens: ConnectionTokenTable;
	connection_grants: ConnectionGrantTable;
	grant_tokens: GrantTokenTable;
	peer_events: PeerEventTable;
	oidc_requests: OidcRequestTable;
	oidc_codes: OidcCodeTable;
	oidc_tokens: OidcTokenTable;
	oidc_links: OidcLinkTable;
	attestations: AttestationTable;
	status_entries: StatusEntryTable;
	verify_nonces: VerifyNonceTable;
	credentials: CredentialTable;
	mail_outbox: MailOutboxTable;
	mail_counters: MailCounterTable;
	notice_mails: NoticeMailTable;
	email_verifications: EmailVerificationTable;
}
