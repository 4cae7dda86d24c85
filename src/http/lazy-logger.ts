// Fastify makes a child logger for every request, and pino's `child` copies the parent's bindings,
// serializers and levels: about 1.5% of the share probe's CPU (bench/README.md, 2026-11-25). Most
// requests log nothing, so the child is made at the request's first log line, with the same
// bindings (the request id) and options Fastify asked for.
import type { FastifyBaseLogger } from "fastify";
import type { Bindings, ChildLoggerOptions } from "pino";

type Level = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

class LazyChild implements FastifyBaseLogger {
	#child: FastifyBaseLogger | undefined;

	constructor(
		readonly parent: FastifyBaseLogger,
		readonly bindings: Bindings,
		readonly options: ChildLoggerOptions,
	) {}

	/** The child, made on first use. */
	get logger(): FastifyBaseLogger {
		this.#child ??= this.parent.child(this.bindings, this.options);
		return this.#child;
	}

	get level(): string {
		return this.#child?.level ?? this.options.level ?? this.parent.level;
	}

	set level(level: string) {
		this.logger.level = level;
	}

	#write(level: Level, args: unknown[]): void {
		const logger = this.logger;
		(logger[level] as (...args: unknown[]) => void).apply(logger, args);
	}

	fatal(...args: unknown[]): void {
		this.#write("fatal", args);
	}
	error(...args: unknown[]): void {
		this.#write("error", args);
	}
	warn(...args: unknown[]): void {
		this.#write("warn", args);
	}
	info(...args: unknown[]): void {
		this.#write("info", args);
	}
	debug(...args: unknown[]): void {
		this.#write("debug", args);
	}
	trace(...args: unknown[]): void {
		this.#write("trace", args);
	}
	silent(...args: unknown[]): void {
		this.#write("silent", args);
	}

	child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
		return this.logger.child(bindings, options);
	}
}

/** Fastify's `childLoggerFactory`: a request's logger that becomes a pino child when first used. */
export function lazyChildLogger(
	logger: FastifyBaseLogger,
	bindings: Bindings,
	options: ChildLoggerOptions,
): FastifyBaseLogger {
	return new LazyChild(logger, bindings, options);
}
