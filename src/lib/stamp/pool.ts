// A small pool of stamping worker threads, so parsing a PDF or encoding a large image never holds
// up the event loop. Workers start on first use and are replaced when one dies or overruns its
// time. A job's bytes are loaded only once a worker is free for it, so waiting jobs hold no file
// in memory.
//
// Fair between tenants (workspaces): each tenant has its own waiting line, served round-robin,
// and a tenant runs at most `size - 1` jobs at once (one with two workers), so a worker is always
// left for the others: one tenant's slow or hostile files queue behind each other, never in front
// of another tenant's. The lines are bounded per tenant and in total; a job past either is
// refused at once (StampBusyError). Each job has a time budget; past it the worker is stopped.
import { Worker, type WorkerOptions } from "node:worker_threads";
import { NotWatermarkableError, StampBusyError } from "./errors.ts";
import type { PdfLimits } from "./pdf-scan.ts";
import type { StampAnswer, StampJob } from "./worker.ts";

export interface PoolOptions {
	/** Worker threads, each stamping one file at a time. */
	size: number;
	/** Jobs allowed to wait for a worker, all tenants together; one more is refused. */
	maxQueue: number;
	/** Jobs one tenant may have waiting; one more of that tenant is refused. */
	maxQueuePerTenant: number;
	/** Default time budget: a job running longer is abandoned (its worker stopped), the file refused. */
	timeoutMs: number;
	/** Heap cap of each worker, in MiB: a file needing more is refused instead of starving the host. */
	maxHeapMb: number;
}

export interface PoolJob {
	/** Whose job: jobs of one tenant wait behind each other, not in front of another's. */
	tenant: string;
	/** Time budget in ms (the pool's `timeoutMs` when absent). */
	budgetMs?: number | undefined;
	type: string;
	line: string;
	limits: PdfLimits;
}

interface Task extends PoolJob {
	load: () => Promise<Uint8Array>;
	resolve: (bytes: Uint8Array) => void;
	reject: (err: unknown) => void;
}

// Compiled (dist/), the worker is the sibling worker.js. From source (tests, `npm run dev`) it is
// worker.ts, and Node 20 does not carry tsx's loader hooks (`--import tsx`) into worker threads:
// a one-line bootstrap registers tsx in the worker first.
const FROM_SOURCE = import.meta.url.endsWith(".ts");
const WORKER_FILE = new URL(FROM_SOURCE ? "./worker.ts" : "./worker.js", import.meta.url);

function newWorker(options: WorkerOptions): Worker {
	if (!FROM_SOURCE) return new Worker(WORKER_FILE, options);
	const tsx = JSON.stringify(import.meta.resolve("tsx/esm/api"));
	const entry = JSON.stringify(WORKER_FILE.href);
	const boot = `import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}); });`;
	return new Worker(boot, { ...options, eval: true });
}

export class StampPool {
	private readonly idle: Worker[] = [];
	private readonly workers = new Set<Worker>();
	/** Waiting jobs per tenant; the Map's order is the round-robin order (served go last). */
	private readonly waiting = new Map<string, Task[]>();
	private readonly runningBy = new Map<string, number>();
	/** Workers starting ahead of need (warm), not yet taken by a job. */
	private readonly warming = new Set<Promise<Worker>>();
	private queued = 0;
	private running = 0;
	private started = 0;
	private nextId = 1;
	private closed = false;

	constructor(private readonly options: PoolOptions) {}

	/** Jobs stamping now and jobs waiting for a worker (for metrics). */
	get load(): { running: number; queued: number } {
		return { running: this.running, queued: this.queued };
	}

	/** Jobs handed to a worker since the pool started. */
	get jobs(): number {
		return this.started;
	}

	/** Jobs one tenant may run at once: all workers but one, so another tenant always finds one. */
	get perTenant(): number {
		return Math.max(1, this.options.size - 1);
	}

	/** True when a new job of any tenant would be refused (the total waiting line is full). */
	get saturated(): boolean {
		return this.running >= this.options.size && this.queued >= this.options.maxQueue;
	}

	/** Stamps the bytes `load` answers once a worker is free; `load` must return memory it owns. */
	run(load: () => Promise<Uint8Array>, job: PoolJob): Promise<Uint8Array> {
		return new Promise((resolve, reject) => {
			if (this.closed) return reject(new Error("the stamping pool is closed"));
			const task: Task = { ...job, load, resolve, reject };
			if (this.workers.size < this.options.size) this.warm();
			const line = this.waiting.get(job.tenant);
			if (this.canStart(job.tenant)) return void this.start(task);
			if ((line?.length ?? 0) >= this.options.maxQueuePerTenant || this.queued >= this.options.maxQueue) {
				return reject(new StampBusyError());
			}
			if (line) line.push(task);
			else this.waiting.set(job.tenant, [task]);
			this.queued++;
		});
	}

	async close(): Promise<void> {
		this.closed = true;
		for (const line of this.waiting.values()) {
			for (const task of line) task.reject(new Error("the stamping pool is closed"));
		}
		this.waiting.clear();
		this.queued = 0;
		await Promise.all([...this.workers].map((w) => w.terminate()));
	}

	/**
	 * Starts the missing workers in the background (on first use, and after one was stopped), so a
	 * tenant's job never waits for a worker's start-up (about a second) while another holds the rest.
	 */
	private warm(): void {
		for (let n = this.workers.size; n < this.options.size; n++) {
			const starting = this.spawn();
			this.warming.add(starting);
			starting.then(
				(worker) => {
					if (!this.warming.delete(starting)) return; // taken by a job meanwhile
					if (this.closed) void worker.terminate();
					else this.idle.push(worker);
				},
				() => this.warming.delete(starting),
			);
		}
	}

	private canStart(tenant: string): boolean {
		return (
			this.running < this.options.size &&
			(this.runningBy.get(tenant) ?? 0) < this.perTenant &&
			!this.waiting.has(tenant)
		);
	}

	/** The next job: the first tenant in round-robin order with a job waiting and a share free. */
	private next(): Task | undefined {
		for (const [tenant, line] of this.waiting) {
			if ((this.runningBy.get(tenant) ?? 0) >= this.perTenant) continue;
			const task = line.shift() as Task;
			this.waiting.delete(tenant);
			if (line.length > 0) this.waiting.set(tenant, line); // to the back of the round
			this.queued--;
			return task;
		}
		return undefined;
	}

	private async start(task: Task): Promise<void> {
		this.running++;
		this.runningBy.set(task.tenant, (this.runningBy.get(task.tenant) ?? 0) + 1);
		try {
			const bytes = await task.load();
			this.started++;
			task.resolve(await this.exec(bytes, task));
		} catch (err) {
			task.reject(err);
		} finally {
			this.running--;
			const left = (this.runningBy.get(task.tenant) ?? 1) - 1;
			if (left > 0) this.runningBy.set(task.tenant, left);
			else this.runningBy.delete(task.tenant);
			while (this.running < this.options.size) {
				const next = this.next();
				if (!next) break;
				void this.start(next);
			}
		}
	}

	private async exec(bytes: Uint8Array, task: PoolJob): Promise<Uint8Array> {
		const budgetMs = task.budgetMs ?? this.options.timeoutMs;
		let worker = this.idle.pop();
		if (!worker) {
			const [starting] = this.warming;
			if (starting) this.warming.delete(starting);
			worker = await (starting ?? this.spawn());
		}
		if (this.closed) throw new Error("the stamping pool is closed");
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			const done = () => {
				clearTimeout(timer);
				worker.off("message", onMessage);
				worker.off("error", onError);
				worker.off("exit", onExit);
				worker.unref();
			};
			const onMessage = (answer: StampAnswer) => {
				if (answer.id !== id) return;
				done();
				if (!this.closed) this.idle.push(worker);
				if ("bytes" in answer) return resolve(answer.bytes);
				const { message, notWatermarkable } = answer.error;
				reject(notWatermarkable ? new NotWatermarkableError(message) : new Error(message));
			};
			const onError = (err: Error & { code?: string }) => {
				done();
				reject(
					err.code === "ERR_WORKER_OUT_OF_MEMORY"
						? new NotWatermarkableError("the file needs too much memory to stamp")
						: err,
				);
			};
			const onExit = (code: number) => {
				done();
				reject(new Error(`a stamping worker exited with code ${code}`));
			};
			const timer = setTimeout(() => {
				done();
				void worker.terminate();
				reject(new NotWatermarkableError(`stamping took longer than ${budgetMs / 1000} s`));
			}, budgetMs);
			worker.on("message", onMessage);
			worker.once("error", onError);
			worker.once("exit", onExit);
			// Referenced while it works, so a short-lived process waits for the answer.
			worker.ref();
			const job: StampJob = { id, bytes, type: task.type, line: task.line, limits: task.limits };
			worker.postMessage(job, [bytes.buffer as ArrayBuffer]);
		});
	}

	/** A new worker, once it has loaded (start-up does not count against a job's time). */
	private spawn(): Promise<Worker> {
		const worker = newWorker({ resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } });
		this.workers.add(worker);
		worker.on("exit", () => {
			this.workers.delete(worker);
			const at = this.idle.indexOf(worker);
			if (at >= 0) this.idle.splice(at, 1);
		});
		// An idle worker's failure has no job to report to; its exit handler above cleans up.
		worker.on("error", () => {});
		return new Promise((resolve, reject) => {
			const settle = (err?: Error) => {
				worker.off("message", onReady);
				worker.off("error", settle);
				worker.off("exit", onExit);
				worker.unref();
				if (err) reject(err);
				else resolve(worker);
			};
			const onReady = (message: unknown) => {
				if ((message as { ready?: boolean }).ready) settle();
			};
			const onExit = (code: number) =>
				settle(new Error(`a stamping worker exited with code ${code} while starting`));
			worker.on("message", onReady);
			worker.once("error", settle);
			worker.once("exit", onExit);
		});
	}
}
