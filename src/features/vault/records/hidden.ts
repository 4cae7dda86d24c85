// Which records members and viewers never meet, as one SQL condition on `records`: a hidden record,
// and an alias of one (an alias reads its target's value). The vault's lists leave them out, and
// shares blank or refuse what grants them (shares/store.ts).
import type { ExpressionBuilder } from "kysely";
import type { Database } from "../../../db/schema.ts";

/** A record members and viewers never meet: hidden, or an alias reading a hidden record's value. */
export function hiddenForMembers(eb: ExpressionBuilder<Database, "records">) {
	return eb.or([
		eb("records.hidden", "=", 1),
		// Only an alias looks its target up: most records are none.
		eb.and([
			eb("records.alias", "is not", null),
			eb.exists(
				eb
					.selectFrom("records as target")
					.select("target.id")
					.whereRef("target.id", "=", "records.alias")
					.where("target.hidden", "=", 1),
			),
		]),
	]);
}
