// A small pool of stamping worker threads, so parsing a PDF or encoding a large image never holds
// up the event loop. Workers start on first use and are replaced when one dies or overruns its
// time. A job's bytes are loaded only once a worker is free for it, so waiting jobs hold no file
// in memory; the waiting line is bounded and a job past it is refused at once (StampBusyError).
import { Worker, type WorkerOptions } from "node:worker_threads";
import { NotWatermarkableError, StampBusyError } from "./errors.ts";
import type { StampAnswer, StampJob } from "./worker.ts";

export interface PoolOptions {
	/** Worker threads, each stamping one file at a time. */
	size: number;
	/** Jobs allowed to wait for a worker; one more is refused. */
	maxQueue: number;
	/** A job running longer is abandoned (its worker is stopped) and the file refused. */
	timeoutMs: number;
	/** Heap cap of each worker, in MiB: a file needing more is refused instead of starving the host. */
	maxHeapMb: number;
}

interface Task {
	load: () => Promise<Uint8Array>;
	type: string;
	line: string;
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
	private readonly waiting: Task[] = [];
	private running = 0;
	private nextId = 1;
	private closed = false;

	constructor(private readonly options: PoolOptions) {}

	/** Jobs stamping now and jobs waiting for a worker (for metrics). */
	get load(): { running: number; queued: number } {
		return { running: this.running, queued: this.waiting.length };
	}

	/** True when a new job would be refused. */
	get saturated(): boolean {
		return this.running >= this.options.size && this.waiting.length >= this.options.maxQueue;
	}

	/** Stamps the bytes `load` answers once a worker is free; `load` must return memory it owns. */
	run(load: () => Promise<Uint8Array>, type: string, line: string): Promise<Uint8Array> {
		return new Promise((resolve, reject) => {
			if (this.closed) return reject(new Error("the stamping pool is closed"));
			const task: Task = { load, type, line, resolve, reject };
			if (this.running < this.options.size) void this.start(task);
			else if (this.waiting.length < this.options.maxQueue) this.waiting.push(task);
			else reject(new StampBusyError());
		});
	}

	async close(): Promise<void> {
		this.closed = true;
		for (const task of this.waiting.splice(0)) task.reject(new Error("the stamping pool is closed"));
		await Promise.all([...this.workers].map((w) => w.terminate()));
	}

	private async start(task: Task): Promise<void> {
		this.running++;
		try {
			const bytes = await task.load();
			task.resolve(await this.exec(bytes, task.type, task.line));
		} catch (err) {
			task.reject(err);
		} finally {
			this.running--;
			const next = this.waiting.shift();
			if (next) void this.start(next);
		}
	}

	private async exec(bytes: Uint8Array, type: string, line: string): Promise<Uint8Array> {
		const worker = this.idle.pop() ?? (await this.spawn());
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
				reject(new NotWatermarkableError(`stamping took longer than ${this.options.timeoutMs / 1000} s`));
			}, this.options.timeoutMs);
			worker.on("message", onMessage);
			worker.once("error", onError);
			worker.once("exit", onExit);
			// Referenced while it works, so a short-lived process waits for the answer.
			worker.ref();
			const job: StampJob = { id, bytes, type, line };
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
