// SQLite's WAL checkpoints off the event loop. By default the connection that commits a write
// checkpoints when the WAL passes 1000 pages: it copies every page in the WAL back into the
// database file and fsyncs it, inside that commit, on the event loop. Under a spread write load
// (views of many shares, each on its own pages) that was a checkpoint every few dozen
// milliseconds and about 7% of the server's CPU (bench/README.md "Checkpoints off the event loop").
//
// Here a worker thread with its own connection to the file runs PASSIVE checkpoints, which never
// wait for and never block the writer or the readers: every CHECKPOINT_MS while the database is
// quiet, and AGAIN_MS after a run that copied frames, so under a write load the thread keeps up.
// The event loop's connection keeps an automatic checkpoint only as a backstop, at
// BACKSTOP_PAGES. Under a write load that never pauses the thread copies most of the WAL but
// cannot start it over (SQLite restarts a WAL only at a write that finds every frame copied, and
// the writer keeps adding frames while the thread copies), so the backstop is what restarts it: its
// checkpoint then copies only what the thread has not yet. When the thread cannot start or fails,
// the connection goes back to SQLite's own checkpoints and the log says so once.
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";
import type { Warner } from "./trigram.ts";

/** How often the thread looks for frames to copy while there were none. */
export const CHECKPOINT_MS = 100;
/**
 * How soon it looks again after a run that copied frames. The backstop's checkpoint copies what the
 * thread has not yet, on the event loop: at 100 ms that was up to 100 ms of writes, and the spread
 * resolve's p99 11-13.6 ms; at 2 ms, 8.7-10.4 ms for about 3% of its throughput (the thread copies
 * a page written again soon more often).
 */
export const AGAIN_MS = 2;
/** The event loop's own automatic checkpoint while the thread runs (SQLite's default is 1000). */
export const BACKSTOP_PAGES = 8000;
/** SQLite's default, restored when the thread is gone. */
const DEFAULT_PAGES = 1000;

/** What the thread has done since it started (for tests and metrics). */
export interface CheckpointStats {
	/** Checkpoints that copied at least one frame. */
	runs: number;
	/** Frames copied into the database file (about: a WAL that restarted and grew back between two runs is undercounted). */
	frames: number;
	/** False once the thread failed or was stopped: the connection checkpoints itself again. */
	running: boolean;
}

export interface BackgroundCheckpoints {
	stats(): CheckpointStats;
	/** Ends the thread (its last checkpoint finishes first); the connection checkpoints itself again. */
	stop(): Promise<void>;
}

/** Messages the thread posts. */
type Report = { frames: number } | { error: string };

// CommonJS run by `eval`: no TypeScript loader is needed in the thread, from source or from dist/.
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const conn = new Database(workerData.file, { fileMustExist: true });
conn.pragma("synchronous = " + workerData.synchronous);
let timer;
// The pragma answers totals of the WAL as it stands (a smaller log than before: it restarted), or
// -1 when another checkpoint held the lock.
let before = { log: 0, checkpointed: 0 };
const tick = () => {
	try {
		const [{ busy, log, checkpointed }] = conn.pragma("wal_checkpoint(PASSIVE)");
		let wait = workerData.everyMs;
		if (log >= 0) {
			const copied = log < before.log ? checkpointed : checkpointed - before.checkpointed;
			before = { log, checkpointed };
			if (copied > 0) {
				parentPort.postMessage({ frames: copied });
				wait = workerData.againMs;
			}
		}
		// Frames left (a reader still used them, or another checkpoint ran): soon again.
		if (busy !== 0 || checkpointed < log) wait = workerData.againMs;
		timer = setTimeout(tick, wait);
	} catch (err) {
		// Busy is no failure: another checkpoint or a writer held a lock; try again soon.
		if (err && err.code === "SQLITE_BUSY") return void (timer = setTimeout(tick, workerData.againMs));
		parentPort.postMessage({ error: String(err && err.message || err) });
		conn.close();
		parentPort.close();
	}
};
parentPort.on("message", () => {
	clearTimeout(timer);
	conn.close();
	parentPort.close();
});
tick();
`;

/** Starts the checkpoint thread for `conn`, an open WAL connection to `file`. */
export function checkpointInBackground(
	conn: BetterSqlite3.Database,
	file: string,
	synchronous: string,
	log?: Warner,
): BackgroundCheckpoints {
	const stats: CheckpointStats = { runs: 0, frames: 0, running: true };
	const inline = (reason: string, details: object) => {
		if (!stats.running) return;
		stats.running = false;
		if (conn.open) conn.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
		if (reason) log?.warn(details, `SQLite checkpoints back on the event loop: ${reason}`);
	};
	conn.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
	const worker = new Worker(THREAD, {
		eval: true,
		workerData: {
			driver: createRequire(import.meta.url).resolve("better-sqlite3"),
			file,
			synchronous,
			everyMs: CHECKPOINT_MS,
			againMs: AGAIN_MS,
		},
		// A few MB: the thread holds one connection and its page cache, nothing else.
		resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 2 },
	});
	// The thread never keeps the process alive on its own.
	worker.unref();
	worker.on("message", (report: Report) => {
		if ("error" in report) return inline("the checkpoint thread failed", { error: report.error });
		stats.runs++;
		stats.frames += report.frames;
	});
	worker.on("error", (err) => inline("the checkpoint thread failed", { err }));
	const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
	void exited.then(() => inline("the checkpoint thread ended", {}));
	return {
		stats: () => ({ ...stats }),
		async stop() {
			inline("", {});
			worker.postMessage("stop");
			const late = setTimeout(() => void worker.terminate(), 5000);
			await exited;
			clearTimeout(late);
		},
	};
}
