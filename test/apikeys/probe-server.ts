// A server node for the multi-node API key test: the real app from the environment plus two
// test-only routes, `GET /t` (who am I) and `DELETE /t/api-keys/:id` (revoke through this node's
// database handle). Prints `listening <port>` like test/helpers/serve.ts.
import { buildApp } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { revokeApiKey } from "../../src/features/apikeys/service.ts";
import { type AccountCaller, requireAccount } from "../../src/http/auth.ts";

const config = loadConfig(process.env);
const app = await buildApp(config, {
	extend: async (a) => {
		a.get("/t", { preHandler: requireAccount }, async (request) => request.caller);
		a.delete<{ Params: { id: string } }>(
			"/t/api-keys/:id",
			{ preHandler: requireAccount },
			async (request, reply) => {
				await revokeApiKey(a.store.db, request.caller as AccountCaller, request.params.id);
				return reply.code(204).send();
			},
		);
	},
});
await app.listen({ port: config.port, host: "127.0.0.1" });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === "object" && address ? address.port : config.port}\n`);
const stop = () => {
	app.close().then(
		() => process.exit(0),
		() => process.exit(1),
	);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
