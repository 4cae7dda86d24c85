// Reads what a person wants to see in an X.509 certificate (PEM): issuer, subject, serial and
// validity, and the SHA-256 of its public key (the identity's fingerprint). A small DER reader,
// enough for the certificates this server issues; anything it cannot read gives null.
import { hex } from "./keys.ts";

export interface CertificateFacts {
	subject: string;
	issuer: string;
	serial: string;
	notBefore: string;
	notAfter: string;
	/** SHA-256 of the certificate's SubjectPublicKeyInfo, lowercase hex. */
	fingerprint: string;
}

interface Node {
	tag: number;
	/** The whole element, header included. */
	start: number;
	/** The contents. */
	body: number;
	end: number;
}

function readNode(der: Uint8Array, at: number): Node {
	const tag = der[at] ?? 0;
	let length = der[at + 1] ?? 0;
	let body = at + 2;
	if (length & 0x80) {
		const count = length & 0x7f;
		if (count < 1 || count > 4) throw new Error("bad DER length");
		length = 0;
		for (let i = 0; i < count; i++) length = length * 256 + (der[body + i] ?? 0);
		body += count;
	}
	const end = body + length;
	if (end > der.length) throw new Error("truncated DER");
	return { tag, start: at, body, end };
}

function children(der: Uint8Array, node: Node): Node[] {
	const out: Node[] = [];
	for (let at = node.body; at < node.end; ) {
		const child = readNode(der, at);
		out.push(child);
		at = child.end;
	}
	return out;
}

function oid(bytes: Uint8Array): string {
	const first = bytes[0] ?? 0;
	const parts = [Math.floor(first / 40), first % 40];
	let value = 0;
	for (const b of bytes.subarray(1)) {
		value = value * 128 + (b & 0x7f);
		if (!(b & 0x80)) {
			parts.push(value);
			value = 0;
		}
	}
	return parts.join(".");
}

const NAMES: Record<string, string> = {
	"2.5.4.3": "CN",
	"2.5.4.6": "C",
	"2.5.4.7": "L",
	"2.5.4.8": "ST",
	"2.5.4.10": "O",
	"2.5.4.11": "OU",
};

/** A Name as `CN=…, O=…`. */
function name(der: Uint8Array, node: Node): string {
	const parts: string[] = [];
	for (const set of children(der, node)) {
		for (const pair of children(der, set)) {
			const [type, value] = children(der, pair);
			if (!type || !value) continue;
			const key = oid(der.subarray(type.body, type.end));
			const text = new TextDecoder().decode(der.subarray(value.body, value.end));
			parts.push(`${NAMES[key] ?? key}=${text}`);
		}
	}
	return parts.join(", ");
}

/** UTCTime (YYMMDDHHMMSSZ) or GeneralizedTime (YYYYMMDDHHMMSSZ) as ISO 8601. */
function time(der: Uint8Array, node: Node): string {
	const text = new TextDecoder().decode(der.subarray(node.body, node.end));
	const full = node.tag === 0x17 ? `${Number(text.slice(0, 2)) >= 50 ? "19" : "20"}${text}` : text;
	const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(full);
	if (!m) throw new Error("bad time");
	return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`;
}

export function pemToDer(pem: string): Uint8Array {
	const base64 = pem.replace(/-----(BEGIN|END) [A-Z ]+-----/g, "").replace(/\s+/g, "");
	return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

export async function readCertificate(pem: string): Promise<CertificateFacts | null> {
	try {
		const der = pemToDer(pem);
		const [tbs] = children(der, readNode(der, 0));
		if (!tbs) return null;
		const fields = children(der, tbs);
		// An explicit version ([0]) comes first when present.
		const rest = fields[0]?.tag === 0xa0 ? fields.slice(1) : fields;
		const [serial, , issuer, validity, subject, spki] = rest;
		if (!serial || !issuer || !validity || !subject || !spki) return null;
		const [notBefore, notAfter] = children(der, validity);
		if (!notBefore || !notAfter) return null;
		const digest = await crypto.subtle.digest("SHA-256", der.slice(spki.start, spki.end));
		return {
			subject: name(der, subject),
			issuer: name(der, issuer),
			serial: hex(der.subarray(serial.body, serial.end)).replace(/^00(?=[89a-f])/, ""),
			notBefore: time(der, notBefore),
			notAfter: time(der, notAfter),
			fingerprint: hex(digest),
		};
	} catch {
		return null;
	}
}
