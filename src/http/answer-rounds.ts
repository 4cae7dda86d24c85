// Answers leave once per event-loop round. Every handler waits for the check phase (`setImmediate`)
// of the round that read its request: the requests that arrived together are handled, and their
// answers written, together, after Node has read every ready socket, instead of each answer being
// written from inside its socket's read callback between two reads.
//
// Why: under load each write wakes the client's side of the connection; answers written one by one
// between reads keep both sides waking each other for a request or two at a time, while answers
// written in a burst wake a client once for many and bring its next requests back in a burst. On
// the 2-vCPU bench machine (wrk -c50 on loopback, bench/README.md "Answers once per event-loop
// round") the SQLite probe went from 14-17k to 24-25k requests a second and its server CPU from 58-69
// to 40-41 µs a request; `GET /api/server` from 33-39k to 48-52k. Under no load a handler waits only
// for the rest of the round that read its request, a few microseconds. SQLite's hot reads and
// writes then run in that check phase too: its group commit (db/direct.ts) gathers the writes
// asked for there into the next round's commit.
import type { FastifyInstance } from "fastify";

/** Global: registered once in buildApp, so every route's handler runs in the check phase. */
export function registerAnswerRounds(app: FastifyInstance): void {
	app.addHook("preHandler", (_request, _reply, done) => {
		setImmediate(done);
	});
}
