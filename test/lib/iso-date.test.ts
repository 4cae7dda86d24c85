// Strict ISO 8601 parsing (issue 35.9): a day its month lacks, hour 24, minute or second 60 are
// refused, never rolled over as Date.parse does.
// Runs once, not per database: a parser, with no database.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isCalendarDate, parseIsoInstant } from "../../src/lib/iso-date.ts";

describe("parseIsoInstant", () => {
	test("instants that exist are read as Date.parse reads them", () => {
		for (const value of [
			"2030-01-31T00:00:00Z",
			"2028-02-29T23:59:59.999Z",
			"2030-12-31T10:20:30+02:00",
			"2030-06-01T05:00:00-07:30",
			"2030-06-01T05:00Z",
			"2000-02-29T12:00:00.123456Z",
		]) {
			assert.equal(parseIsoInstant(value), Date.parse(value), value);
		}
	});

	test("days, hours and zones that do not exist are refused, not rolled over", () => {
		for (const value of [
			"2030-02-30T00:00:00Z",
			"2030-02-29T00:00:00Z",
			"1900-02-29T00:00:00Z",
			"2030-04-31T00:00:00Z",
			"2030-13-01T00:00:00Z",
			"2030-00-10T00:00:00Z",
			"2030-01-00T00:00:00Z",
			"2030-01-01T24:00:00Z",
			"2030-01-01T10:60:00Z",
			"2030-01-01T10:00:60Z",
			"2030-01-01T10:00:00+24:00",
			"2030-01-01T10:00:00+01:60",
			"2030-01-01",
			"2030-01-01T10:00:00",
			"tomorrow",
			"",
		]) {
			assert.equal(parseIsoInstant(value), undefined, value);
		}
	});

	test("a date alone and a zone-less time only when asked for, as UTC", () => {
		assert.equal(parseIsoInstant("2030-01-01", { dateOnly: true }), Date.UTC(2030, 0, 1));
		assert.equal(parseIsoInstant("2030-02-30", { dateOnly: true }), undefined);
		assert.equal(parseIsoInstant("2030-01-01T10:00", { zoneless: true }), Date.UTC(2030, 0, 1, 10));
		assert.equal(parseIsoInstant("2030-01-01 10:00:05", { zoneless: true }), Date.UTC(2030, 0, 1, 10, 0, 5));
	});

	test("years below 100 are not read as 19xx", () => {
		assert.equal(isCalendarDate(4, 2, 29), true);
		assert.equal(new Date(parseIsoInstant("0050-03-01T00:00:00Z") as number).getUTCFullYear(), 50);
	});
});
