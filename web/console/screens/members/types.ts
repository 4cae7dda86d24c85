// A workspace's members and invitations as their collections answer them.
import { collection } from "../../api.ts";
import type { Wire } from "../../wire.ts";

export type Role = "owner" | "admin" | "member" | "viewer";

/** Every role, highest first. */
export const ROLES: Role[] = ["owner", "admin", "member", "viewer"];

export type Member = Wire<"Member">;

export type Invitation = Wire<"Invitation">;

export const members = collection<Member>("members");
export const invitations = collection<Invitation>("invitations");
/** A role may grant or act on the roles at or below its own. */
export const RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };
