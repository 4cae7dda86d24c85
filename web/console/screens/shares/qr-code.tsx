// A QR code of a text (the share link) drawn as inline SVG elements by Preact, from the modules
// qrcode-generator computes: no inline style (the CSP refuses it), an accessible name, and a
// quiet zone of four modules around it as the standard asks.

import { useMemo } from "preact/hooks";
import qrcode from "qrcode-generator";

const QUIET = 4;

/** The dark modules as one SVG path, one unit square each. */
function modulesPath(text: string): { size: number; d: string } {
	const qr = qrcode(0, "M");
	qr.addData(text);
	qr.make();
	const count = qr.getModuleCount();
	const parts: string[] = [];
	for (let row = 0; row < count; row++) {
		for (let col = 0; col < count; col++) {
			if (qr.isDark(row, col)) parts.push(`M${col + QUIET} ${row + QUIET}h1v1h-1z`);
		}
	}
	return { size: count + 2 * QUIET, d: parts.join("") };
}

export function QrCode({ text, label }: { text: string; label: string }) {
	const { size, d } = useMemo(() => modulesPath(text), [text]);
	return (
		<svg
			class="share-qr"
			role="img"
			aria-label={label}
			viewBox={`0 0 ${size} ${size}`}
			shape-rendering="crispEdges"
			xmlns="http://www.w3.org/2000/svg"
		>
			<rect width={size} height={size} fill="#ffffff" />
			<path d={d} fill="#000000" />
		</svg>
	);
}
