// Process entry: read config, build the app, listen, stop cleanly on SIGTERM/SIGINT.
// The server's modules are imported in `serve`, after startup-heap.ts has set V8's flag: a static
// import would load and compile the whole module graph before any module ran.
import { startBanner, wantsBanner } from "./start-banner.ts";
import { boundOldGeneration, startupDone } from "./startup-heap.ts";

export async function serve(env = process.env): Promise<void> {
	const [{ buildApp }, { ConfigError, loadConfig }] = await Promise.all([
		import("./app.ts"),
		import("./config.ts"),
	]);
	let config: ReturnType<typeof loadConfig>;
	try {
		config = loadConfig(env);
	} catch (err) {
		if (err instanceof ConfigError) {
			process.stderr.write(`configuration error: ${err.message}\n`);
			process.exit(2);
		}
		throw err;
	}
	const app = await buildApp(config);
	await app.listen({ port: config.port, host: config.host });
	// The outbox loop and the sweeps run in the server process only (tests drive drainOnce).
	app.background.start();
	// Metrics on their own listener (METRICS_HOST:METRICS_PORT), when configured.
	await app.metrics?.listen();
	app.log.info(
		{
			domain: config.domain,
			database: app.store.dialect,
			dataDir: config.dataDir,
			fingerprint: app.rootKey.fingerprint,
		},
		"serving",
	);
	startupDone();
	if (app.store.dialect === "postgres") boundOldGeneration();
	if (wantsBanner(config.logFormat, process.stdout.isTTY)) {
		const [{ anyAccount }, { publicOrigin }] = await Promise.all([
			import("./features/accounts/service.ts"),
			import("./config.ts"),
		]);
		process.stdout.write(
			startBanner({
				origin: publicOrigin(config),
				listening: `${config.host}:${config.port}`,
				hasAccount: await anyAccount(app.store.db),
			}),
		);
	}

	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		app.log.info({ signal }, "stopping: no new connections, finishing in-flight requests");
		// Past the timeout, leave anyway: a hung request must not keep a node from restarting.
		const timer = setTimeout(() => {
			app.log.error("shutdown timed out");
			process.exit(1);
		}, config.shutdownTimeout);
		timer.unref();
		app.close().then(
			() => process.exit(0),
			(err: unknown) => {
				app.log.error({ err }, "error while stopping");
				process.exit(1);
			},
		);
	};
	process.on("SIGTERM", () => stop("SIGTERM"));
	process.on("SIGINT", () => stop("SIGINT"));
}

const entry = process.argv[1] ?? "";
if (/[\\/]main\.(ts|js)$/.test(entry)) {
	serve().catch((err: unknown) => {
		process.stderr.write(`failed to start: ${err instanceof Error ? err.stack : String(err)}\n`);
		process.exit(1);
	});
}
