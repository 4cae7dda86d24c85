// Shares and hidden entries (docs/api.md "Roles: who sees and does what"): members and viewers never
// meet a hidden record, so they cannot name one in a share, share a section holding one, or change
// or delete a share holding one. Owners and admins (`vault:hidden`) are not checked here at all.
import { AppError } from "../../http/errors.ts";
import { seesHidden } from "../../http/permissions.ts";
import { invalidField } from "../collections/fields.ts";
import type { OperationContext } from "../collections/registry.ts";
import * as store from "./store.ts";

function refuseHidden(message: string): AppError {
	return new AppError("forbidden", message, { extra: { scope: "hidden:write" } });
}

/** A hidden record reads as unknown; a section holding one is not a member's to share. */
export async function refuseHiddenGrants(
	ctx: OperationContext,
	input: { records?: readonly string[]; sections?: readonly string[] },
): Promise<void> {
	if (seesHidden(ctx.caller)) return;
	if (input.records && (await store.hiddenRecordIds(ctx.db, input.records)).size > 0) {
		throw invalidField("records", "must name records of this workspace");
	}
	if (input.sections && (await store.sectionsHoldingHidden(ctx.db, input.sections))) {
		throw refuseHidden("This section holds entries only owners and admins see: they share it");
	}
}

/** A share granting a hidden entry is changed (or deleted) only by those who see hidden entries. */
export async function refuseHiddenShare(ctx: OperationContext, row: { id: string }): Promise<void> {
	if (seesHidden(ctx.caller)) return;
	if ((await store.linksHoldingHidden(ctx.db, [row.id])).size > 0) {
		throw refuseHidden("This share holds entries only owners and admins see: they change it");
	}
}
