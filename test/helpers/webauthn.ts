// A software authenticator for fast integration tests: ES256 (P-256) keys, real "none" attestation
// objects and assertions with correct clientDataJSON, rpIdHash, flags and sign counters. It keeps
// its discoverable credentials like a platform authenticator and can be told to misbehave.
import crypto from "node:crypto";

type Cbor = number | string | Uint8Array | Cbor[] | Map<Cbor, Cbor> | { [k: string]: Cbor };

/** Just enough CBOR (RFC 8949) for attestation objects and COSE keys: ints, strings, bytes, maps. */
export function cbor(value: Cbor): Buffer {
	const head = (major: number, n: number): Buffer => {
		if (n < 24) return Buffer.from([(major << 5) | n]);
		if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
		if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
		const b = Buffer.alloc(5);
		b[0] = (major << 5) | 26;
		b.writeUInt32BE(n, 1);
		return b;
	};
	if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
	if (typeof value === "string") {
		const bytes = Buffer.from(value, "utf8");
		return Buffer.concat([head(3, bytes.length), bytes]);
	}
	if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), Buffer.from(value)]);
	if (Array.isArray(value)) return Buffer.concat([head(4, value.length), ...value.map(cbor)]);
	const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
	return Buffer.concat([head(5, entries.length), ...entries.flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const b64u = (b: Uint8Array | string) => Buffer.from(b).toString("base64url");
const sha256 = (b: Uint8Array | string) => crypto.createHash("sha256").update(b).digest();

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40 } as const;

export interface StoredCredential {
	id: Buffer;
	rpId: string;
	userHandle: string;
	privateKey: crypto.KeyObject;
	publicKey: crypto.KeyObject;
	signCount: number;
}

export interface CeremonyOverrides {
	/** clientDataJSON origin (default: the authenticator's origin). */
	origin?: string;
	/** clientDataJSON type. */
	type?: string;
	/** clientDataJSON challenge (default: the options' challenge). */
	challenge?: string;
	/** rpIdHash source (default: the options' RP id). */
	rpId?: string;
	/** authenticatorData flags (default UP|UV, plus AT on registration). */
	flags?: number;
	/** Corrupt the signature. */
	badSignature?: boolean;
	/** Use this credential (login). */
	credential?: StoredCredential;
	/** Sign count to report (login); default: stored + 1. */
	signCount?: number;
	/** userHandle to report (login); default: the credential's. */
	userHandle?: string | null;
}

function coseKey(publicKey: crypto.KeyObject): Buffer {
	const jwk = publicKey.export({ format: "jwk" });
	// kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
	return cbor(
		new Map<Cbor, Cbor>([
			[1, 2],
			[3, -7],
			[-1, 1],
			[-2, Buffer.from(jwk.x as string, "base64url")],
			[-3, Buffer.from(jwk.y as string, "base64url")],
		]),
	);
}

interface CreationOptions {
	challenge: string;
	rp: { id?: string };
	user: { id: string };
	excludeCredentials?: { id: string }[];
}
interface RequestOptions {
	challenge: string;
	rpId?: string;
}

export class SoftAuthenticator {
	readonly credentials: StoredCredential[] = [];
	constructor(
		public origin: string,
		/** A zero AAGUID as most platform authenticators report with "none" attestation. */
		private readonly aaguid = Buffer.alloc(16),
	) {}

	private clientData(type: string, challenge: string, o: CeremonyOverrides): Buffer {
		return Buffer.from(
			JSON.stringify({
				type: o.type ?? type,
				challenge: o.challenge ?? challenge,
				origin: o.origin ?? this.origin,
				crossOrigin: false,
			}),
		);
	}

	/** navigator.credentials.create(): a RegistrationResponseJSON with "none" attestation. */
	create(options: CreationOptions, o: CeremonyOverrides = {}) {
		const rpId = options.rp.id as string;
		if (options.excludeCredentials?.some((c) => this.credentials.some((s) => b64u(s.id) === c.id))) {
			throw new Error("InvalidStateError: credential excluded");
		}
		const { privateKey, publicKey } = crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
		const id = crypto.randomBytes(32);
		const stored: StoredCredential = {
			id,
			rpId,
			userHandle: options.user.id,
			privateKey,
			publicKey,
			signCount: 0,
		};
		const flags = o.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT;
		const counter = Buffer.alloc(4);
		const idLen = Buffer.alloc(2);
		idLen.writeUInt16BE(id.length);
		const authData = Buffer.concat([
			sha256(o.rpId ?? rpId),
			Buffer.from([flags]),
			counter,
			this.aaguid,
			idLen,
			id,
			coseKey(publicKey),
		]);
		const attestationObject = cbor({ fmt: "none", attStmt: {}, authData });
		const clientDataJSON = this.clientData("webauthn.create", options.challenge, o);
		this.credentials.push(stored);
		return {
			credential: stored,
			response: {
				id: b64u(id),
				rawId: b64u(id),
				type: "public-key" as const,
				authenticatorAttachment: "platform",
				clientExtensionResults: {},
				response: {
					clientDataJSON: b64u(clientDataJSON),
					attestationObject: b64u(attestationObject),
					transports: ["internal"],
				},
			},
		};
	}

	/** navigator.credentials.get() for a discoverable credential of the options' RP. */
	get(options: RequestOptions, o: CeremonyOverrides = {}) {
		const rpId = options.rpId as string;
		const cred = o.credential ?? this.credentials.findLast((c) => c.rpId === rpId);
		if (!cred) throw new Error("NotAllowedError: no credential for this RP");
		cred.signCount = o.signCount ?? cred.signCount + 1;
		const counter = Buffer.alloc(4);
		counter.writeUInt32BE(cred.signCount);
		const authenticatorData = Buffer.concat([
			sha256(o.rpId ?? rpId),
			Buffer.from([o.flags ?? FLAGS.UP | FLAGS.UV]),
			counter,
		]);
		const clientDataJSON = this.clientData("webauthn.get", options.challenge, o);
		const signature = crypto.sign(
			"sha256",
			Buffer.concat([authenticatorData, sha256(clientDataJSON)]),
			cred.privateKey,
		);
		if (o.badSignature) signature[signature.length - 1] = (signature.at(-1) as number) ^ 0xff;
		const userHandle = o.userHandle === undefined ? cred.userHandle : o.userHandle;
		return {
			id: b64u(cred.id),
			rawId: b64u(cred.id),
			type: "public-key" as const,
			authenticatorAttachment: "platform",
			clientExtensionResults: {},
			response: {
				clientDataJSON: b64u(clientDataJSON),
				authenticatorData: b64u(authenticatorData),
				signature: b64u(signature),
				...(userHandle === null ? {} : { userHandle }),
			},
		};
	}
}

/** A PKCE pair as the app makes it: a random verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
	const verifier = crypto.randomBytes(32).toString("base64url");
	return { verifier, challenge: sha256(verifier).toString("base64url") };
}
