// The owner's connections as the `connections` collection answers them (docs/api.md "Connected
// tools"), and the permission change of `POST /api/connections/{id}/permissions`.
import { collection, request } from "../../api.ts";
import type { Wire } from "../../wire.ts";

export type Connection = Wire<"Connection">;

export interface Permissions {
	allowRevoke: boolean;
	allowHandOver: boolean;
}

export const connections = collection<Connection>("connections");

/** Both permissions as they now stand. */
export async function setPermissions(id: string, permissions: Permissions): Promise<Permissions> {
	const { data } = await request<Permissions>(
		"POST",
		`/api/connections/${encodeURIComponent(id)}/permissions`,
		{
			body: permissions,
		},
	);
	return data;
}
