// A workspace as the `workspaces` collection answers it (docs/api.md "Workspaces").
import { collection } from "../../api.ts";

export interface Workspace {
	id: string;
	name: string;
	owner: string;
	personal: boolean;
	role: "owner" | "admin" | "member" | "viewer";
	active: boolean;
	created: string;
	updated: string;
}

export const workspaces = collection<Workspace>("workspaces");
