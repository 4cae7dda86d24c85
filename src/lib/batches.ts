// Calls that would queue on one database row, run as one: per key, one batch at a time. The first
// call of a key runs at once, alone; the calls that arrive while a batch runs wait in this process
// instead of on the row's lock, and run together as the next batch. Under no load nothing waits;
// under load a batch holds what arrived during one round trip, so the row is locked and its commit
// flushed once per batch instead of once per call.

interface Waiting<In, Out> {
	input: In;
	resolve: (out: Out) => void;
	reject: (error: unknown) => void;
}

/**
 * `run` gets a batch of inputs for one key and answers each, in order (an array as long as the
 * batch). A batch holds at most `max` calls; an error of `run` rejects every call of its batch.
 * A key is held only while its calls run, so the number of keys is bounded by the calls in flight.
 */
export function keyedBatches<In, Out>(
	run: (key: string, batch: In[]) => Promise<Out[]>,
	max: number,
): (key: string, input: In) => Promise<Out> {
	/** Per key with a batch running: the calls that arrived since it started. */
	const queues = new Map<string, Waiting<In, Out>[]>();

	const drain = async (key: string, first: Waiting<In, Out>[]) => {
		let batch = first;
		while (batch.length > 0) {
			try {
				const outs = await run(
					key,
					batch.map((w) => w.input),
				);
				if (outs.length !== batch.length)
					throw new Error(`keyedBatches: ${outs.length} answers for ${batch.length} calls`);
				for (const [i, w] of batch.entries()) w.resolve(outs[i] as Out);
			} catch (error) {
				for (const w of batch) w.reject(error);
			}
			const waiting = queues.get(key) ?? [];
			batch = waiting.splice(0, max);
		}
		queues.delete(key);
	};

	return (key, input) =>
		new Promise<Out>((resolve, reject) => {
			const waiting = queues.get(key);
			if (waiting) {
				waiting.push({ input, resolve, reject });
				return;
			}
			queues.set(key, []);
			void drain(key, [{ input, resolve, reject }]);
		});
}

/**
 * Calls of any key gathered per event-loop round and run as one batch (`run` answers each, in
 * order). A call waits for the round it arrived in to end (`setImmediate`), then for a free lane:
 * at most `lanes` batches run at once, each of at most `max` calls, so a call never joins a batch
 * begun before it arrived. Under no load a call runs alone when its round ends; under load a batch
 * holds the calls of one round, or of the round trip the lanes were busy for.
 */
export function roundBatches<In, Out>(
	run: (batch: In[]) => Promise<Out[]>,
	{ max, lanes }: { max: number; lanes: number },
): (input: In) => Promise<Out> {
	let queue: Waiting<In, Out>[] = [];
	let running = 0;
	let scheduled = false;

	const start = (batch: Waiting<In, Out>[]) => {
		running++;
		run(batch.map((w) => w.input))
			.then(
				(outs) => {
					if (outs.length !== batch.length)
						throw new Error(`roundBatches: ${outs.length} answers for ${batch.length} calls`);
					for (const [i, w] of batch.entries()) w.resolve(outs[i] as Out);
				},
				(error: unknown) => {
					for (const w of batch) w.reject(error);
				},
			)
			.catch((error: unknown) => {
				for (const w of batch) w.reject(error);
			})
			.finally(() => {
				running--;
				// The calls that arrived while every lane was busy go now, together.
				if (!scheduled) flush();
			});
	};
	const flush = () => {
		scheduled = false;
		while (running < lanes && queue.length > 0) {
			const batch = queue.length <= max ? queue : queue.slice(0, max);
			queue = queue.length <= max ? [] : queue.slice(max);
			start(batch);
		}
	};
	return (input) =>
		new Promise<Out>((resolve, reject) => {
			queue.push({ input, resolve, reject });
			if (!scheduled && running < lanes) {
				scheduled = true;
				setImmediate(flush);
			}
		});
}
