// Imported first by main.ts, before any other module is loaded. Loading and compiling the server
// survives many young-generation collections, and V8 answers each by doubling the young
// generation, up to 2 x 16 MB that an idle server then keeps. While the server starts, the young
// generation keeps its initial size (growth factor 1); `startupDone` gives V8 back its default
// (2), so under load it grows as before and the memory reducer shrinks it again when idle.
//
// Under load it grows to at most 2 x 8 MB (`YOUNG_CAP`), not V8's 2 x 16 MB: the second doubling
// added about 25 MB of resident memory under spread resolves and no measured throughput
// (bench/README.md "Memory under spread resolves"). V8 fixes its ceiling when the process starts
// (`--max-semi-space-size`), where a server started as `node dist/src/main.js` has no say; so
// after every collection the young generation's size decides the growth factor: 1 (no more
// growth) once it holds the cap, V8's 2 again when its memory reducer has shrunk it below.
//
// On PostgreSQL, old-generation garbage is bounded too (`boundOldGeneration`).
import { PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";

const DEFAULT_GROWTH_FACTOR = 2;
/** Both semi-spaces of the young generation, in bytes, past which it does not grow. */
export const YOUNG_CAP = 16 * 1024 * 1024;

v8.setFlagsFromString("--semi-space-growth-factor=1");

/** The young generation's size now (both semi-spaces), in bytes. */
export function youngSize(): number {
	return v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space")?.space_size ?? 0;
}

/** The server has started: the young generation may grow again, up to `YOUNG_CAP`. */
export function startupDone(): void {
	let growing: boolean | undefined;
	const decide = () => {
		const grow = youngSize() < YOUNG_CAP;
		if (grow === growing) return;
		growing = grow;
		v8.setFlagsFromString(`--semi-space-growth-factor=${grow ? DEFAULT_GROWTH_FACTOR : 1}`);
	};
	decide();
	// A young generation grows by one doubling at most per collection: deciding after each one
	// stops it at the cap.
	new PerformanceObserver(decide).observe({ entryTypes: ["gc"] });
}

/** How far the old generation may grow past what its last full collection kept, in percent. */
export const OLD_GROWTH_PERCENT = 50;

/**
 * PostgreSQL: a share read waits on a database round trip, so its objects outlive two young
 * collections and are promoted, about 14 MB a second under spread resolves (`--trace-gc`); V8 then
 * lets the old generation grow to up to 4x what a full collection keeps before the next one, and
 * resident memory swung between 150 and 250 MiB around a live heap of 36 MB (bench/README.md,
 * "A sixth sitting"). Growth of at most half of what is kept holds it at about 145
 * MiB for one more full collection every second or two. SQLite's reads are synchronous, promote
 * little, and keep V8's default.
 */
export function boundOldGeneration(): void {
	v8.setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH_PERCENT}`);
}
