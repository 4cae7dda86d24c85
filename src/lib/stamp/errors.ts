// Typed failures of stamping, mapped by the routes: a file that cannot carry a stamp, and a pool
// too busy to take more work.

/** The file cannot be stamped: not a supported type, encrypted, damaged, too large or too small. */
export class NotWatermarkableError extends Error {
	constructor(reason: string) {
		super(reason);
		this.name = "NotWatermarkableError";
	}
}

/** Every worker is busy and the waiting line is full; the caller may retry shortly. */
export class StampBusyError extends Error {
	constructor() {
		super("every stamping worker is busy and the queue is full");
		this.name = "StampBusyError";
	}
}

export function isNotWatermarkable(err: unknown): err is NotWatermarkableError {
	return err instanceof NotWatermarkableError;
}
