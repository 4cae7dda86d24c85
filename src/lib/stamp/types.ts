// What can be stamped. Kept apart from the stamping code so the main thread can ask without
// loading pdf-lib and sharp (about 30 MB of resident memory): only the pool's workers load them.
export const STAMPABLE_TYPES = ["application/pdf", "image/jpeg", "image/png", "image/webp"] as const;

export type StampableType = (typeof STAMPABLE_TYPES)[number];

export function isStampable(type: string): type is StampableType {
	return (STAMPABLE_TYPES as readonly string[]).includes(type);
}
