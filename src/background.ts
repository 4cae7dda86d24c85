// The app's background work, wired in one place (buildApp calls it): each feature hands a plain
// function, and this module says which run as outbox passes (every second, in this order) and which
// as sweeps (at start, then on their own interval). The loop itself is src/worker/background.ts,
// started by the server process only (src/main.ts).
import type { FastifyInstance } from "fastify";
import { ANSWER_SWEEP_MS, sweepExpiredAnswers } from "./features/answers/service.ts";
import { drainOnce, MAX_PER_DRAIN } from "./features/callbacks/service.ts";
import { drainPeerEvents, PEER_EVENTS_PER_PASS } from "./features/grants/service.ts";
import type { Mailer } from "./features/mail/service.ts";
import { SHARE_SWEEP_MS, sweepShares } from "./features/shares/service.ts";
import { SWEEP_INTERVAL_MS, sweepBlobs } from "./features/vault/files/sweeper.ts";
import type { OutboundClient } from "./lib/outbound.ts";
import { type Background, createBackground, type DrainPass, type Sweep } from "./worker/background.ts";

export interface BackgroundOptions {
	/** The client callback deliveries go through (the callback test route uses it too). */
	callbacks: OutboundClient;
	/** Bounds of one SMTP attempt in ms (tests shorten them). */
	smtpTimeouts?: { connection: number; socket: number } | undefined;
}

/** The passes and sweeps of `app`; `close()` stops them and closes the clients they send with. */
export async function backgroundWork(
	app: FastifyInstance,
	opts: BackgroundOptions,
): Promise<Background & { close(): Promise<void> }> {
	const { config, store, clock, log } = app;
	const { db, dialect } = store;
	const closers: (() => Promise<void>)[] = [() => opts.callbacks.close()];
	// Built once: a pass runs every second on every node.
	const deliveries = { db, dialect, client: opts.callbacks, log };
	const peerEvents = {
		db,
		dialect,
		domain: config.domain,
		rootKey: app.rootKey,
		peer: () => ({ dnsServers: config.dnsServers, peerOverrides: config.peerOverrides, now: clock.now() }),
		log,
	};
	const passes: DrainPass[] = [
		{ name: "callbacks", cap: MAX_PER_DRAIN, run: (now) => drainOnce(deliveries, now) },
		{ name: "peer events", cap: PEER_EVENTS_PER_PASS, run: (now) => drainPeerEvents(peerEvents, now) },
	];
	if (app.mail) {
		const { pass, close } = await mailPass(app, app.mail, opts.smtpTimeouts);
		passes.push(pass);
		closers.push(close);
	}
	const sweeps: Sweep[] = [
		{
			name: "shares",
			everyMs: SHARE_SWEEP_MS,
			run: () => sweepShares(db, config.readLogDays, clock.now()),
		},
		{
			name: "expired answers",
			everyMs: ANSWER_SWEEP_MS,
			run: async () => {
				await sweepExpiredAnswers(db, app.grantHooks, clock.now());
			},
		},
		{
			name: "blobs",
			everyMs: SWEEP_INTERVAL_MS,
			// Wall-clock time: blob ages are file modification times.
			run: async () => {
				const swept = await sweepBlobs(db, app.blobs);
				if (swept.orphans + swept.partials > 0) log.info(swept, "blob sweep");
			},
		},
	];
	const background = createBackground({ passes, sweeps, clock, log });
	return {
		...background,
		async close() {
			await background.stop();
			for (const close of closers) await close();
		},
	};
}

/** Mail's pass, its code imported only when mail is on (SMTP_URL). */
async function mailPass(
	app: FastifyInstance,
	mailer: Mailer,
	timeouts: BackgroundOptions["smtpTimeouts"],
): Promise<{ pass: DrainPass; close(): Promise<void> }> {
	const [{ createSender }, { drainMail, MAIL_PER_PASS }] = await Promise.all([
		import("./features/mail/sender.ts"),
		import("./features/mail/worker.ts"),
	]);
	const sender = createSender(app.config, timeouts);
	const deps = {
		db: app.store.db,
		dialect: app.store.dialect,
		mailer,
		sender,
		domain: app.config.domain,
		from: app.config.mailFrom,
		log: app.log,
	};
	return {
		pass: { name: "mail", cap: MAIL_PER_PASS, run: (now) => drainMail(deps, now) },
		close: async () => sender.close(),
	};
}
