// Schemas shared by the public share and request pages: who shares, and which server speaks.
import { Type } from "typebox";

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
