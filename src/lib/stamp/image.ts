// Stamps a raster image: a semi-opaque white band along the bottom edge with the line rendered by
// Pango into it, sized to the image and composited into the pixels. The image is first turned
// upright by its EXIF orientation so the band is at the bottom as the reader sees it; the format
// is kept. Metadata (EXIF, XMP) is not carried over and colours are converted to sRGB.
import sharp, { type Metadata, type SharpOptions } from "sharp";
import { NotWatermarkableError } from "./errors.ts";

export type ImageType = "image/jpeg" | "image/png" | "image/webp";

const FORMAT: Record<ImageType, string> = { "image/jpeg": "jpeg", "image/png": "png", "image/webp": "webp" };

// "error" refuses truncated or corrupt pixel data but not the harmless warnings many cameras cause.
// Only the first frame of an animation is read.
const READ: SharpOptions = { failOn: "error", limitInputPixels: 100_000_000 };

/** Smallest image a legible stamp fits on. */
const MIN_WIDTH = 32;
const MIN_HEIGHT = 24;

export async function stampImage(input: Uint8Array, type: ImageType, line: string): Promise<Buffer> {
	let meta: Metadata;
	try {
		meta = await sharp(input, READ).metadata();
	} catch {
		throw new NotWatermarkableError("the image cannot be decoded");
	}
	if (meta.format !== FORMAT[type]) throw new NotWatermarkableError(`the bytes are not ${type}`);
	const turned = (meta.orientation ?? 1) >= 5;
	const W = (turned ? meta.height : meta.width) ?? 0;
	const H = (turned ? meta.width : meta.height) ?? 0;
	if (W < MIN_WIDTH || H < MIN_HEIGHT) throw new NotWatermarkableError("the image is too small to stamp");

	const band = Math.min(H, Math.max(16, Math.round(Math.min(W, H) * 0.05)));
	const pad = Math.max(2, Math.round(band * 0.25));
	const text = await renderLine(line, W - 2 * pad, band - 2 * pad);

	const image = sharp(input, READ)
		.rotate()
		.composite([
			{
				input: {
					create: {
						width: W,
						height: band,
						channels: 4,
						background: { r: 255, g: 255, b: 255, alpha: 0.75 },
					},
				},
				left: 0,
				top: H - band,
			},
			{
				input: text.data,
				left: Math.max(0, Math.round((W - text.width) / 2)),
				top: Math.max(0, H - band + Math.round((band - text.height) / 2)),
			},
		]);
	if (type === "image/jpeg") image.jpeg({ quality: 90 });
	else if (type === "image/png") image.png();
	else image.webp({ quality: 90 });
	try {
		return await image.toBuffer();
	} catch {
		// The header read fine but the pixel data is truncated or corrupt.
		throw new NotWatermarkableError("the image cannot be decoded");
	}
}

/** The line as dark text on transparency, fitted into width × height (Pango picks the size). */
async function renderLine(line: string, width: number, height: number) {
	const { data, info } = await sharp({
		text: {
			text: `<span foreground="#111111">${escapeMarkup(line)}</span>`,
			font: "sans",
			width,
			height,
			wrap: "none",
			rgba: true,
		},
	})
		.png()
		.toBuffer({ resolveWithObject: true });
	// Without any font installed Pango draws nothing: never hand out an unmarked copy as stamped.
	const alpha = (await sharp(data).stats()).channels[3];
	if (!alpha || alpha.max === 0)
		throw new Error("stamping images needs a system font (fontconfig found none)");
	return { data, width: info.width, height: info.height };
}

/** The line is Pango markup inside the span: escape it so `<b>` or `&` are drawn, not read. */
function escapeMarkup(s: string): string {
	return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
