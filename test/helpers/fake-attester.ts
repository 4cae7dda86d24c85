// An attester of another domain on loopback, made by hand (no code of the server): an RSA root key
// served at /api/server with its signed `server-claim-v1`, an ES256 credential key certified by it
// (`credential-key-v1`) at /.well-known/jwt-vc-issuer, and a status list at
// /api/attestations/status whose signed body the test chooses (an honest list, or a zip bomb), each
// fetch of it counted. `credential()` signs an SD-JWT VC of this attester pointing at that list.
// More lists may be served at other paths of the same origin (a verifier keeps one per address),
// a body may be served as it is (not a JWT), and answers may be held back (a slow attester).
// The verifying app reaches it through PEER_OVERRIDES and the `_svc` TXT record the test serves.
import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { calculateJwkThumbprint, type JWK, SignJWT } from "jose";
import { signEnvelope, spkiFingerprint } from "../../src/lib/crypto.ts";

export const STATUS_PATH = "/api/attestations/status";

export interface FakeAttester {
	domain: string;
	/** `http://127.0.0.1:<port>`, for PEER_OVERRIDES. */
	base: string;
	/** The root key's fingerprint, for the `_svc.<domain>` TXT record. */
	fingerprint: string;
	/** The certified credential key, as a verifier keeps it (kid -> public JWK). */
	keys: Map<string, JWK>;
	/** How many times a status list was fetched, at any path. */
	listFetches: number;
	/** How many times the list at `path` was fetched. */
	fetchesOf(path: string): number;
	/** Serves at `path` (default STATUS_PATH) a list whose `lst` is this zlib stream (base64url), signed now. */
	serveList(lst: Buffer, claims?: { ttl?: number; expS?: number }, path?: string): Promise<void>;
	/** Serves `body` at `path` as it is: no JWT, nothing signed. */
	serveRaw(body: string, path?: string): void;
	/**
	 * From now on a list's answer sends its headers and the first half of its body at once, and the
	 * rest `ms` later, unless the reader has gone (0: all at once, the default).
	 */
	holdLists(ms: number): void;
	/** An SD-JWT VC (one disclosure, `club`) at status position `idx` of the list at `path`, about this holder. */
	credential(
		idx: number,
		holder: { fingerprint: string; domain: string; jwk: JWK },
		path?: string,
	): Promise<string>;
	close(): Promise<void>;
}

/** A zlib stream of `bytes` zero bytes (a list with no bit set), made without holding them all. */
export async function zeros(bytes: number): Promise<Buffer> {
	const deflate = zlib.createDeflate({ level: 9 });
	const out: Buffer[] = [];
	deflate.on("data", (c: Buffer) => out.push(c));
	const done = new Promise((resolve) => deflate.on("end", resolve));
	const block = Buffer.alloc(Math.min(bytes, 1024 * 1024));
	for (let left = bytes; left > 0; left -= block.length) {
		const part = left >= block.length ? block : block.subarray(0, left);
		if (!deflate.write(part)) await new Promise((resolve) => deflate.once("drain", resolve));
	}
	deflate.end();
	await done;
	return Buffer.concat(out);
}

export async function startFakeAttester(domain: string): Promise<FakeAttester> {
	const root = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
	const credential = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
	const publicJwk = credential.publicKey.export({ format: "jwk" }) as JWK;
	const kid = await calculateJwkThumbprint(publicJwk, "sha256");
	const fingerprint = spkiFingerprint(root.publicKey);
	const issuer = `https://${domain}`;
	const lists = new Map<string, string>();
	const fetches = new Map<string, number>();
	let holdMs = 0;
	const held = new Set<NodeJS.Timeout>();

	const server = http.createServer((req, res) => {
		const iat = Math.floor(Date.now() / 1000);
		if (req.url === "/api/server") {
			res.writeHead(200, { "content-type": "application/json" }).end(
				JSON.stringify({
					domain,
					fingerprint,
					publicKey: root.publicKey.export({ type: "spki", format: "pem" }),
					assertion: signEnvelope(root.privateKey, "server-claim-v1", {
						domain,
						fingerprint,
						origin: issuer,
						iat,
						exp: iat + 86_400,
					}),
				}),
			);
		} else if (req.url === "/.well-known/jwt-vc-issuer") {
			const certification = signEnvelope(root.privateKey, "credential-key-v1", {
				domain,
				kid,
				iat,
				exp: iat + 86_400,
			});
			const keys = [{ ...publicJwk, kid, svc_certification: certification }];
			res.writeHead(200, { "content-type": "application/json" });
			res.end(JSON.stringify({ issuer, jwks: { keys } }));
		} else if (req.url !== undefined && lists.has(req.url)) {
			fake.listFetches++;
			fetches.set(req.url, (fetches.get(req.url) ?? 0) + 1);
			const body = lists.get(req.url) as string;
			res.writeHead(200, { "content-type": "application/statuslist+jwt" });
			if (holdMs === 0) {
				res.end(body);
				return;
			}
			const half = Math.floor(body.length / 2);
			res.write(body.slice(0, half));
			const timer = setTimeout(() => {
				held.delete(timer);
				res.end(body.slice(half));
			}, holdMs);
			held.add(timer);
			res.on("close", () => {
				clearTimeout(timer);
				held.delete(timer);
			});
		} else res.writeHead(404).end();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

	const fake: FakeAttester = {
		domain,
		base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
		fingerprint,
		keys: new Map([[kid, publicJwk]]),
		listFetches: 0,
		fetchesOf: (path) => fetches.get(path) ?? 0,
		async serveList(lst, claims = {}, path = STATUS_PATH) {
			const iat = Math.floor(Date.now() / 1000);
			const list = await new SignJWT({
				ttl: claims.ttl ?? 300,
				status_list: { bits: 1, lst: lst.toString("base64url") },
			})
				.setProtectedHeader({ alg: "ES256", kid, typ: "statuslist+jwt" })
				.setIssuer(issuer)
				.setSubject(`${issuer}${path}`)
				.setIssuedAt(iat)
				.setExpirationTime(claims.expS ?? iat + 3600)
				.sign(credential.privateKey);
			lists.set(path, list);
		},
		serveRaw(body, path = STATUS_PATH) {
			lists.set(path, body);
		},
		holdLists(ms) {
			holdMs = ms;
		},
		async credential(idx, holder, path = STATUS_PATH) {
			const disclosure = Buffer.from(
				JSON.stringify([crypto.randomBytes(16).toString("base64url"), "club", "Chess"]),
			).toString("base64url");
			const digest = crypto.createHash("sha256").update(disclosure, "ascii").digest("base64url");
			const jwt = await new SignJWT({
				vct: "membership",
				cnf: { jwk: holder.jwk },
				svc_holder: { fingerprint: holder.fingerprint, domain: holder.domain },
				status: { status_list: { idx, uri: `${issuer}${path}` } },
				_sd: [digest],
				_sd_alg: "sha-256",
			})
				.setProtectedHeader({ alg: "ES256", kid, typ: "dc+sd-jwt" })
				.setIssuer(issuer)
				.setIssuedAt()
				.sign(credential.privateKey);
			return `${jwt}~${disclosure}~`;
		},
		close: () =>
			new Promise<void>((resolve) => {
				for (const timer of held) clearTimeout(timer);
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
	return fake;
}
