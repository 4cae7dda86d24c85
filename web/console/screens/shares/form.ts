// What the share forms have in common (new, copy, edit): the vault they pick from, the rules they
// check before asking the server (docs/api.md "Making and changing shares"), and a share's
// settings as the form's state.
import { hasScope } from "../../session.ts";
import type { Gates, Watermark } from "./create-fields.tsx";
import type { Picked } from "./entry-picker.tsx";
import {
	type Identity,
	identities,
	localToIso,
	records,
	type Section,
	type Share,
	sections,
	type VaultRecord,
} from "./types.ts";

export interface Vault {
	recordList: VaultRecord[];
	sectionList: Section[];
	identityList: Identity[];
}

export async function loadVault(): Promise<Vault> {
	const [recordList, sectionList, identityList] = await Promise.all([
		records.all({ sort: "name", fields: "id,key,name,type,section,hidden,file" }),
		sections.all({ sort: "ordering,created" }),
		hasScope("identity:read")
			? identities.all({ filter: 'status = "active"', sort: "name" })
			: Promise.resolve([]),
	]);
	return { recordList, sectionList, identityList };
}

/** The stamp's rule (docs/api.md "Making and changing shares"): one line, 1 to 120 characters. */
export function stampOk(text: string): boolean {
	const chars = [...text.trim()];
	const control = chars.some((c) => {
		const code = c.codePointAt(0) ?? 0;
		return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
	});
	return chars.length >= 1 && chars.length <= 120 && !control;
}

/** Moves the keyboard to the first field marked invalid once the errors are rendered. */
export function focusFirstInvalid(form: HTMLFormElement | null) {
	requestAnimationFrame(() =>
		form?.querySelector<HTMLElement>('[aria-invalid="true"], fieldset[aria-describedby] input')?.focus(),
	);
}

/** The chosen entries, without those a chosen whole section already shares. */
export function chosenRecords(recordList: VaultRecord[], picked: Picked): string[] {
	const whole = new Set(picked.sections);
	return picked.records.filter((id) => {
		const r = recordList.find((x) => x.id === id);
		return r !== undefined && !(r.section && whole.has(r.section));
	});
}

/** Whether the share grants the entry now: chosen, or in a chosen section. */
export const grants = (picked: Picked, r: VaultRecord) =>
	picked.records.includes(r.id) || (r.section !== null && picked.sections.includes(r.section));

/** How many entries the share grants now: those chosen and those of the chosen sections. */
export function sharedCount(recordList: VaultRecord[], picked: Picked): number {
	return recordList.filter((r) => grants(picked, r)).length;
}

/** Files among the chosen entries (directly or through a section), else every file of the vault. */
export function previewFiles(recordList: VaultRecord[], picked: Picked): VaultRecord[] {
	const files = recordList.filter((r) => r.type === "file");
	const chosen = files.filter((r) => grants(picked, r));
	return chosen.length > 0 ? chosen : files;
}

/** An ISO 8601 instant as a `datetime-local` value in the reader's own zone ("" for none). */
export function isoToLocal(iso: string | null): string {
	if (!iso) return "";
	const d = new Date(iso);
	if (Number.isNaN(d.getTime())) return "";
	const two = (n: number) => String(n).padStart(2, "0");
	return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** A share's gates as the form holds them; a password is never read back, so it starts empty. */
export function gatesOf(share: Share): Gates {
	return {
		password: "",
		maxViews: share.maxViews === null ? "" : String(share.maxViews),
		expires: isoToLocal(share.expiresAt),
		requireHandshake: share.requireHandshake,
		identity: share.identity ?? "",
	};
}

export function watermarkOf(share: Share): Watermark {
	return { on: share.stamp !== null, application: share.purpose === "application", stamp: share.stamp ?? "" };
}

/** The limits as typed, checked: the cap (null for none) and the expiry (null for none). */
export type Limits =
	| { ok: true; cap: number | null; expiresAt: string | null }
	| { ok: false; maxViews?: "maxViewsInvalid"; expiresAt?: "expiresInvalid" | "expiresPast" };

export function checkLimits(gates: Gates, now = Date.now()): Limits {
	const cap = gates.maxViews.trim() === "" ? null : Number(gates.maxViews);
	const capBad = cap !== null && (!Number.isInteger(cap) || cap < 1 || cap > 1_000_000_000);
	const expiresAt = gates.expires ? localToIso(gates.expires) : null;
	const expiryBad =
		gates.expires && expiresAt === null
			? "expiresInvalid"
			: expiresAt && new Date(expiresAt).getTime() <= now
				? "expiresPast"
				: undefined;
	if (!capBad && !expiryBad) return { ok: true, cap, expiresAt };
	return {
		ok: false,
		...(capBad ? { maxViews: "maxViewsInvalid" as const } : {}),
		...(expiryBad ? { expiresAt: expiryBad } : {}),
	};
}
