// Answers once per event-loop round (src/http/answer-rounds.ts): a handler runs in the check phase
// of the round that read its request, after what that round scheduled before it, and the requests
// of one round are handled after all of them were read. Each is checked without the hook too.
// Runs once, not per database: the event-loop rounds of a bare Fastify, with no database.
import assert from "node:assert/strict";
import net from "node:net";
import { test } from "node:test";
import Fastify from "fastify";
import { registerAnswerRounds } from "../../src/http/answer-rounds.ts";

function server(withRounds: boolean) {
	const app = Fastify();
	if (withRounds) registerAnswerRounds(app);
	const order: string[] = [];
	app.addHook("onRequest", (request, _reply, done) => {
		order.push(`read ${request.url}`);
		setImmediate(() => order.push(`check phase after ${request.url}`));
		done();
	});
	app.get("/:n", async (request) => {
		order.push(`handled ${request.url}`);
		return { ok: true };
	});
	return { app, order };
}

test("the handler waits for the check phase of the round that read its request", async () => {
	for (const withRounds of [true, false]) {
		const { app, order } = server(withRounds);
		const res = await app.inject({ method: "GET", url: "/1" });
		assert.equal(res.statusCode, 200);
		const check = order.indexOf("check phase after /1");
		const handledAfterCheck = check >= 0 && order.indexOf("handled /1") > check;
		assert.equal(handledAfterCheck, withRounds, JSON.stringify(order));
		await app.close();
	}
});

test("requests read in one round are all read before any is handled", async () => {
	for (const withRounds of [true, false]) {
		const { app, order } = server(withRounds);
		await app.listen({ host: "127.0.0.1", port: 0 });
		const { port } = app.server.address() as net.AddressInfo;
		try {
			// Both connections accepted by the server (its sockets reading) and the server idle: both
			// requests are in the kernel before the server's next poll, which reads them in one round.
			let accepted = 0;
			const bothAccepted = new Promise<void>((resolve) => {
				app.server.on("connection", () => {
					accepted += 1;
					if (accepted === 2) resolve();
				});
			});
			const sockets = await Promise.all(
				[1, 2].map(
					() =>
						new Promise<net.Socket>((resolve) => {
							const s = net.connect(port, "127.0.0.1", () => resolve(s));
						}),
				),
			);
			await bothAccepted;
			const answered = sockets.map((s) => new Promise<void>((resolve) => s.once("data", () => resolve())));
			for (const [i, s] of sockets.entries()) s.write(`GET /${i + 1} HTTP/1.1\r\nHost: x\r\n\r\n`);
			await Promise.all(answered);
			for (const s of sockets) s.destroy();
			const bothReadFirst = order.indexOf("read /2") < order.indexOf("handled /1");
			assert.equal(bothReadFirst, withRounds, JSON.stringify(order));
		} finally {
			await app.close();
		}
	}
});
