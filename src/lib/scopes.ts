// Scopes are `<resource>:<action>`, with `*` for every action of a resource (design file,
// "Permissions"). Which scopes a permission or role carries is the accounts feature's catalogue.

/** True when `held` covers `needed`: `link:read` is covered by `link:read` or `link:*`. */
export function hasScope(held: readonly string[], needed: string): boolean {
	const [resource] = needed.split(":");
	return held.includes(needed) || held.includes(`${resource}:*`);
}
