// A server process for tests that need a real second node: builds the app from the environment
// (same variables as production), listens, and prints `listening <port>` on stdout.
// Stops cleanly on SIGTERM like src/main.ts. SVC_TEST_OUTBOX=1 starts the outbox loop too.
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";

const config = loadConfig(process.env);
const app = await buildApp(config);
await app.listen({ port: config.port, host: process.env.HOST ?? "127.0.0.1" });
const address = app.server.address();
const port = typeof address === "object" && address ? address.port : config.port;
// The delivery loop, as src/main.ts runs it, for tests that watch deliveries arrive.
if (process.env.SVC_TEST_OUTBOX === "1") app.background.start();
if (app.metrics) process.stdout.write(`metrics ${await app.metrics.listen()}\n`);
process.stdout.write(`listening ${port}\n`);
const stop = () => {
	app.close().then(
		() => process.exit(0),
		() => process.exit(1),
	);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
