// A workspace as the `workspaces` collection answers it (docs/api.md "Workspaces").
import { collection } from "../../api.ts";
import type { Wire } from "../../wire.ts";

export type Workspace = Wire<"Workspace">;

export const workspaces = collection<Workspace>("workspaces");
