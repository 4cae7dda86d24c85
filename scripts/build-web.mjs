#!/usr/bin/env node
// Builds the owner's console (web/console, Preact + TypeScript) with esbuild into dist/web/console:
// content-hashed files under assets/ and a manifest.json naming the entry script, its stylesheets and
// the chunks the entry imports statically (what a first load fetches). Screens are discovered from
// web/console/screens/<name>/index.ts(x), so adding a screen is adding a folder.
//
// `npm run build` runs it after tsc. The server imports buildConsole() to build into memory when it
// runs from src/ (tests, `npm run dev`), so a test never reads a stale dist/.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The screen folders, sorted, each with the index file esbuild should import. */
export function screenFolders(root = ROOT) {
	const dir = path.join(root, "web/console/screens");
	if (!fs.existsSync(dir)) return [];
	return fs
		.readdirSync(dir, { withFileTypes: true })
		.filter((d) => d.isDirectory())
		.map((d) => {
			const index = ["index.ts", "index.tsx"]
				.map((f) => path.join(dir, d.name, f))
				.find((f) => fs.existsSync(f));
			return index ? { id: d.name, index } : undefined;
		})
		.filter((s) => s !== undefined)
		.sort((a, b) => a.id.localeCompare(b.id));
}

/** `import { screens } from "virtual:screens"`: one import per screen folder, generated at build time. */
function screensPlugin(root) {
	return {
		name: "screens",
		setup(build) {
			build.onResolve({ filter: /^virtual:screens$/ }, () => ({ path: "screens", namespace: "screens" }));
			build.onLoad({ filter: /.*/, namespace: "screens" }, () => {
				const found = screenFolders(root);
				const imports = found.map((s, i) => `import s${i} from ${JSON.stringify(s.index)};`).join("\n");
				const list = found.map((s, i) => `{ ...s${i}, id: ${JSON.stringify(s.id)} }`).join(",\n");
				return {
					contents: `${imports}\nexport const screens = [\n${list}\n];\n`,
					loader: "js",
					resolveDir: path.join(root, "web/console"),
					watchDirs: [path.join(root, "web/console/screens")],
				};
			});
		},
	};
}

const TYPES = {
	".js": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".svg": "image/svg+xml",
	".woff2": "font/woff2",
	".png": "image/png",
};

/**
 * Builds the console. `write: false` keeps everything in memory.
 * Returns `{ manifest, files }` where files maps an asset's file name to its bytes.
 */
export async function buildConsole({ root = ROOT, write = false, outdir } = {}) {
	const esbuild = await import("esbuild");
	const out = outdir ?? path.join(root, "dist/web/console");
	const assetsDir = path.join(out, "assets");
	const result = await esbuild.build({
		absWorkingDir: root,
		entryPoints: {
			main: path.join(root, "web/console/main.tsx"),
			front: path.join(root, "web/console/front.css"),
		},
		bundle: true,
		splitting: true,
		format: "esm",
		target: ["es2020", "chrome100", "firefox100", "safari15"],
		platform: "browser",
		minify: true,
		jsx: "automatic",
		jsxImportSource: "preact",
		outdir: assetsDir,
		entryNames: "[name]-[hash]",
		chunkNames: "[name]-[hash]",
		assetNames: "[name]-[hash]",
		metafile: true,
		write,
		legalComments: "none",
		charset: "utf8",
		logLevel: "silent",
		define: { "process.env.NODE_ENV": '"production"' },
		plugins: [screensPlugin(root)],
	});
	const outputs = result.metafile.outputs;
	const rel = (p) => path.basename(p);
	const key = (p) => path.relative(root, path.resolve(root, p));
	const entryOf = (name) =>
		Object.keys(outputs).find(
			(o) => outputs[o].entryPoint && path.basename(outputs[o].entryPoint).startsWith(name),
		);
	const mainKey = Object.keys(outputs).find(
		(o) => o.endsWith(".js") && outputs[o].entryPoint?.endsWith("web/console/main.tsx"),
	);
	if (!mainKey) throw new Error("esbuild produced no entry for web/console/main.tsx");
	// What the first load fetches: the entry and the chunks it imports statically, transitively.
	const preload = [];
	const walk = (o) => {
		for (const imp of outputs[o]?.imports ?? []) {
			if (imp.kind !== "import-statement" || imp.external) continue;
			const k = key(imp.path);
			const name = rel(k);
			if (!preload.includes(name)) {
				preload.push(name);
				walk(Object.keys(outputs).find((x) => key(x) === k));
			}
		}
	};
	walk(mainKey);
	const frontKey = entryOf("front.css");
	const manifest = {
		entry: rel(mainKey),
		css: outputs[mainKey].cssBundle ? [rel(outputs[mainKey].cssBundle)] : [],
		front: frontKey ? rel(frontKey) : undefined,
		preload,
		types: TYPES,
	};
	const files = new Map();
	if (result.outputFiles) {
		for (const f of result.outputFiles) files.set(path.basename(f.path), Buffer.from(f.contents));
	}
	if (write) fs.writeFileSync(path.join(out, "manifest.json"), `${JSON.stringify(manifest, null, "\t")}\n`);
	return { manifest, files };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
	const out = path.join(ROOT, "dist/web/console");
	fs.rmSync(out, { recursive: true, force: true });
	fs.mkdirSync(out, { recursive: true });
	const started = Date.now();
	const { manifest } = await buildConsole({ write: true, outdir: out });
	const n = fs.readdirSync(path.join(out, "assets")).length;
	console.log(
		`console: ${n} files in dist/web/console (entry ${manifest.entry}) in ${Date.now() - started} ms`,
	);
}
