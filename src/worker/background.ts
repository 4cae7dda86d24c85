// A server process's background work, as src/background.ts builds it from what the features hand
// it: the outbox passes (callback deliveries, grant events to other servers, mail while it is on),
// run one after another every second, and the sweeps (expired tokens, the read log, expired answers,
// orphaned blobs), each at start and then on its own interval. All state is in the database, so a
// restarted node (or another node on the same PostgreSQL) carries on where this one stopped. Only
// the server process starts it (src/main.ts); tests call drainOnce(now) with a ManualClock, and the
// sweeps' own functions. It imports no feature: a pass and a sweep are plain functions.
import type { Clock } from "../lib/clock.ts";

/** What one pass did with the rows it took. */
export interface DrainResult {
	delivered: number;
	retrying: number;
	failed: number;
}

export interface DrainPass {
	/** Named in the log line of a pass that failed. */
	name: string;
	/** The most rows one pass takes: a pass that took as many left more due, and the loop goes on at once. */
	cap: number;
	run(now: number): Promise<DrainResult>;
}

export interface Sweep {
	/** Named in the log line of a sweep that failed. */
	name: string;
	everyMs: number;
	/** One sweep; it reads its own clock (blob ages are file times) and logs what it removed. */
	run(): Promise<void>;
}

export const OUTBOX_INTERVAL_MS = 1000;

interface Log {
	error(obj: unknown, msg?: string): void;
}

export interface Background {
	/** One round of every pass at `now`: what became due is sent, and retries are scheduled from `now`. */
	drainOnce(now: number): Promise<DrainResult>;
	/** Starts the outbox loop and the sweeps; a pass or a sweep never overlaps its previous run. */
	start(intervalMs?: number): void;
	/** Stops the loop and the sweeps and waits for what is running. */
	stop(): Promise<void>;
}

export function createBackground(deps: {
	passes: readonly DrainPass[];
	sweeps: readonly Sweep[];
	clock: Clock;
	log: Log;
}): Background {
	const { passes, sweeps, clock, log } = deps;
	let stopped = true;
	let timer: NodeJS.Timeout | undefined;
	let running: Promise<unknown> = Promise.resolve();
	const sweepTimers: NodeJS.Timeout[] = [];
	const sweepsRunning = new Map<Sweep, Promise<void>>();

	/** Every pass in turn, one failing not stopping the next: the counts, the failures, and whether a pass reached its cap. */
	const drainAll = async (now: number) => {
		const total: DrainResult = { delivered: 0, retrying: 0, failed: 0 };
		const failures: { pass: string; err: unknown }[] = [];
		let full = false;
		for (const pass of passes) {
			let r: DrainResult;
			try {
				r = await pass.run(now);
			} catch (err) {
				failures.push({ pass: pass.name, err });
				continue;
			}
			total.delivered += r.delivered;
			total.retrying += r.retrying;
			total.failed += r.failed;
			if (r.delivered + r.retrying + r.failed >= pass.cap) full = true;
		}
		return { total, failures, full };
	};

	const tick = (intervalMs: number) => {
		const round = drainAll(clock.now()).then(({ failures, full }) => {
			for (const { pass, err } of failures) log.error({ err, pass }, "outbox pass failed");
			if (!stopped) schedule(intervalMs, full ? 0 : intervalMs);
		});
		running = round;
	};
	const schedule = (intervalMs: number, delay: number) => {
		timer = setTimeout(() => tick(intervalMs), delay);
		// Never the reason a process stays up: shutdown stops the loop explicitly.
		timer.unref();
	};

	const sweepOnce = (sweep: Sweep) => {
		if (sweepsRunning.has(sweep)) return; // the previous one is still going
		const run = sweep
			.run()
			.catch((err: unknown) => log.error({ err, sweep: sweep.name }, "sweep failed"))
			.finally(() => sweepsRunning.delete(sweep));
		sweepsRunning.set(sweep, run);
	};

	return {
		async drainOnce(now) {
			const { total, failures } = await drainAll(now);
			// Called by hand (tests, tools): a failed pass is the caller's error, after the others ran.
			if (failures[0]) throw failures[0].err;
			return total;
		},
		start(intervalMs = OUTBOX_INTERVAL_MS) {
			if (!stopped) return;
			stopped = false;
			schedule(intervalMs, intervalMs);
			for (const sweep of sweeps) {
				sweepOnce(sweep);
				const t = setInterval(() => sweepOnce(sweep), sweep.everyMs);
				t.unref();
				sweepTimers.push(t);
			}
		},
		async stop() {
			stopped = true;
			clearTimeout(timer);
			for (const t of sweepTimers.splice(0)) clearInterval(t);
			await Promise.all([running, ...sweepsRunning.values()]);
		},
	};
}
