// Vault keys made from people's words: a contact's name becomes its section's key, a CSV's section
// name too. Lower case, accents dropped, anything else a `-`, at most 64 characters.

export function keyFrom(text: string, fallback: string): string {
	const key = text
		.normalize("NFKD")
		.replace(/\p{M}/gu, "")
		.toLowerCase()
		.replace(/ß/g, "ss")
		.replace(/[^a-z0-9_-]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 64)
		.replace(/-+$/, "");
	return key || fallback;
}

/** `key`, or `key-2`, `key-3`, … when it is taken; the answer is added to `taken`. */
export function uniqueKey(key: string, taken: Set<string>): string {
	let candidate = key;
	for (let n = 2; taken.has(candidate); n++) {
		const suffix = `-${n}`;
		candidate = `${key.slice(0, 64 - suffix.length)}${suffix}`;
	}
	taken.add(candidate);
	return candidate;
}
