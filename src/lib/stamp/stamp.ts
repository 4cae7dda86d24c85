// The stamping itself, in whichever thread calls it (the pool's workers do): bytes, type and line
// in, stamped bytes of the same type out.
import { NotWatermarkableError } from "./errors.ts";
import { stampImage } from "./image.ts";
import { oneLine } from "./line.ts";
import { stampPdf } from "./pdf.ts";
import { PDF_LIMITS, type PdfLimits } from "./pdf-scan.ts";

export { isStampable, STAMPABLE_TYPES, type StampableType } from "./types.ts";

export async function stampBytes(
	bytes: Uint8Array,
	type: string,
	line: string,
	limits: PdfLimits = PDF_LIMITS,
): Promise<Uint8Array> {
	const text = oneLine(line);
	if (text === "") throw new TypeError("the stamp line is empty");
	if (type === "application/pdf") return stampPdf(bytes, text, limits);
	if (type === "image/jpeg" || type === "image/png" || type === "image/webp") {
		return stampImage(bytes, type, text);
	}
	throw new NotWatermarkableError(`${type} files cannot be stamped`);
}
