// Sizes, fractions and file types in the reader's locale ("54 bytes", "1.2 MB", "1,2 MB", "45 %",
// "PDF document"). Sizes count in 1024s, as the server's MAX_FILE_SIZE usually does (104857600
// reads "100 MB", not "104.9 MB"). Bytes get a plural of our own: Intl's long unit names are not
// in every browser's locale data ("54 byte").
import type { Locale } from "../../i18n/index.ts";

const UNITS = ["byte", "kilobyte", "megabyte", "gigabyte", "terabyte"] as const;
const BYTES: Record<Locale, { one: string; other: string }> = {
	en: { one: "byte", other: "bytes" },
	de: { one: "Byte", other: "Byte" },
};

export function formatSize(bytes: number, lang: Locale): string {
	if (bytes < 1024) {
		const words = BYTES[lang];
		const count = new Intl.NumberFormat(lang, { maximumFractionDigits: 0 }).format(bytes);
		return `${count} ${new Intl.PluralRules(lang).select(bytes) === "one" ? words.one : words.other}`;
	}
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < UNITS.length - 1) {
		value /= 1024;
		unit++;
	}
	return new Intl.NumberFormat(lang, {
		style: "unit",
		unit: UNITS[unit],
		unitDisplay: "short",
		maximumFractionDigits: 1,
	}).format(value);
}

export function formatPercent(fraction: number, lang: Locale): string {
	return new Intl.NumberFormat(lang, { style: "percent", maximumFractionDigits: 0 }).format(fraction);
}

/** Media types people know by name; others are named by their family (image, text) or as a file. */
const KINDS: Record<string, Record<Locale, string>> = {
	"application/pdf": { en: "PDF document", de: "PDF-Dokument" },
	"image/jpeg": { en: "JPEG image", de: "JPEG-Bild" },
	"image/png": { en: "PNG image", de: "PNG-Bild" },
	"image/gif": { en: "GIF image", de: "GIF-Bild" },
	"image/webp": { en: "WebP image", de: "WebP-Bild" },
	"image/heic": { en: "HEIC photo", de: "HEIC-Foto" },
	"image/svg+xml": { en: "SVG drawing", de: "SVG-Grafik" },
	"text/plain": { en: "Text file", de: "Textdatei" },
	"text/csv": { en: "CSV table", de: "CSV-Tabelle" },
	"text/vcard": { en: "Contact card", de: "Kontaktkarte" },
	"text/calendar": { en: "Calendar file", de: "Kalenderdatei" },
	"application/zip": { en: "ZIP archive", de: "ZIP-Archiv" },
	"application/msword": { en: "Word document", de: "Word-Dokument" },
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": {
		en: "Word document",
		de: "Word-Dokument",
	},
	"application/vnd.ms-excel": { en: "Excel spreadsheet", de: "Excel-Tabelle" },
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": {
		en: "Excel spreadsheet",
		de: "Excel-Tabelle",
	},
	"application/vnd.oasis.opendocument.text": { en: "OpenDocument text", de: "OpenDocument-Text" },
	"application/vnd.oasis.opendocument.spreadsheet": {
		en: "OpenDocument spreadsheet",
		de: "OpenDocument-Tabelle",
	},
	"application/json": { en: "JSON file", de: "JSON-Datei" },
};
const FAMILIES: Record<string, Record<Locale, string>> = {
	image: { en: "Image", de: "Bild" },
	text: { en: "Text file", de: "Textdatei" },
	audio: { en: "Audio file", de: "Audiodatei" },
	video: { en: "Video", de: "Video" },
};
const ANY: Record<Locale, string> = { en: "File", de: "Datei" };

/** A file's media type in words: "application/pdf" -> "PDF document" ("PDF-Dokument"). */
export function fileKind(mediaType: string, lang: Locale): string {
	const type = mediaType.split(";")[0]?.trim().toLowerCase() ?? "";
	const family = type.split("/")[0] ?? "";
	return (KINDS[type] ?? FAMILIES[family] ?? ANY)[lang];
}
