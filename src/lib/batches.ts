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
