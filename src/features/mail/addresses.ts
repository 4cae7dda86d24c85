// Address and header checks (docs/operations.md "Rate limits and address checks"): RFC 5321
// lengths, the syntax of isValidEmail, no CR, LF or NUL in an address, a display name or a subject
// (header injection), display names of at most 100 characters. A refusal is 400
// `mail_address_invalid` naming the field; nothing is queued.
import { AppError } from "../../http/errors.ts";
import { isValidEmail, normalizeEmail } from "../../lib/email.ts";

export const NAME_MAX = 100;
// Any control character (C0, DEL, C1) or a line/paragraph separator could break a header line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

const refuse = (field: string, why: string) =>
	new AppError("mail_address_invalid", `${field} ${why}`, { extra: { field } });

/** The normalised address, or 400 naming `field`. */
export function checkAddress(field: string, value: string): string {
	if (CONTROL.test(value)) throw refuse(field, "must not hold line breaks or control characters");
	const address = normalizeEmail(value);
	const local = address.slice(0, address.lastIndexOf("@"));
	if (address.length > 254 || local.length > 64 || !isValidEmail(address)) {
		throw refuse(field, "must be an e-mail address (local part at most 64, whole at most 254 characters)");
	}
	return address;
}

/** A display name: one line of at most 100 characters, or 400 naming `field`. */
export function checkDisplayName(field: string, value: string): string {
	const name = value.trim();
	if (CONTROL.test(name)) throw refuse(field, "must not hold line breaks or control characters");
	if (name.length > NAME_MAX) throw refuse(field, `must be at most ${NAME_MAX} characters`);
	return name;
}

/** Text that goes into a header the server writes (a subject): control characters become spaces. */
export function headerText(value: string, max = 200): string {
	return value.replace(new RegExp(CONTROL.source, "g"), " ").replace(/\s+/g, " ").trim().slice(0, max);
}
