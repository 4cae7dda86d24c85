// The one form of an email address stored and compared, and the check of its shape (accounts,
// passkey sign-up and invitations all take addresses).

/** Lower-cased and trimmed; the one form stored and compared. */
export function normalizeEmail(email: string): string {
	return email.trim().toLowerCase();
}

// Deliberately simple (WHATWG's form check): one @, a dot in the domain, no spaces, sane lengths.
const EMAIL =
	/^[a-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export function isValidEmail(email: string): boolean {
	return email.length <= 254 && EMAIL.test(email);
}
