// Strict ISO 8601 dates and instants. `Date.parse` takes `2030-02-30T00:00:00Z` and rolls it over
// to the 2nd of March; here every part must name a real calendar date and time of day, or the
// value is refused (undefined). Knows nothing of the app.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
	/^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|z|[+-]\d{2}:\d{2})?$/;

/** True when year, month and day name a day of the proleptic Gregorian calendar (29 February only in leap years). */
export function isCalendarDate(year: number, month: number, day: number): boolean {
	if (month < 1 || month > 12 || day < 1) return false;
	const d = new Date(Date.UTC(2000, month - 1, day));
	d.setUTCFullYear(year);
	return d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/**
 * Milliseconds of an ISO 8601 date-time with its zone (`Z` or `±hh:mm`), or of a date alone when
 * `dateOnly` is allowed (midnight UTC); `zoneless` allows a date-time without a zone, read as UTC.
 * Undefined for anything that is not one, or names a day or time that does not exist.
 */
export function parseIsoInstant(
	value: string,
	opts: { dateOnly?: boolean; zoneless?: boolean } = {},
): number | undefined {
	const d = DATE.exec(value);
	if (d) {
		if (!opts.dateOnly) return undefined;
		const [year, month, day] = [Number(d[1]), Number(d[2]), Number(d[3])];
		return isCalendarDate(year, month, day) ? Date.UTC(year, month - 1, day) : undefined;
	}
	const m = DATE_TIME.exec(value);
	if (!m) return undefined;
	const [year, month, day, hour, minute] = [1, 2, 3, 4, 5].map((i) => Number(m[i]));
	const second = Number(m[6] ?? 0);
	const fraction = Number(`0.${m[7] ?? "0"}`);
	const zone = m[8];
	if (zone === undefined && !opts.zoneless) return undefined;
	if (!isCalendarDate(year as number, month as number, day as number)) return undefined;
	if ((hour as number) > 23 || (minute as number) > 59 || second > 59) return undefined;
	let offset = 0;
	if (zone !== undefined && zone.toUpperCase() !== "Z") {
		const [oh, om] = [Number(zone.slice(1, 3)), Number(zone.slice(4, 6))];
		if (oh > 23 || om > 59) return undefined;
		offset = (zone.startsWith("-") ? -1 : 1) * (oh * 60 + om);
	}
	const utc = new Date(Date.UTC(2000, (month as number) - 1, day, hour, minute, second));
	utc.setUTCFullYear(year as number);
	return utc.getTime() + Math.floor(fraction * 1000) - offset * 60_000;
}
