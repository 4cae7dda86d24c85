// The keys people's vaults commonly use (docs/api.md "Fields: what an entry means", the table the
// share formats read), so a request's item keys meet the responder's entries: a template or request
// item labelled "Full name" or "Vollständiger Name" gets the key `full_name`, and the key field
// suggests these and the vault's own keys. docs/console.md "Keys".

export type KeyType = "text" | "email" | "phone" | "date" | "number" | "url" | "address" | "file";

export interface CommonKey {
	key: string;
	type: KeyType;
	/** Labels that mean this key, in English and German, lower case. */
	labels: string[];
}

export const COMMON_KEYS: readonly CommonKey[] = [
	{
		key: "full_name",
		type: "text",
		labels: [
			"full name",
			"name",
			"your name",
			"your full name",
			"vollständiger name",
			"ihr name",
			"name und vorname",
		],
	},
	{ key: "first_name", type: "text", labels: ["first name", "given name", "forename", "vorname"] },
	{
		key: "last_name",
		type: "text",
		labels: ["last name", "family name", "surname", "nachname", "familienname"],
	},
	{
		key: "email",
		type: "email",
		labels: [
			"email",
			"e-mail",
			"email address",
			"e-mail address",
			"your email",
			"e-mail-adresse",
			"ihre e-mail-adresse",
		],
	},
	{ key: "phone", type: "phone", labels: ["phone", "phone number", "telephone", "telefon", "telefonnummer"] },
	{
		key: "mobile",
		type: "phone",
		labels: ["mobile", "mobile phone", "mobile number", "cell phone", "handy", "mobilnummer"],
	},
	{
		key: "address",
		type: "address",
		labels: ["address", "postal address", "home address", "adresse", "anschrift", "postanschrift"],
	},
	{ key: "street", type: "text", labels: ["street", "street address", "straße", "strasse"] },
	{
		key: "postal_code",
		type: "text",
		labels: ["postal code", "postcode", "zip", "zip code", "plz", "postleitzahl"],
	},
	{ key: "city", type: "text", labels: ["city", "town", "ort", "stadt", "wohnort"] },
	{ key: "country", type: "text", labels: ["country", "land"] },
	{
		key: "birthdate",
		type: "date",
		labels: ["birthday", "date of birth", "birth date", "geburtstag", "geburtsdatum"],
	},
	{
		key: "organisation",
		type: "text",
		labels: ["organisation", "organization", "company", "employer", "firma", "arbeitgeber"],
	},
	{
		key: "website",
		type: "url",
		labels: ["website", "web address", "homepage", "webseite", "internetseite"],
	},
];

const BY_LABEL = new Map(COMMON_KEYS.flatMap((c) => c.labels.map((l) => [l, c] as const)));

function plain(text: string): string {
	return text
		.trim()
		.toLowerCase()
		.replace(/\s+/g, " ")
		.replace(/[:*?.]+$/, "");
}

/** The common key a label means ("Full name" -> full_name), if any. */
export function commonKeyOf(label: string): CommonKey | undefined {
	return BY_LABEL.get(plain(label));
}

/**
 * The key for a label until the person types their own: the common key it means, else the label
 * in a vault key's spelling ("Bank details" -> bank_details).
 */
export function keyFrom(label: string): string {
	const common = commonKeyOf(label);
	if (common) return common.key;
	return label
		.toLowerCase()
		.normalize("NFKD")
		.replace(/[\u0300-\u036f]/g, "")
		.replace(/[^a-z0-9]+/g, "_")
		.replace(/^_+|_+$/g, "")
		.slice(0, 64);
}

/** The keys a key field suggests: the common ones, then the vault's own not among them. */
export function suggestedKeys(vaultKeys: readonly string[]): string[] {
	const out = COMMON_KEYS.map((c) => c.key);
	for (const k of vaultKeys) if (!out.includes(k)) out.push(k);
	return out;
}
