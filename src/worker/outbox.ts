// The delivery outbox loop: every second, one drain pass at the app clock's time, running each
// queue's pass in turn (callback deliveries, grant event batches to other servers, and mail when
// SMTP_URL is set). All state is in the database, so a restarted node (or another node on the same
// PostgreSQL) carries on where this one stopped. Tests do not start the loop: they call drainOnce(now) with a ManualClock.
import { type DrainResult, MAX_PER_DRAIN } from "../features/callbacks/service.ts";
import type { Clock } from "../lib/clock.ts";

/** One queue's pass at `now`. */
export type DrainPass = (now: number) => Promise<DrainResult>;

async function drainAll(passes: readonly DrainPass[], now: number): Promise<DrainResult> {
	const total: DrainResult = { delivered: 0, retrying: 0, failed: 0 };
	for (const pass of passes) {
		const r = await pass(now);
		total.delivered += r.delivered;
		total.retrying += r.retrying;
		total.failed += r.failed;
	}
	return total;
}

export const OUTBOX_INTERVAL_MS = 1000;

export interface OutboxWorker {
	/** One pass at `now`: what became due is sent, and retries are scheduled from `now`. */
	drainOnce(now: number): Promise<DrainResult>;
	/** Starts the background loop (src/main.ts); a pass never overlaps the previous one. */
	start(intervalMs?: number): void;
	/** Stops the loop and waits for a pass in progress. */
	stop(): Promise<void>;
	/** Adds a queue's pass (a part the operator turned on, such as mail), run after the others. */
	addPass(pass: DrainPass): void;
}

export function createOutboxWorker(deps: {
	passes: readonly DrainPass[];
	clock: Clock;
	log?: { error(obj: unknown, msg?: string): void };
}): OutboxWorker {
	let timer: NodeJS.Timeout | undefined;
	let running: Promise<unknown> = Promise.resolve();
	let stopped = true;
	const passes = [...deps.passes];

	const tick = (intervalMs: number) => {
		let full = false;
		running = drainAll(passes, deps.clock.now())
			.then((r) => {
				// A pass that hit its cap left more due: go on at once instead of a second later.
				full = r.delivered + r.retrying + r.failed >= MAX_PER_DRAIN;
			})
			.catch((err: unknown) => deps.log?.error({ err }, "outbox pass failed"))
			.finally(() => {
				if (!stopped) schedule(intervalMs, full ? 0 : intervalMs);
			});
	};
	const schedule = (intervalMs: number, delay = intervalMs) => {
		timer = setTimeout(() => tick(intervalMs), delay);
		// Never the reason a process stays up: shutdown stops the loop explicitly.
		timer.unref();
	};

	return {
		drainOnce: (now) => drainAll(passes, now),
		start(intervalMs = OUTBOX_INTERVAL_MS) {
			if (!stopped) return;
			stopped = false;
			schedule(intervalMs);
		},
		addPass(pass) {
			passes.push(pass);
		},
		async stop() {
			stopped = true;
			clearTimeout(timer);
			await running;
		},
	};
}
