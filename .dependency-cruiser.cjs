// Layer rules of the house (docs/architecture.md "Layers"), checked by `npm run check` over src/,
// cli/, web/ and bench/: lib/ is a leaf; db/ stands on lib/; http/ on lib/ and db/; features meet
// only through each other's service module and never reach the wiring floor; the worker runs
// plain functions and imports no feature; the collections framework is registered into and imports
// no feature; the command line reaches features only through the wiring floor's faces, and its
// device commands are clients; the console imports only what the server publishes for browsers;
// the benchmarks reach features only through their service modules; nothing of the product imports
// a test or a benchmark; no cycles, type-only imports included. test/foundation/layer-rules.test.ts
// plants one import per rule and sees each refused.
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
			name: "features-never-reach-the-wiring",
			comment:
				"A feature is registered by the wiring floor (app.ts, background.ts, admin.ts) and run by the worker; it imports none of them.",
			severity: "error",
			from: { path: "^src/features/" },
			to: {
				path: "^src/(worker/|app\\.ts$|background\\.ts$|admin\\.ts$|main\\.ts$|start-banner\\.ts$|startup-heap\\.ts$)",
			},
		},
		{
			name: "worker-imports-no-feature",
			comment:
				"src/worker/ runs the passes and sweeps background.ts hands it: it imports lib/ only (and itself).",
			severity: "error",
			from: { path: "^src/worker/" },
			to: { path: "^src/", pathNot: "^src/(worker|lib)/" },
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
			name: "cli-reaches-features-through-the-wiring",
			comment:
				"The command line runs the app (app.ts) and the operator's acts (admin.ts); it never imports a feature's module.",
			severity: "error",
			from: { path: "^cli/" },
			to: { path: "^src/features/" },
		},
		{
			name: "device-commands-are-clients",
			comment:
				"`svc` on an owner's device talks to a server over HTTP: it imports the shared lib/ and the error codes, never the server.",
			severity: "error",
			from: { path: "^cli/device/" },
			to: { path: "^src/", pathNot: "^src/(lib/|http/errors\\.ts$)" },
		},
		{
			name: "console-imports-what-is-published",
			comment:
				"The console runs in browsers: of the server it imports only the modules published for it (app links and their parts, the share statuses), which import nothing else.",
			severity: "error",
			from: { path: "^web/" },
			to: {
				path: "^src/",
				pathNot: "^src/lib/(app-links|app-link-parts|credential-links|signin-link|share-status)\\.ts$",
			},
		},
		{
			name: "bench-reaches-features-through-services",
			comment:
				"A benchmark drives the app and seeds data through each feature's service.ts, as other features do.",
			severity: "error",
			from: { path: "^bench/" },
			to: { path: "^src/features/", pathNot: "^src/features/[^/]+/service\\.ts$" },
		},
		{
			name: "product-never-imports-tests-or-bench",
			comment: "src/, cli/ and web/ never import test/ or bench/ code.",
			severity: "error",
			from: { path: "^(src|cli|web)/" },
			to: { path: "^(test|bench)/" },
		},
		{
			name: "no-cycles",
			comment: "No import cycles, type-only imports included.",
			severity: "error",
			from: { path: "^(src|cli|web|bench)/" },
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
