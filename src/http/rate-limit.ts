// Per-IP rate limits, declared per route by name. Counters live in memory on one node and in Redis
// when REDIS_URL is set so several nodes share them. A refusal is 429 `rate_limited` with Retry-After.
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import { AppError } from "./errors.ts";

export interface Limit {
	max: number;
	timeWindow: number;
}

/** Every named limit in one place (documented in docs/api.md "Rate limits"). */
export function rateLimits(config: Pick<Config, "ratelimitConnectRequests">) {
	const minute = 60_000;
	return {
		/** Discovery reads that sign (server claim, identity status). */
		discovery: { max: 600, timeWindow: minute },
		/** Public probes of shares and requests. */
		probe: { max: 120, timeWindow: minute },
		/** Password gates and resolves: low so a slug's password cannot be brute-forced. */
		gate: { max: 30, timeWindow: minute },
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

export async function registerRateLimit(app: FastifyInstance, config: Config): Promise<void> {
	// The Redis client is loaded only when REDIS_URL is set; one node keeps counters in memory.
	const redis = config.redisUrl
		? new (await import("ioredis")).Redis(config.redisUrl, {
				connectTimeout: 2000,
				maxRetriesPerRequest: 1,
				enableOfflineQueue: true,
			})
		: undefined;
	if (redis) app.addHook("onClose", async () => void (await redis.quit()));
	await app.register(rateLimit, {
		global: false,
		...(redis ? { redis, nameSpace: "svc-rl:" } : {}),
		// The plugin's own key: the client's address, an IPv6 one by its /64 (one host's share of a
		// network, which it can rotate through freely) and an IPv4-mapped one as plain IPv4. Ours
		// (`request.ip`) counted each IPv6 address apart and cost the hot paths an await a request.
		ipv6Subnet: 64,
		// Our error handler writes the problem body; the plugin has already set Retry-After.
		errorResponseBuilder: (_request, context) =>
			new AppError("rate_limited", `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s`),
	});
}
