// Layer rules of the house (docs/architecture.md "Layers"), checked by `npm run check`:
// lib/ is a leaf; db/ stands on lib/; http/ on lib/ and db/; features meet only through each
// other's service module; the collections framework is registered into and imports no feature;
// no cycles, type-only imports included.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
	forbidden: [
		{
			name: "lib-is-a-leaf",
			comment: "src/lib/ knows nothing of the app: it imports only lib/ and packages.",
			severity: "error",
			from: { path: "^src/lib/" },
			to: { path: "^src/", pathNot: "^src/lib/" },
		},
		{
			name: "db-stands-on-lib",
			comment: "src/db/ imports only lib/ (and itself).",
			severity: "error",
			from: { path: "^src/db/" },
			to: { path: "^src/", pathNot: "^src/(db|lib)/" },
		},
		{
			name: "http-stands-on-lib-and-db",
			comment: "src/http/ imports only lib/ and db/ (and itself).",
			severity: "error",
			from: { path: "^src/http/" },
			to: { path: "^src/", pathNot: "^src/(http|db|lib)/" },
		},
		{
			name: "below-features-never-reach-up",
			comment: "config, lib, db and http never import a feature or the app.",
			severity: "error",
			from: { path: "^src/(lib|db|http|config\\.ts)" },
			to: { path: "^src/(features|worker|app\\.ts|main\\.ts)" },
		},
		{
			name: "collections-imports-no-feature",
			comment: "The collections framework is registered into by the features; it imports none of them.",
			severity: "error",
			from: { path: "^src/features/collections/" },
			to: { path: "^src/features/", pathNot: "^src/features/collections/" },
		},
		{
			name: "features-meet-through-services",
			comment:
				"A feature imports another feature only through that feature's service.ts (vault's parts: their own service.ts), never its store, routes or other internals.",
			severity: "error",
			from: { path: "^src/features/([^/]+)/" },
			to: {
				path: "^src/features/([^/]+)/",
				pathNot: ["^src/features/$1/", "^src/features/.+/service\\.ts$", "^src/features/collections/"],
			},
		},
		{
			name: "no-cycles",
			comment: "No import cycles, type-only imports included.",
			severity: "error",
			from: { path: "^(src|cli)/" },
			to: { circular: true },
		},
	],
	options: {
		doNotFollow: { path: "node_modules" },
		tsPreCompilationDeps: true,
		tsConfig: { fileName: "tsconfig.json" },
		enhancedResolveOptions: {
			exportsFields: ["exports"],
			conditionNames: ["import", "require", "node", "default"],
		},
	},
};
