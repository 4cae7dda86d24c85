/** The time source, passed explicitly so tests can freeze and move it (expiry at exp-1, exp, exp+1). */
export interface Clock {
	now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
	constructor(private t = Date.now()) {}
	now(): number {
		return this.t;
	}
	set(ms: number): void {
		this.t = ms;
	}
	advance(ms: number): void {
		this.t += ms;
	}
}

export const seconds = (ms: number): number => Math.floor(ms / 1000);
