// Which data formats the share page offers (issue 39.5): each only when it has something to carry.
// A format asked for directly (`?format=`, `Accept`, the addressbook) still answers as the spec
// says; this decides only what the page shows.
import type { ShareModel } from "./model.ts";
import type { Format } from "./negotiate.ts";
import { cardProperties } from "./vcard.ts";

export type DataFormat = Exclude<Format, "html">;

/** Properties every card has whatever the share holds (the name falls back to the sharer's). */
const ALWAYS = new Set(["VERSION", "PRODID", "UID", "FN", "REV", "NOTE"]);

const CARRIES: Record<DataFormat, (model: ShareModel) => boolean> = {
	// A row per value; a share of files alone would be a list of names.
	csv: (m) => m.entries.some((e) => e.value !== null),
	// A contact: a name, an email, a phone, an address, an organisation, a web address or a birthday.
	vcf: (m) =>
		m.entries.some((e) => e.value !== null && e.field === "name") ||
		cardProperties(m).some((p) => !ALWAYS.has(p.name)),
	// An event per date.
	ics: (m) => m.entries.some((e) => e.value !== null && e.date !== undefined),
};

/** The data formats worth offering for this read of the share, in the order of FORMATS. */
export function offeredFormats(model: ShareModel): DataFormat[] {
	return (Object.keys(CARRIES) as DataFormat[]).filter((f) => CARRIES[f](model));
}
