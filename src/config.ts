// Configuration from one schema: every option has a default and a description, is validated at
// start, and the README's table is generated from this list (scripts/config-table.ts; a test
// fails when the README drifts).
import path from "node:path";
import {
	bool,
	ConfigError,
	databaseUrl,
	domain,
	hostPortList,
	httpUrl,
	int,
	logLevel,
	maxFileSize,
	oneOf,
	peerOverrides,
	smtpUrl,
	synchronous,
	text,
} from "./config-parse.ts";

export interface Config {
	domain: string;
	host: string;
	port: number;
	dataDir: string;
	databaseUrl: string;
	databaseSchema: string;
	redisUrl: string;
	allowSignups: boolean;
	allowAnswerSignups: boolean;
	ratelimitAnswerSignups: number;
	maxFileSize: number;
	allowAttestations: boolean;
	allowPrivateCallbacks: boolean;
	peerOverrides: Record<string, string>;
	grantMaxAge: number;
	ratelimitConnectRequests: number;
	dnsServers: string[];
	sqliteSynchronous: "NORMAL" | "FULL";
	readLogDays: number;
	logLevel: string;
	logFormat: "auto" | "json";
	logRequests: boolean;
	trustProxy: boolean;
	bodyLimit: number;
	shutdownTimeout: number;
	metricsPort: number | null;
	metricsHost: string;
	blobStore: "fs" | "s3";
	s3Bucket: string;
	s3Prefix: string;
	s3Endpoint: string;
	s3Region: string;
	s3ForcePathStyle: boolean;
	s3AccessKeyId: string;
	s3SecretAccessKey: string;
	s3PartSize: number;
	smtpUrl: string;
	mailFrom: string;
	smtpTlsCa: string;
	mailLimitAccount: number;
	mailLimitRecipient: number;
}

type Env = Record<string, string | undefined>;

interface Option<K extends keyof Config> {
	key: K;
	env: string;
	default: string;
	description: string;
	parse: (raw: string, name: string) => Config[K];
}

export { ConfigError } from "./config-parse.ts";

export const options: Option<keyof Config>[] = [
	o(
		"domain",
		"DOMAIN",
		"localhost",
		"Domain the server claims; the relying party id for passkeys and the OIDC issuer host. `localhost` is the development mode (origin `http://localhost:<PORT>`).",
		domain,
	),
	o("port", "PORT", "8080", "TCP port to listen on.", int(0, 65535)),
	o("host", "HOST", "0.0.0.0", "Address to bind.", text),
	o("dataDir", "DATA_DIR", "./data", "Folder for the SQLite database and the blob store.", text),
	o(
		"blobStore",
		"BLOB_STORE",
		"fs",
		"Where files live: `fs` (a folder under `DATA_DIR`) or `s3` (S3-compatible object storage, for several nodes; set `S3_BUCKET`).",
		oneOf("fs", "s3"),
	),
	o("s3Bucket", "S3_BUCKET", "", "Bucket for `BLOB_STORE=s3`; it must exist (checked at start).", text),
	o("s3Prefix", "S3_PREFIX", "", "Prefix of every object key, e.g. `svc/`, to share a bucket.", text),
	o(
		"s3Endpoint",
		"S3_ENDPOINT",
		"",
		"`https://…` of an S3-compatible server (MinIO, Ceph, Garage…); empty uses AWS for `S3_REGION`.",
		httpUrl,
	),
	o("s3Region", "S3_REGION", "us-east-1", "Region to sign requests for.", text),
	o(
		"s3ForcePathStyle",
		"S3_FORCE_PATH_STYLE",
		"false",
		"Address the bucket as `<endpoint>/<bucket>` instead of `<bucket>.<endpoint>` (most self-hosted servers need this).",
		bool,
	),
	o(
		"s3AccessKeyId",
		"S3_ACCESS_KEY_ID",
		"",
		"Access key; empty uses the AWS SDK's default chain (`AWS_ACCESS_KEY_ID`, instance roles…).",
		text,
	),
	o("s3SecretAccessKey", "S3_SECRET_ACCESS_KEY", "", "Secret of `S3_ACCESS_KEY_ID`.", text),
	o(
		"s3PartSize",
		"S3_PART_SIZE",
		"8388608",
		"Multipart upload part size in bytes (5 MiB to 5 GiB); each upload holds about three parts in memory.",
		int(5 * 1024 * 1024, 5 * 1024 * 1024 * 1024),
	),
	o(
		"databaseUrl",
		"DATABASE_URL",
		"",
		"`postgres://…` to use PostgreSQL; empty uses SQLite at `DATA_DIR/svc.sqlite`.",
		databaseUrl,
	),
	o(
		"databaseSchema",
		"DATABASE_SCHEMA",
		"",
		"PostgreSQL schema to use (created if missing); empty uses the connection's default search path.",
		text,
	),
	o(
		"redisUrl",
		"REDIS_URL",
		"",
		"`redis://…` to share rate-limit counters between nodes; empty keeps them in memory.",
		text,
	),
	o(
		"allowSignups",
		"ALLOW_SIGNUPS",
		"false",
		"Allow anyone to create an account with a passkey. Off: only operator tickets (`svc admin ticket`).",
		bool,
	),
	o(
		"allowAnswerSignups",
		"ALLOW_ANSWER_SIGNUPS",
		"true",
		'Let a request admit answer-only sign-ups where its requester allows them (each request\'s `allowAnswerSignup`, off by default). `false` forbids them server-wide, whatever the requests say; see docs/operations.md "Answer-only sign-ups".',
		bool,
	),
	o(
		"ratelimitAnswerSignups",
		"RATELIMIT_ANSWER_SIGNUPS",
		"5",
		"Answer-only sign-ups begun per hour per IP (`POST /api/passkeys/register/begin` with `request`).",
		int(1),
	),
	o(
		"maxFileSize",
		"MAX_FILE_SIZE",
		"104857600",
		"Upload cap in bytes; `-1` means no cap. Advertised at `/api/server` as `limits.maxFileSize`.",
		maxFileSize,
	),
	o(
		"allowAttestations",
		"ALLOW_ATTESTATIONS",
		"false",
		"Allow members holding `attestations:issue` to issue SD-JWT VC attestations.",
		bool,
	),
	o(
		"allowPrivateCallbacks",
		"ALLOW_PRIVATE_CALLBACKS",
		"false",
		"Allow callback URLs on loopback and private ranges (link-local, multicast and 0.0.0.0 stay blocked).",
		bool,
	),
	o(
		"peerOverrides",
		"PEER_OVERRIDES",
		"",
		"`domain=http://127.0.0.1:4001,…`: where to reach a peer domain in development (plain http and loopback allowed for it; the TXT pin still applies).",
		peerOverrides,
	),
	o(
		"grantMaxAge",
		"GRANT_MAX_AGE",
		"60",
		"Seconds a reader may keep values read with `POST /api/grants/resolve` (`maxAge`).",
		int(0, 86400),
	),
	o(
		"ratelimitConnectRequests",
		"RATELIMIT_CONNECT_REQUESTS",
		"60",
		"Requests per minute per IP at `POST /api/connect/token`.",
		int(1),
	),
	o(
		"dnsServers",
		"DNS_SERVERS",
		"",
		"`host:port,…` resolvers for `_svc` TXT look-ups and for the A/AAAA look-ups of callback and peer hosts; empty uses the system resolver.",
		hostPortList,
	),
	o(
		"sqliteSynchronous",
		"SQLITE_SYNCHRONOUS",
		"NORMAL",
		"SQLite `synchronous` pragma: `NORMAL` survives a process crash; `FULL` also survives a power cut, slower.",
		synchronous,
	),
	o(
		"readLogDays",
		"READ_LOG_DAYS",
		"90",
		"Days the read log of each share (`linkReads`) keeps an entry.",
		int(1, 36500),
	),
	o("logLevel", "LOG_LEVEL", "info", "pino log level (`silent` to turn logging off).", logLevel),
	o(
		"logFormat",
		"LOG_FORMAT",
		"auto",
		"`auto`: logs are JSON lines, and on a terminal the start also prints where to open the server (and the ticket command while it has no account). `json`: JSON lines only.",
		oneOf("auto", "json"),
	),
	o(
		"logRequests",
		"LOG_REQUESTS",
		"false",
		"Write one access line per request (errors and 5xx are always logged).",
		bool,
	),
	o(
		"trustProxy",
		"TRUST_PROXY",
		"false",
		"Trust `X-Forwarded-For` from a reverse proxy when deriving the client IP for rate limits.",
		bool,
	),
	o(
		"bodyLimit",
		"BODY_LIMIT",
		"1048576",
		"Largest JSON or form body in bytes (file uploads use `MAX_FILE_SIZE`).",
		int(1024),
	),
	o(
		"metricsPort",
		"METRICS_PORT",
		"",
		"Port of a separate listener serving Prometheus metrics at `/metrics`; empty turns metrics off (the default).",
		(raw, name) => (raw.trim() === "" ? null : int(0, 65535)(raw, name)),
	),
	o(
		"metricsHost",
		"METRICS_HOST",
		"127.0.0.1",
		"Address the metrics listener binds to: loopback by default, so only the machine (or its scraper) reads it.",
		text,
	),
	o(
		"smtpUrl",
		"SMTP_URL",
		"",
		'The submission server for outgoing mail: `smtp://user:pass@host:587` (STARTTLS required) or `smtps://user:pass@host:465` (implicit TLS). Empty: mail is off and no mail code is loaded. See docs/operations.md "Outgoing e-mail".',
		smtpUrl,
	),
	o(
		"mailFrom",
		"MAIL_FROM",
		"",
		"The sender address of outgoing mail, e.g. `svc@svc.example.org`; required with `SMTP_URL`, its domain `DOMAIN` or under it.",
		text,
	),
	o(
		"smtpTlsCa",
		"SMTP_TLS_CA",
		"",
		"A PEM file of certificates to trust for the SMTP server (a private relay); certificates are always verified.",
		text,
	),
	o(
		"mailLimitAccount",
		"MAIL_LIMIT_ACCOUNT",
		"50",
		"Mails an account may have sent per UTC day (invitations, request links, notices, verify links).",
		int(1),
	),
	o(
		"mailLimitRecipient",
		"MAIL_LIMIT_RECIPIENT",
		"5",
		"Mails the whole server sends to one address per UTC day.",
		int(1),
	),
	o(
		"shutdownTimeout",
		"SHUTDOWN_TIMEOUT",
		"10000",
		"Milliseconds to let in-flight requests finish on SIGTERM/SIGINT before exiting.",
		int(0),
	),
];

function o<K extends keyof Config>(
	key: K,
	env: string,
	def: string,
	description: string,
	parse: (raw: string, name: string) => Config[K],
): Option<keyof Config> {
	return { key, env, default: def, description, parse } as unknown as Option<keyof Config>;
}

/** Reads the configuration from `env`; `overrides` win (tests build many apps in one process). */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
	const out: Partial<Record<keyof Config, unknown>> = {};
	for (const opt of options) {
		const raw = env[opt.env];
		out[opt.key] = opt.parse(raw === undefined ? opt.default : raw, opt.env);
	}
	const config = { ...(out as Config), ...overrides };
	config.dataDir = path.resolve(config.dataDir);
	if (config.blobStore === "s3" && config.s3Bucket === "") {
		throw new ConfigError("BLOB_STORE=s3 needs S3_BUCKET");
	}
	if (config.smtpUrl !== "") checkMailFrom(config);
	return config;
}

/** MAIL_FROM is an address at DOMAIN or under it, so SPF and DKIM align with the server's name. */
function checkMailFrom(config: Config): void {
	const from = config.mailFrom.toLowerCase();
	const at = from.lastIndexOf("@");
	const host = from.slice(at + 1);
	if (at < 1 || /[\s<>"\r\n\0]/.test(from) || from.length > 254) {
		throw new ConfigError(
			`MAIL_FROM must be a plain address such as svc@${config.domain} when SMTP_URL is set`,
		);
	}
	if (host !== config.domain && !host.endsWith(`.${config.domain}`)) {
		throw new ConfigError(
			`MAIL_FROM must be at ${config.domain} or a subdomain of it, got "${config.mailFrom}"`,
		);
	}
}

/** The origin browsers and clients use: `https://<domain>`, or `http://localhost:<port>` in development. */
export function publicOrigin(config: Pick<Config, "domain" | "port">): string {
	return config.domain === "localhost" ? `http://localhost:${config.port}` : `https://${config.domain}`;
}
