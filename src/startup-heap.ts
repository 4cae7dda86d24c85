// Imported first by main.ts, before any other module is loaded. Loading and compiling the server
// survives many young-generation collections, and V8 answers each by doubling the young
// generation, up to 2 x 16 MB that an idle server then keeps. While the server starts, the young
// generation keeps its initial size (growth factor 1); `startupDone` gives V8 back its default
// (2), so under load it grows as before and the memory reducer shrinks it again when idle.
import v8 from "node:v8";

const DEFAULT_GROWTH_FACTOR = 2;

v8.setFlagsFromString("--semi-space-growth-factor=1");

export function startupDone(): void {
	v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}
