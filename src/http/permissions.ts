// The permission catalogue (design file): each permission expands to the scopes an API key or a
// member's role carries. Scopes are `<resource>:<action>` with `*` for every action.
import { Type } from "typebox";
import { hasScope } from "../lib/scopes.ts";

export interface Permission {
	name: string;
	label: string;
	scopes: string[];
}

export const permissions: readonly Permission[] = [
	{ name: "vault:read", label: "Read vault records and sections", scopes: ["record:read", "section:read"] },
	{ name: "vault:write", label: "Change vault records and sections", scopes: ["record:*", "section:*"] },
	{ name: "vault:hidden", label: "See and change hidden vault entries", scopes: ["hidden:*"] },
	{ name: "links:read", label: "Read shares", scopes: ["link:read"] },
	{ name: "links:write", label: "Create, change and revoke shares", scopes: ["link:*"] },
	{ name: "requests:read", label: "Read requests and what they collected", scopes: ["request:read"] },
	{ name: "requests:write", label: "Create, change and close requests", scopes: ["request:*"] },
	{ name: "templates:read", label: "Read templates", scopes: ["template:read"] },
	{ name: "templates:write", label: "Create and change templates", scopes: ["template:*"] },
	{ name: "members:read", label: "Read the workspace's members", scopes: ["member:read"] },
	{ name: "members:write", label: "Invite, change and remove members", scopes: ["member:*"] },
	{ name: "identities:read", label: "Read identities and certificates", scopes: ["identity:read"] },
	{ name: "attestations:read", label: "Read attestations", scopes: ["attestation:read"] },
	{ name: "attestations:issue", label: "Issue attestations", scopes: ["attestation:*"] },
	{ name: "notifications:read", label: "Read and mark notifications", scopes: ["notification:*"] },
];

const byName = new Map(permissions.map((p) => [p.name, p]));

/** Permissions an API key may never carry: a key never opens the vault. */
export const VAULT_PERMISSIONS = new Set(["vault:read", "vault:write", "vault:hidden"]);
export const VAULT_SCOPES = new Set([
	"record:*",
	"section:*",
	"record:read",
	"section:read",
	"hidden:*",
	"hidden:read",
	"hidden:write",
]);

export function findPermission(name: string): Permission | undefined {
	return byName.get(name);
}

/** Expands permission names into the sorted, de-duplicated scope list stored with a key. */
export function expandPermissions(names: readonly string[]): string[] {
	const scopes = new Set<string>();
	for (const name of names) {
		for (const s of byName.get(name)?.scopes ?? []) scopes.add(s);
	}
	return [...scopes].sort();
}

/** The workspace roles, highest first (docs/api.md "Roles: who sees and does what"). */
export const ROLES = ["owner", "admin", "member", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** A role in a route schema (OpenAPI enum of the roles, highest first). */
export function RoleSchema(description?: string) {
	return Type.Union(
		[Type.Literal("owner"), Type.Literal("admin"), Type.Literal("member"), Type.Literal("viewer")],
		description === undefined ? {} : { description },
	);
}

const READS = [
	"vault:read",
	"links:read",
	"requests:read",
	"templates:read",
	"members:read",
	"identities:read",
	"attestations:read",
	"notifications:read",
];

/**
 * What each workspace role holds. Issuing attestations is for administrators only (spec rule 8);
 * hidden vault entries (`vault:hidden`) are seen by owners and admins only; a viewer reads what a
 * member reads and changes nothing of the workspace (its own notifications aside).
 */
export const rolePermissions: Record<Role, readonly string[]> = {
	owner: permissions.map((p) => p.name),
	admin: permissions.map((p) => p.name),
	member: permissions
		.map((p) => p.name)
		.filter((n) => n !== "attestations:issue" && n !== "members:write" && n !== "vault:hidden"),
	viewer: READS,
};

/**
 * Scopes a role holds outside the catalogue (never on an API key): certifying an identity in the
 * workspace is a change, so a viewer does not hold it.
 */
const roleOnlyScopes: Record<Role, readonly string[]> = {
	owner: ["identity:write"],
	admin: ["identity:write"],
	member: ["identity:write"],
	viewer: [],
};

export function isRole(role: string): role is Role {
	return (ROLES as readonly string[]).includes(role);
}

/** The scopes a workspace role holds; undefined for no membership. The one place a role is expanded. */
export function roleScopes(role: string | undefined): string[] | undefined {
	if (role === undefined) return undefined;
	if (!isRole(role)) return [];
	return [...new Set([...expandPermissions(rolePermissions[role]), ...roleOnlyScopes[role]])].sort();
}

/**
 * Whether the caller sees hidden vault entries (records with `hidden`, aliases of them, and the
 * shares that grant them): owners and admins, and API keys of owners and admins. Everyone else
 * meets them as if they did not exist.
 */
export function seesHidden(caller: { scopes: readonly string[] }): boolean {
	return hasScope(caller.scopes, "hidden:read");
}

/**
 * What a session of an answer-only account holds in any workspace, whatever its role: its vault (to
 * answer with entries and files), its shares but not new ones (`link:write` without `link:create`:
 * the answers it gave can be paused and revoked), and its notifications.
 */
export const ANSWER_ONLY_SCOPES: readonly string[] = [
	"record:*",
	"section:*",
	"link:read",
	"link:write",
	"notification:*",
];

/** The scopes of `role` an answer-only account keeps: those ANSWER_ONLY_SCOPES cover. */
export function answerOnlyScopes(role: string | undefined): string[] {
	const held = roleScopes(role) ?? [];
	const out = new Set<string>();
	for (const scope of ANSWER_ONLY_SCOPES) {
		const [resource] = scope.split(":");
		if (held.includes(scope) || held.includes(`${resource}:*`)) out.add(scope);
	}
	return [...out];
}
