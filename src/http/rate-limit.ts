// Per-IP rate limits, declared per route by name (`config: { rateLimit }`). Counters live in memory
// on one node and in Redis when REDIS_URL is set so several nodes share them. A refusal is 429
// `rate_limited` with Retry-After.
//
// Our own hook, not @fastify/rate-limit's: the plugin's hook is an async function that wraps every
// counter in a promise, which cost the public share probe about a sixth of its throughput (bench/
// README.md, 2026-11-25). Here the in-memory count answers in the same call, with no promise; the
// Redis count calls back after its round trip. Counting, keys and headers are the plugin's: a fixed
// window per route and client, the client an IPv6 /64 or an IPv4 address, the same Redis script and
// key layout (so counters carry over), and `X-RateLimit-Limit`, `-Remaining`, `-Reset` and
// `Retry-After`.
import type { FastifyBaseLogger, FastifyInstance, onRequestHookHandler } from "fastify";
import type { Redis } from "ioredis";
import { Address6 } from "ip-address";
import type { Clock } from "../lib/clock.ts";
import { AppError } from "./errors.ts";

declare module "fastify" {
	interface FastifyContextConfig {
		/** This route's limit per client (one of `rateLimits`); a route without one is not limited. */
		rateLimit?: Limit;
	}
	interface FastifyInstance {
		/**
		 * A limit counted per subject and client across every route that asks it (not per route):
		 * one counter per `name`, in memory or in Redis like the routes' (`svc-rl:<name>-<subject>-<client>`).
		 */
		keyedLimit(name: string, limit: Limit): KeyedLimit;
	}
}

/** Counts one attempt at `subject` by the client at `ip`; past the limit, throws 429 `rate_limited`. */
export type KeyedLimit = (subject: string, ip: string) => Promise<void>;

export interface Limit {
	max: number;
	timeWindow: number;
}

/** Every named limit in one place (documented in docs/api.md "Rate limits"). */
/** The settings the limits read (config.ts "RATELIMIT_*", "REDIS_URL"). */
export interface RateLimitSettings {
	ratelimitConnectRequests: number;
	redisUrl: string;
}

export function rateLimits(config: Pick<RateLimitSettings, "ratelimitConnectRequests">) {
	const minute = 60_000;
	return {
		/** Discovery reads that sign (server claim, identity status). */
		discovery: { max: 600, timeWindow: minute },
		/** Public probes of shares and requests. */
		probe: { max: 120, timeWindow: minute },
		/** Password gates and resolves: low so a slug's password cannot be brute-forced. */
		gate: { max: 30, timeWindow: minute },
		/** Password attempts at one share by one client, every route that checks a password together. */
		password: { max: 30, timeWindow: minute },
		/** Challenge nonces. */
		challenge: { max: 60, timeWindow: minute },
		/** Passkey ceremonies (login per IP, as the spec asks). */
		passkey: { max: 30, timeWindow: minute },
		/** One-time code redemption (passkey token, OIDC token). */
		redeem: { max: 30, timeWindow: minute },
		/** `POST /api/connect/token`: RATELIMIT_CONNECT_REQUESTS per minute per IP. */
		connectToken: { max: config.ratelimitConnectRequests, timeWindow: minute },
		/** File and archive downloads. */
		download: { max: 120, timeWindow: minute },
		/** CPU-heavy work (stamping, verification). */
		heavy: { max: 20, timeWindow: minute },
		/** `POST /api/requests/callback-test`: each call may hold an outbound request for up to 10 s. */
		callbackTest: { max: 10, timeWindow: minute },
		/** `POST /api/grants/resolve` (up to 100 grants a call) and the relay of remote answers. */
		grantRead: { max: 300, timeWindow: minute },
		/** `/oidc/token` and `/oidc/userinfo`: a service's backend asks for every person it signs in. */
		oidcService: { max: 600, timeWindow: minute },
		/** `POST /api/attestations/verify`: a service checks every presentation it receives. */
		verify: { max: 120, timeWindow: minute },
	} satisfies Record<string, Limit>;
}

export type RateLimits = ReturnType<typeof rateLimits>;

/** A window's count with this request in it, and the milliseconds left of the window. */
export interface Count {
	current: number;
	ttl: number;
}

/** One route's counters. `incr` calls back at once in memory, after the round trip in Redis. */
interface Counter {
	incr(key: string, now: number, done: (err: Error | null, count?: Count) => void): void;
}

/** Clients whose windows a route keeps in memory at least (the plugin's cache size); at most twice it. */
export const MEMORY_KEYS = 5000;

interface Window {
	count: number;
	start: number;
}

/**
 * Fixed windows in two generations of Maps. A client is looked up in the current one, then in the
 * previous one, from which it moves to the current one; when the current one is full it becomes the
 * previous one and the old previous one is dropped whole. So the `maxKeys` clients seen last always
 * keep their windows, every step is O(1) (a Map used as a queue is not: iterating it skips every
 * entry deleted at its front), and memory stays under twice `maxKeys` windows.
 */
export class MemoryCounter implements Counter {
	#current = new Map<string, Window>();
	#previous = new Map<string, Window>();

	constructor(
		readonly timeWindow: number,
		readonly maxKeys = MEMORY_KEYS,
	) {}

	/** Windows held, both generations. */
	get size(): number {
		return this.#current.size + this.#previous.size;
	}

	incr(key: string, now: number, done: (err: Error | null, count?: Count) => void): void {
		done(null, this.count(key, now));
	}

	count(key: string, now: number): Count {
		let window = this.#current.get(key);
		if (window === undefined) {
			window = this.#previous.get(key);
			if (window !== undefined) this.#previous.delete(key);
			else window = { count: 0, start: now };
			if (this.#current.size >= this.maxKeys) {
				this.#previous = this.#current;
				this.#current = new Map();
			}
			this.#current.set(key, window);
		}
		if (window.start + this.timeWindow <= now) {
			window.count = 0;
			window.start = now;
		}
		window.count++;
		return { current: window.count, ttl: window.start + this.timeWindow - now };
	}
}

/** The plugin's script without its options we do not use: count, and start the window on the first. */
const REDIS_INCR = `
local current = redis.call('INCR', KEYS[1])
local ttl = tonumber(ARGV[1])
if current == 1 then
  redis.call('PEXPIRE', KEYS[1], ttl)
else
  ttl = redis.call('PTTL', KEYS[1])
end
return {current, ttl}`;

type RateLimitRedis = Redis & {
	svcRateLimit(
		key: string,
		timeWindow: number,
		done: (err: Error | null, result?: [number, number]) => void,
	): void;
};

class RedisCounter implements Counter {
	constructor(
		readonly redis: RateLimitRedis,
		readonly prefix: string,
		readonly timeWindow: number,
		readonly log: FastifyBaseLogger,
	) {}

	incr(key: string, _now: number, done: (err: Error | null, count?: Count) => void): void {
		this.redis.svcRateLimit(this.prefix + key, this.timeWindow, (err, result) => {
			if (err || !result) {
				// While Redis is away its client has said so once (registerRateLimit); a failure
				// with Redis there is news each time.
				if (this.redis.status === "ready") this.log.error({ err }, "rate-limit count failed");
				done(err ?? new Error("the rate-limit script answered nothing"));
			}
			// A key Redis lost the expiry of (PTTL -1) ends its window now rather than never.
			else done(null, { current: result[0], ttl: Math.max(result[1], 0) });
		});
	}
}

/**
 * Who a request is counted as: its address, an IPv6 one by its /64 (one host's or home's share of a
 * network, which it can rotate through freely) and an IPv4-mapped one as plain IPv4.
 */
export function clientKey(ip: string): string {
	if (!ip.includes(":")) return ip.toLowerCase();
	try {
		const address = new Address6(ip);
		if (address.isMapped4()) return address.to4().correctForm();
		return new Address6(`${address.correctForm()}/64`).startAddress().correctForm();
	} catch {
		return ip.toLowerCase(); // not an address (a proxy's header passed on): counted as written
	}
}

/** The onRequest hook of one limited route: a callback, so an in-memory count adds no promise. */
function limiter(counter: Counter, limit: Limit, clock: Clock): onRequestHookHandler {
	const max = String(limit.max);
	return (request, reply, done) => {
		counter.incr(clientKey(request.ip), clock.now(), (err, count) => {
			if (err || !count) {
				return done(
					new AppError("service_unavailable", "Rate limits cannot be counted right now; retry later"),
				);
			}
			const reset = Math.ceil(count.ttl / 1000);
			reply.header("x-ratelimit-limit", max);
			reply.header("x-ratelimit-remaining", Math.max(0, limit.max - count.current));
			reply.header("x-ratelimit-reset", reset);
			if (count.current <= limit.max) return done();
			reply.header("retry-after", reset);
			done(new AppError("rate_limited", `Too many requests; retry in ${reset} s`));
		});
	};
}

/** A keyed limit over one counter: the subject and the client make the key. */
function keyedCounter(counter: Counter, limit: Limit, clock: Clock): KeyedLimit {
	return (subject, ip) =>
		new Promise((resolve, reject) => {
			counter.incr(`${subject}-${clientKey(ip)}`, clock.now(), (err, count) => {
				if (err || !count) {
					return reject(
						new AppError("service_unavailable", "Rate limits cannot be counted right now; retry later"),
					);
				}
				if (count.current <= limit.max) return resolve();
				const reset = String(Math.ceil(count.ttl / 1000));
				reject(
					new AppError("rate_limited", `Too many attempts; retry in ${reset} s`, {
						headers: { "retry-after": reset },
					}),
				);
			});
		});
}

export async function registerRateLimit(app: FastifyInstance, config: RateLimitSettings): Promise<void> {
	// The Redis client is loaded only when REDIS_URL is set; one node keeps counters in memory.
	let redis: RateLimitRedis | undefined;
	if (config.redisUrl) {
		const client = new (await import("ioredis")).Redis(config.redisUrl, {
			connectTimeout: 2000,
			maxRetriesPerRequest: 1,
			enableOfflineQueue: true,
		});
		client.defineCommand("svcRateLimit", { numberOfKeys: 1, lua: REDIS_INCR });
		// ioredis reconnects by itself; the log says when it went and when it came back, once each.
		let down = false;
		client.on("error", (err) => {
			if (!down) app.log.error({ err }, "Redis for rate limits unreachable: limited routes answer 503");
			down = true;
		});
		client.on("ready", () => {
			if (down) app.log.info("Redis for rate limits reachable again");
			down = false;
		});
		redis = client as RateLimitRedis;
		app.addHook("onClose", async () => void (await client.quit()));
	}
	const counterFor = (prefix: string, limit: Limit): Counter =>
		redis ? new RedisCounter(redis, prefix, limit.timeWindow, app.log) : new MemoryCounter(limit.timeWindow);
	const keyed = new Map<string, KeyedLimit>();
	app.decorate("keyedLimit", (name: string, limit: Limit): KeyedLimit => {
		let found = keyed.get(name);
		if (!found) {
			found = keyedCounter(counterFor(`svc-rl:${name}-`, limit), limit, app.clock);
			keyed.set(name, found);
		}
		return found;
	});
	app.addHook("onRoute", (route) => {
		const limit = route.config?.rateLimit;
		if (!limit) return;
		// The plugin's key layout: a route's counters under its method and path.
		const counter = counterFor(`svc-rl:${route.method}${route.url}-`, limit);
		const hooks = route.onRequest ? [route.onRequest].flat() : [];
		route.onRequest = [...hooks, limiter(counter, limit, app.clock)];
	});
}
