// What the public pages of shares and requests say about who speaks: the server (its domain, root
// key fingerprint and origin, to walk the DNS chain against) and the sharer or requester.
import { type Static, Type } from "typebox";
import { type Config, publicOrigin } from "../../config.ts";

export const ServerClaim = Type.Object(
	{
		domain: Type.String(),
		fingerprint: Type.String({
			description: "Lowercase hex SHA-256 of the root key's SPKI DER (the DNS pin).",
		}),
		origin: Type.String({ description: "The address the server answers at." }),
	},
	{
		$id: "ServerClaim",
		description: "The server speaking: check `fingerprint` against the TXT record at `_svc.<domain>`.",
	},
);
export type ServerClaim = Static<typeof ServerClaim>;

export function serverClaim(config: Pick<Config, "domain" | "port">, fingerprint: string): ServerClaim {
	return { domain: config.domain, fingerprint, origin: publicOrigin(config) };
}

export const Sharer = Type.Object(
	{
		name: Type.String({ description: "The sharing workspace's name." }),
		domain: Type.String({ description: "The server's domain." }),
		identity: Type.Optional(
			Type.Object({
				id: Type.String(),
				fingerprint: Type.String(),
				name: Type.String(),
			}),
		),
	},
	{
		$id: "Sharer",
		description: "Who shares (or requests): present `identity` only when the share is made under one.",
	},
);
export type Sharer = Static<typeof Sharer>;

/** The sharer (or requester) claim: the workspace's name, and its identity when one is named and known. */
export function sharerOf(
	row: {
		name: string;
		identity: string | null;
		identity_fingerprint: string | null;
		identity_name: string | null;
	},
	server: ServerClaim,
): Sharer {
	return {
		name: row.name,
		domain: server.domain,
		...(row.identity && row.identity_fingerprint
			? {
					identity: {
						id: row.identity,
						fingerprint: row.identity_fingerprint,
						name: row.identity_name ?? "",
					},
				}
			: {}),
	};
}
