// Sizes and fractions in the reader's locale ("1.2 MB", "1,2 MB", "45 %"). Sizes count in 1024s,
// as the server's MAX_FILE_SIZE usually does (104857600 reads "100 MB", not "104.9 MB").
import type { Locale } from "../../i18n/index.ts";

const UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;

export function formatSize(bytes: number, lang: Locale): string {
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < UNITS.length - 1) {
		value /= 1024;
		unit++;
	}
	return new Intl.NumberFormat(lang, {
		style: "unit",
		unit: UNITS[unit],
		unitDisplay: unit === 0 ? "long" : "short",
		maximumFractionDigits: unit === 0 ? 0 : 1,
	}).format(value);
}

export function formatPercent(fraction: number, lang: Locale): string {
	return new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }).format(fraction);
}
