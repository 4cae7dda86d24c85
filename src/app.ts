// buildApp(config): the one app factory used by src/main.ts, the CLI and every test. It never listens.
import path from "node:path";
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance, LogController } from "fastify";
import pino from "pino";
import { backgroundWork } from "./background.ts";
import { type Config, publicOrigin } from "./config.ts";
import { openStore, type Store } from "./db/index.ts";
import { accountRoutes } from "./features/accounts/routes.ts";
import { sessionResolver } from "./features/accounts/service.ts";
import { answerRoutes } from "./features/answers/routes.ts";
import { apiKeysCollection } from "./features/apikeys/collection.ts";
import { apiKeyResolver } from "./features/apikeys/service.ts";
import { attestationsCollection } from "./features/attestations/collection.ts";
import { statusListUri } from "./features/attestations/credential.ts";
import type { CredentialClaimer } from "./features/attestations/held.ts";
import { credentialsCollection } from "./features/attestations/held-collection.ts";
import { attestationRoutes } from "./features/attestations/routes.ts";
import { callbackRoutes } from "./features/callbacks/routes.ts";
import { challengeRoutes, createChallengeScopes } from "./features/challenges/routes.ts";
import { type CollectionRegistration, collection } from "./features/collections/registry.ts";
import { collectionRoutes } from "./features/collections/routes.ts";
import { connectionsCollection } from "./features/connections/collection.ts";
import { connectionRoutes } from "./features/connections/routes.ts";
import { consoleRoutes } from "./features/console/routes.ts";
import { formatRoutes } from "./features/formats/routes.ts";
import { grantRoutes } from "./features/grants/routes.ts";
import { identitiesCollection } from "./features/identity/collection.ts";
import { identityRoutes } from "./features/identity/routes.ts";
import { invitationsCollection } from "./features/invitations/collection.ts";
import { invitationRoutes } from "./features/invitations/routes.ts";
import type { Mailer } from "./features/mail/service.ts";
import { notificationsCollection } from "./features/notifications/collection.ts";
import { notificationRoutes } from "./features/notifications/routes.ts";
import { oidcRoutes } from "./features/oidc/routes.ts";
import { passkeysCollection } from "./features/passkeys/collection.ts";
import { passkeyPageRoutes } from "./features/passkeys/page.ts";
import { passkeyRoutes } from "./features/passkeys/routes.ts";
import { relyingParty } from "./features/passkeys/service.ts";
import { requestsCollection } from "./features/requests/collection.ts";
import { requestRoutes } from "./features/requests/routes.ts";
import { loadRootKey, type RootKey, type RsaKeyPairSource } from "./features/server/root-key.ts";
import { serverRoutes } from "./features/server/routes.ts";
import { linksCollection } from "./features/shares/collection.ts";
import { createGrantHooks } from "./features/shares/grant-hooks.ts";
import { linkReadsCollection } from "./features/shares/reads.ts";
import { shareRoutes } from "./features/shares/routes.ts";
import { shareStampFor } from "./features/shares/service.ts";
import { stampingRoutes } from "./features/stamping/routes.ts";
import { transferRoutes } from "./features/transfer/routes.ts";
import { fileRoutes } from "./features/vault/files/routes.ts";
import { recordsCollection } from "./features/vault/records/collection.ts";
import { sectionsCollection } from "./features/vault/sections/collection.ts";
import { templatesCollection } from "./features/vault/templates/collection.ts";
import { workspacesCollection } from "./features/workspaces/collection.ts";
import { createWorkspaceHooks } from "./features/workspaces/hooks.ts";
import { membersCollection } from "./features/workspaces/members.ts";
import { workspaceRoutes } from "./features/workspaces/routes.ts";
import { registerAnswerRounds } from "./http/answer-rounds.ts";
import { authPlugin } from "./http/auth.ts";
import { refuseEncodedBodies } from "./http/content-encoding.ts";
import { registerJsonBody } from "./http/json-body.ts";
import { lazyChildLogger } from "./http/lazy-logger.ts";
import { type Metrics, registerMetrics } from "./http/metrics.ts";
import { frameworkProblem, registerProblemHandlers } from "./http/problem.ts";
import { type RateLimits, rateLimits, registerRateLimit } from "./http/rate-limit.ts";
import { declareCommonErrors, ProblemSchema } from "./http/schemas.ts";
import { registerSecurityHeaders } from "./http/security-headers.ts";
import { registerTextGuard } from "./http/text-guard.ts";
import { serializerFactory, validatorCompiler } from "./http/validation.ts";
import type { BlobStore } from "./lib/blob-store.ts";
import { openBlobStore } from "./lib/blob-store-config.ts";
import { type Clock, systemClock } from "./lib/clock.ts";
import { requestId } from "./lib/crypto.ts";
import { createOutboundClient, type OutboundClient } from "./lib/outbound.ts";
import { createStamper, type Stamper } from "./lib/stamp/index.ts";
import type { Background } from "./worker/background.ts";

declare module "fastify" {
	interface FastifyInstance {
		config: Config;
		store: Store;
		clock: Clock;
		blobs: BlobStore;
		/** Stamps files off the event loop (a worker pool per app, stopped on close). */
		stamper: Stamper;
		rootKey: RootKey;
		limits: RateLimits;
		/** Outgoing mail when SMTP_URL is set; undefined (and no mail code loaded) otherwise. */
		mail: Mailer | undefined;
		/** Prometheus metrics when METRICS_PORT is set (its listener started by the process). */
		metrics: Metrics | undefined;
		/**
		 * The outbox passes and sweeps (src/background.ts): `start()` in the server process,
		 * `drainOnce(now)` in tests.
		 */
		background: Background;
		/** Every route registered, for the OpenAPI completeness test and the bench. */
		routeList: { method: string; url: string; hidden: boolean }[];
	}
}

export interface AppDeps {
	clock?: Clock;
	blobs?: BlobStore;
	/** Extra routes registered before the app is ready (tests use it for error-path routes). */
	extend?: (app: FastifyInstance) => Promise<void>;
	/** Where log lines go instead of stdout (tests read them). */
	logStream?: NodeJS.WritableStream;
	/** Total bound of one callback delivery in ms (tests shorten it; the spec's 10 s otherwise). */
	callbackTimeoutMs?: number;
	/** Bounds of one SMTP attempt in ms (tests shorten them). */
	smtpTimeouts?: { connection: number; socket: number };
	/**
	 * Where the root key's RSA-2048 pair comes from on a database's first start: a new one by
	 * default. Tests hand out pairs made once for the whole suite (each app of one test process its
	 * own), as RSA generation cost a quarter second of CPU per app built.
	 */
	rsaKeyPair?: RsaKeyPairSource;
}

export type App = FastifyInstance;

export const API_VERSION = "0.1.0";

/**
 * The collections of `/api/collections/{collection}/records`, in the order the API documents them:
 * each feature's module (its collection.ts), with what its handlers need beyond the database, the
 * caller and the clock, taken from the app at start-up.
 */
export const collections: readonly CollectionRegistration[] = [
	collection(workspacesCollection, (app) => ({ blobs: app.blobs, workspaceHooks: app.workspaceHooks })),
	collection(membersCollection),
	collection(invitationsCollection, (app) => ({ origin: relyingParty(app.config).origin, mail: app.mail })),
	collection(recordsCollection, (app) => ({ blobs: app.blobs, grantHooks: app.grantHooks })),
	collection(sectionsCollection),
	collection(templatesCollection),
	collection(notificationsCollection),
	collection(passkeysCollection),
	collection(apiKeysCollection),
	collection(identitiesCollection, (app) => ({ rootKey: app.rootKey, domain: app.config.domain })),
	collection(requestsCollection, (app) => ({
		callbackPolicy: { allowPrivate: app.config.allowPrivateCallbacks, dnsServers: app.config.dnsServers },
	})),
	collection(linksCollection, (app) => ({ grantHooks: app.grantHooks })),
	collection(linkReadsCollection),
	collection(connectionsCollection),
	collection(attestationsCollection, (app) => ({
		allowAttestations: app.config.allowAttestations,
		statusList: statusListUri(publicOrigin(app.config)),
	})),
	// Filled in by the attestations plugin, which holds the key ring the claim needs (held.ts).
	collection(credentialsCollection, (app) => ({ credentialClaim: app.credentialClaim })),
];

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<App> {
	const clock = deps.clock ?? systemClock;
	const app = Fastify({
		logger: loggerOptions(config, deps),
		// One access line per request only when LOG_REQUESTS is on (hook below); errors always log.
		logController: new LogController({ disableRequestLogging: true }),
		trustProxy: config.trustProxy,
		bodyLimit: config.bodyLimit,
		genReqId: requestId,
		childLoggerFactory: lazyChildLogger,
		return503OnClosing: true,
		frameworkErrors: frameworkProblem,
		forceCloseConnections: "idle",
		ajv: { customOptions: { removeAdditional: false } },
		schemaController: { compilersFactory: { buildSerializer: serializerFactory } },
	}).withTypeProvider<TypeBoxTypeProvider>();

	app.setValidatorCompiler(validatorCompiler());
	// Only JSON (and, per route, multipart) bodies: a text/plain body is 415, not a string to validate.
	app.removeContentTypeParser("text/plain");
	registerJsonBody(app);
	refuseEncodedBodies(app);
	const routeList: FastifyInstance["routeList"] = [];
	app.decorate("routeList", routeList);
	app.addHook("onRoute", declareCommonErrors);
	app.addHook("onRoute", (route) => {
		const methods = Array.isArray(route.method) ? route.method : [route.method];
		const hidden = Boolean((route.schema as { hide?: boolean } | undefined)?.hide);
		for (const method of methods) if (method !== "HEAD") routeList.push({ method, url: route.url, hidden });
	});
	registerProblemHandlers(app);
	registerTextGuard(app);
	registerAnswerRounds(app);
	// Closing: a keep-alive connection whose request is still in flight closes right after its
	// response instead of idling until keepAliveTimeout (72 s), which held close() (and a SIGTERM
	// past SHUTDOWN_TIMEOUT) open. Node reads the timeout when each response finishes.
	app.addHook("preClose", (done) => {
		app.server.keepAliveTimeout = 1;
		done();
	});

	const store = await openStore(config, app.log);
	app.addHook("onClose", async () => {
		await store.destroy();
	});
	try {
		const rootKey = await loadRootKey(store.db, config.domain, clock, deps.rsaKeyPair);
		app.decorate("config", config);
		app.decorate("store", store);
		app.decorate("clock", clock);
		const blobs = deps.blobs ?? openBlobStore(config);
		await blobs.ready(); // an unreachable bucket stops the start with what is wrong
		app.decorate("blobs", blobs);
		// Stamped copies are kept in DATA_DIR/stamp-cache (bounded; docs/api.md "Stamping").
		const stamper = createStamper({ cacheDir: path.join(config.dataDir, "stamp-cache") });
		app.addHook("onClose", () => stamper.close());
		app.decorate("stamper", stamper);
		app.decorate("rootKey", rootKey);
		// Mail is a part the operator turns on: without SMTP_URL its code is never imported.
		app.decorate("mail", config.smtpUrl === "" ? undefined : await loadMailer(config, rootKey));
		app.decorate("limits", rateLimits(config));
		// Features with challengeable slugs register here (app.challengeScopes.register).
		app.decorate("challengeScopes", createChallengeScopes());
		// Features with rows a workspace deletion must revoke or remove register here.
		app.decorate("workspaceHooks", createWorkspaceHooks());
		// Features watching shares and the records behind them register here (grant events).
		app.decorate("grantHooks", createGrantHooks());
		// The credentials collection's create runs the attestations plugin's claim (held.ts).
		app.decorate("credentialClaim", {} as CredentialClaimer);

		await app.register(authPlugin);
		app.authResolvers.session = sessionResolver(store.db);
		app.authResolvers.apiKey = apiKeyResolver(store.db);
		registerSecurityHeaders(app);
		app.decorate("metrics", config.metricsPort === null ? undefined : registerMetrics(app));
		if (config.logRequests) {
			app.addHook("onResponse", async (request, reply) => {
				request.log.info(
					{
						method: request.method,
						url: request.routeOptions.url,
						status: reply.statusCode,
						ms: reply.elapsedTime,
					},
					"request",
				);
			});
		}

		await registerOpenApi(app);
		await registerRateLimit(app, config);

		const callbacks = createOutboundClient({
			allowPrivate: config.allowPrivateCallbacks,
			dnsServers: config.dnsServers,
			timeoutMs: deps.callbackTimeoutMs,
		});
		await registerFeatures(app, callbacks);
		const background = await backgroundWork(app, { callbacks, smtpTimeouts: deps.smtpTimeouts });
		app.decorate("background", background);
		app.addHook("onClose", () => background.close());
		if (deps.extend) await deps.extend(app);
		app.get("/api/openapi.json", { schema: { hide: true } }, async () => app.swagger());

		await app.ready();
	} catch (err) {
		await app.close();
		throw err;
	}
	return app;
}

async function loadMailer(config: Config, rootKey: RootKey): Promise<Mailer> {
	const { createMailer } = await import("./features/mail/service.ts");
	return createMailer({ config, origin: publicOrigin(config), rootPrivateKey: rootKey.privateKey });
}

/** Pino at LOG_LEVEL (none when silent), writing asynchronously, credentials redacted. */
function loggerOptions(config: Config, deps: AppDeps) {
	return config.logLevel === "silent"
		? false
		: {
				level: config.logLevel,
				// Asynchronous destination: a log line never blocks a request on a write (design: hot paths).
				stream: deps.logStream ?? pino.destination({ sync: false }),
				redact: ["req.headers.authorization", 'req.headers["x-api-key"]', 'req.headers["x-svc-connection"]'],
			};
}

/** The OpenAPI document (served at /api/openapi.json) and the problem schema every route answers with. */
async function registerOpenApi(app: App): Promise<void> {
	app.addSchema(ProblemSchema);
	await app.register(swagger, {
		openapi: {
			openapi: "3.1.0",
			info: {
				title: "Living-grant sharing and collection service",
				version: API_VERSION,
				description:
					"Every error is application/problem+json with a `code`; see docs/api.md. A string holding NUL (U+0000) or a lone UTF-16 surrogate is refused before any query: 400 `validation_failed` in a body or query, 404 (the route's code for an unknown id) in a path. A rate-limited route (429 `rate_limited`) answers 503 `service_unavailable` while the Redis its counters live in (REDIS_URL) cannot be reached.",
			},
			components: {
				securitySchemes: {
					ApiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
					Session: {
						type: "http",
						scheme: "bearer",
						description: "session token from /api/passkeys/token",
					},
					Connection: { type: "apiKey", in: "header", name: "X-Svc-Connection" },
				},
			},
		},
		refResolver: { buildLocalReference: (json, _base, _frag, i) => (json.$id as string) ?? `def-${i}` },
	});
}

/** Every feature's routes, in order (the OpenAPI document lists them so). */
async function registerFeatures(app: App, callbacks: OutboundClient): Promise<void> {
	await app.register(serverRoutes);
	await app.register(identityRoutes);
	await app.register(challengeRoutes);
	await app.register(accountRoutes);
	await app.register(invitationRoutes);
	await app.register(workspaceRoutes);
	await app.register(passkeyRoutes);
	await app.register(passkeyPageRoutes);
	await app.register(collectionRoutes, { collections });
	await app.register(notificationRoutes);
	await app.register(fileRoutes);
	await app.register(transferRoutes);
	await app.register(requestRoutes);
	await app.register(callbackRoutes, { client: callbacks });
	if (app.mail) {
		const { mailRoutes } = await import("./features/mail/routes.ts");
		await app.register(mailRoutes, { mailer: app.mail });
	}
	await app.register(shareRoutes);
	await app.register(connectionRoutes);
	await app.register(formatRoutes);
	await app.register(answerRoutes);
	await app.register(grantRoutes);
	await app.register(oidcRoutes);
	await app.register(attestationRoutes);
	await app.register(stampingRoutes, { shareStampFor });
	await app.register(consoleRoutes);
}
