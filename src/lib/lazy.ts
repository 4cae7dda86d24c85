// Libraries that only some requests need are imported on first use, not at start: each one left
// out of the start keeps its code, its source text and its dependencies out of the idle server's
// resident memory (issue "Hot paths", memory). The import happens once; later calls share it.

/** A loader that imports on its first call and answers the same module to every later call. */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
	let loaded: Promise<T> | undefined;
	return () => {
		loaded ??= load().catch((err: unknown) => {
			loaded = undefined; // a failed import is tried again on the next call
			throw err;
		});
		return loaded;
	};
}
