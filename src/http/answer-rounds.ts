// Answers leave once per event-loop round. Every handler waits for the check phase (`setImmediate`)
// of the round that read its request: the requests that arrived together are handled, and their
// answers written, together, after Node has read every ready socket, instead of each answer being
// written from inside its socket's read callback between two reads.
//
// Why: under load each write wakes the client's side of the connection; answers written one by one
// between reads keep both sides waking each other for a request or two at a time, while answers
// written in a burst wake a client once for many and bring its next requests back in a burst. On
// the 2-vCPU bench machine (wrk -c50 on loopback; bench/README.md "Answers once per event-loop
// round"), the same build with and without this hook: the SQLite probe 16.3-17.0k → 22.2-24.5k
// requests a second, server CPU 59-61 → 41-45 µs a request, wake-ups machine-wide 0.92 → 0.66 a
// request, the same one read and one writev a request; `GET /api/server` 28k → 45k. Under no load
// a handler waits only for the rest of the round that read its request, a few microseconds.
// SQLite's hot reads and writes then run in that check phase too: its group commit (db/direct.ts)
// gathers the writes asked for there into the next round's commit, and the probes of one round
// share one read of their share (features/shares/public-queries.ts).
import type { FastifyInstance } from "fastify";

/** Global: registered once in buildApp, so every route's handler runs in the check phase. */
export function registerAnswerRounds(app: FastifyInstance): void {
	app.addHook("preHandler", (_request, _reply, done) => {
		setImmediate(done);
	});
}
