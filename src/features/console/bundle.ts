// The console's built files: read from dist/web/console (what `npm run build` wrote) when the server
// runs compiled, or built into memory with esbuild when it runs from src/ (tests, `npm run dev`), so
// a test never serves a stale build. Each text file is gzipped once, here, not per request.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import zlib from "node:zlib";

export interface ConsoleManifest {
	/** The entry script, then its stylesheets, the chunks it imports statically, the front page's CSS. */
	entry: string;
	css: string[];
	preload: string[];
	front?: string;
}

export interface ConsoleAsset {
	type: string;
	body: Buffer;
	/** Present when it is worth it (text, over 1 KiB). */
	gzip?: Buffer;
}

export interface ConsoleBundle {
	manifest: ConsoleManifest;
	files: Map<string, ConsoleAsset>;
}

const TYPES: Record<string, string> = {
	".js": "text/javascript; charset=utf-8",
	".css": "text/css; charset=utf-8",
	".svg": "image/svg+xml",
	".png": "image/png",
	".woff2": "font/woff2",
};

/** The repository root: the first folder above this file holding package.json (src/ and dist/src/ alike). */
function repoRoot(): string {
	let dir = import.meta.dirname;
	for (let i = 0; i < 8; i++) {
		if (fs.existsSync(path.join(dir, "package.json"))) return dir;
		dir = path.dirname(dir);
	}
	throw new Error("package.json not found above the server's sources");
}

function asset(name: string, body: Buffer): ConsoleAsset {
	const type = TYPES[path.extname(name)] ?? "application/octet-stream";
	const text = type.startsWith("text/") || type === "image/svg+xml";
	return text && body.length > 1024
		? { type, body, gzip: zlib.gzipSync(body, { level: 9 }) }
		: { type, body };
}

async function load(): Promise<ConsoleBundle> {
	const root = repoRoot();
	const built = path.join(root, "dist/web/console");
	const compiled = import.meta.filename.endsWith(".js");
	if (compiled && fs.existsSync(path.join(built, "manifest.json"))) {
		const manifest = JSON.parse(
			fs.readFileSync(path.join(built, "manifest.json"), "utf8"),
		) as ConsoleManifest;
		const files = new Map<string, ConsoleAsset>();
		for (const name of fs.readdirSync(path.join(built, "assets")))
			files.set(name, asset(name, fs.readFileSync(path.join(built, "assets", name))));
		return { manifest, files };
	}
	// From src/ (or a dist/ built without the console): build now. esbuild is a devDependency, so
	// a production install serves the files `npm run build` wrote instead.
	const script = pathToFileURL(path.join(root, "scripts/build-web.mjs")).href;
	const { buildConsole } = (await import(script)) as {
		buildConsole: (o: { root: string }) => Promise<{ manifest: ConsoleManifest; files: Map<string, Buffer> }>;
	};
	const { manifest, files } = await buildConsole({ root });
	return { manifest, files: new Map([...files].map(([name, body]) => [name, asset(name, body)])) };
}

// One build per process, shared by every app the process builds (tests build many): the output
// depends only on the files on disk, never on an app's config.
let pending: Promise<ConsoleBundle> | undefined;

export function consoleBundle(): Promise<ConsoleBundle> {
	pending ??= load().catch((err: unknown) => {
		pending = undefined;
		throw err;
	});
	return pending;
}
