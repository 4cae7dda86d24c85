// The share's dates as iCalendar (RFC 5545): one VEVENT per entry holding a date (all day) or a
// date-time, a birthday recurring yearly. Each event's UID is the record's, so a calendar that
// reads the share again updates its events instead of adding them twice.
import { contentLine, document, escapeText } from "./content-line.ts";
import type { DateValue } from "./fields.ts";
import type { ShareModel } from "./model.ts";
import { basicDate, stamp } from "./vcard.ts";

/** The day after a calendar date, for an all-day event's exclusive end. */
function nextDay(date: Extract<DateValue, { kind: "date" }>): string {
	const d = new Date(Date.UTC(date.year, date.month - 1, date.day + 1));
	return basicDate({
		kind: "date",
		year: d.getUTCFullYear(),
		month: d.getUTCMonth() + 1,
		day: d.getUTCDate(),
	});
}

export function renderIcal(model: ShareModel): string {
	const domain = model.server.domain;
	const title = model.label || model.sharer.name;
	const lines = [
		"BEGIN:VCALENDAR",
		"VERSION:2.0",
		contentLine("PRODID", escapeText(`-//${domain}//share//EN`)),
		"CALSCALE:GREGORIAN",
		// RFC 7986's NAME, and the name most calendar programs read.
		contentLine("NAME", escapeText(title)),
		contentLine("X-WR-CALNAME", escapeText(title)),
	];
	for (const e of model.entries) {
		if (!e.date || e.value === null) continue;
		lines.push(
			"BEGIN:VEVENT",
			contentLine("UID", escapeText(`${e.id}@${domain}`)),
			contentLine("DTSTAMP", stamp(e.updated)),
			contentLine("LAST-MODIFIED", stamp(e.updated)),
			`SEQUENCE:${Math.max(0, e.version - 1)}`,
		);
		if (e.date.kind === "date") {
			lines.push(
				contentLine("DTSTART", basicDate(e.date), ["VALUE=DATE"]),
				contentLine("DTEND", nextDay(e.date), ["VALUE=DATE"]),
				"TRANSP:TRANSPARENT",
			);
		} else {
			lines.push(contentLine("DTSTART", basicDate(e.date)));
		}
		if (e.field === "birthday") lines.push("RRULE:FREQ=YEARLY");
		lines.push(
			contentLine("SUMMARY", escapeText(e.name || e.key)),
			contentLine("DESCRIPTION", escapeText(title)),
			"END:VEVENT",
		);
	}
	lines.push("END:VCALENDAR");
	return document(lines);
}
