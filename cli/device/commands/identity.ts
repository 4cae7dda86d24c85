// `svc identity`: identity keys made on this device and certified by the server. Only the public
// half is sent; the certificate that comes back is checked here before the key is kept as usable.
import crypto from "node:crypto";
import type { Api } from "../api.ts";
import type { Command } from "../command.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import {
	findIdentity,
	fingerprintOf,
	forgetIdentity,
	generateIdentityKey,
	type StoredIdentity,
	saveIdentity,
	signChallenge,
	storedIdentities,
} from "../keystore.ts";
import { dateOnly, note, printJson, printLine, printTable } from "../output.ts";

interface IdentityRecord {
	id: string;
	name: string;
	fingerprint: string;
	publicKey: string;
	certificate: string;
	parentSignature: string;
	domainAtIssue: string;
	status: "active" | "revoked";
	created: string;
	revokedAt: string | null;
}

interface Standing {
	status: "active" | "revoked" | "unknown";
	fingerprint: string;
	domain: string;
	iat: number;
	exp: number;
}

const list = <T>(api: Api, collection: string, query = "") =>
	api.get<{ items: T[] }>(`/api/collections/${collection}/records?perPage=1000${query}`).then((r) => r.items);

/**
 * The checks a device makes on what the server certified: the certificate holds this key, was
 * issued by the server's CA and is within its validity; the fingerprint is this key's; the parent
 * signature is the root key's over the fingerprint; the public certificate endpoint serves the same.
 */
export async function checkCertificate(
	api: Api,
	record: IdentityRecord,
	publicKey: crypto.KeyObject,
): Promise<void> {
	const fail = (what: string) => {
		throw new CliError(`the server's certificate for ${record.name} does not check out: ${what}`);
	};
	const spki = publicKey.export({ type: "spki", format: "der" });
	if (record.fingerprint !== fingerprintOf(publicKey)) fail("the fingerprint is not this key's");
	const ca = await api.get<{ certificate: string; publicKey: string; fingerprint: string }>(
		"/api/certificate",
	);
	const claim = await api.get<{ fingerprint: string; publicKey: string }>("/api/server");
	if (ca.fingerprint !== claim.fingerprint) fail("the CA is not the server's root key");
	const cert = new crypto.X509Certificate(record.certificate);
	const caCert = new crypto.X509Certificate(ca.certificate);
	if (!cert.publicKey.export({ type: "spki", format: "der" }).equals(spki)) fail("it certifies another key");
	if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey))
		fail("it was not issued by the server's CA");
	const now = Date.now();
	if (now < Date.parse(cert.validFrom) - 5 * 60_000 || now > Date.parse(cert.validTo))
		fail("it is not valid now");
	const rootKey = crypto.createPublicKey(claim.publicKey);
	if (fingerprintOf(rootKey) !== claim.fingerprint)
		fail("the server's root key does not match its fingerprint");
	const parentOk = crypto.verify(
		"sha256",
		Buffer.from(record.fingerprint, "utf8"),
		rootKey,
		Buffer.from(record.parentSignature, "hex"),
	);
	if (!parentOk) fail("the parent signature is not the root key's");
	const published = await api.get<{ certificate: string; fingerprint: string }>(
		`/api/certificate/${record.id}`,
	);
	if (published.certificate !== record.certificate || published.fingerprint !== record.fingerprint) {
		fail("GET /api/certificate/{id} serves another certificate");
	}
}

/** The identity's standing as its server signs it (the signature checked with the root key). */
async function standing(api: Api, fingerprint: string): Promise<Standing> {
	const { payload, signature } = await api.get<{ payload: string; signature: string }>(
		`/api/identities/${fingerprint}/status`,
	);
	const claim = await api.get<{ publicKey: string }>("/api/server");
	const ok = crypto.verify(
		"sha256",
		Buffer.from(payload, "utf8"),
		crypto.createPublicKey(claim.publicKey),
		Buffer.from(signature, "hex"),
	);
	if (!ok) throw new CliError("the standing answer is not signed by the server's root key");
	const body = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Standing & { type: string };
	if (body.type !== "identity-status-v1" || body.fingerprint !== fingerprint) {
		throw new CliError("the standing answer is about something else");
	}
	return body;
}

const create: Command = {
	name: "svc identity create",
	summary:
		"Makes a P-256 key on this device, has the server certify its public half, and checks the certificate.",
	help: "--name <name>\n\n  --name <name>   the identity's name, shown to readers (one line, 1 to 200 characters)",
	options: { name: { type: "string" } },
	async run(ctx) {
		const name = (ctx.values.name as string | undefined)?.trim();
		if (!name) throw new UsageError("svc identity create: --name is required");
		const api = ctx.api();
		const { privateKey, publicKey } = generateIdentityKey();
		const local: StoredIdentity = {
			id: "",
			name,
			server: api.server,
			fingerprint: fingerprintOf(publicKey),
			privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
			publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(),
			certificate: "",
			created: new Date().toISOString(),
		};
		// Kept before it is sent: a lost answer must not lose the only copy of a certified key.
		saveIdentity(local);
		let record: IdentityRecord;
		try {
			record = await api.post<IdentityRecord>("/api/collections/identities/records", {
				name,
				publicKey: local.publicKey,
			});
			await checkCertificate(api, record, publicKey);
		} catch (err) {
			forgetIdentity(local.fingerprint);
			throw err;
		}
		saveIdentity({ ...local, id: record.id, name: record.name, certificate: record.certificate });
		if (ctx.json) printJson({ ...record, keyOnDevice: true });
		else {
			printLine(`Identity ${record.name} created and certified by ${record.domainAtIssue}`);
			printLine(`id:          ${record.id}`);
			printLine(`fingerprint: ${record.fingerprint}`);
		}
		return EXIT.ok;
	},
};

const listCommand: Command = {
	name: "svc identity list",
	summary: "Lists the workspace's identities and whether this device holds the key of each.",
	help: "[--json]",
	async run(ctx) {
		const api = ctx.api();
		const records = await list<IdentityRecord>(api, "identities");
		const here = new Set(
			storedIdentities(api.server)
				.filter((i) => i.id)
				.map((i) => i.fingerprint),
		);
		const rows = records.map((r) => ({ ...r, keyOnDevice: here.has(r.fingerprint) }));
		if (ctx.json) printJson(rows);
		else
			printTable(
				["ID", "NAME", "FINGERPRINT", "STATUS", "KEY HERE", "CREATED"],
				rows.map((r) => [
					r.id,
					r.name,
					`${r.fingerprint.slice(0, 16)}…`,
					r.status,
					r.keyOnDevice ? "yes" : "no",
					dateOnly(r.created),
				]),
			);
		return EXIT.ok;
	},
};

async function recordFor(api: Api, ref: string): Promise<IdentityRecord> {
	const records = await list<IdentityRecord>(api, "identities");
	const lower = ref.toLowerCase();
	const found = records.filter(
		(r) =>
			r.id === ref ||
			r.fingerprint === lower ||
			r.name === ref ||
			(lower.length >= 8 && r.fingerprint.startsWith(lower)),
	);
	if (found.length === 1) return found[0] as IdentityRecord;
	if (found.length > 1)
		throw new CliError(`${ref} names ${found.length} identities; give the id`, EXIT.usage);
	throw new CliError(`no identity ${ref} in this workspace`, EXIT.notFound);
}

const show: Command = {
	name: "svc identity show",
	summary: "Shows an identity, its standing as the server signs it, and whether its key is on this device.",
	help: "<id | fingerprint | name>",
	args: { min: 1, max: 1 },
	async run(ctx) {
		const api = ctx.api();
		const record = await recordFor(api, ctx.positionals[0] as string);
		const signed = await standing(api, record.fingerprint);
		const keyOnDevice = storedIdentities(api.server).some(
			(i) => i.fingerprint === record.fingerprint && i.id,
		);
		if (ctx.json) printJson({ ...record, standing: signed.status, keyOnDevice });
		else {
			printLine(`name:        ${record.name}`);
			printLine(`id:          ${record.id}`);
			printLine(`fingerprint: ${record.fingerprint}`);
			printLine(`issued by:   ${record.domainAtIssue} on ${dateOnly(record.created)}`);
			printLine(`standing:    ${signed.status} (signed by the server's root key)`);
			printLine(`key here:    ${keyOnDevice ? "yes" : "no"}`);
		}
		return EXIT.ok;
	},
};

const sign: Command = {
	name: "svc identity sign",
	summary: "Signs a challenge nonce with an identity key on this device (for a handshake made by hand).",
	help: "<id | fingerprint | name> <nonce>",
	args: { min: 2, max: 2 },
	async run(ctx) {
		const identity = findIdentity(ctx.server(), ctx.positionals[0] as string);
		const nonce = ctx.positionals[1] as string;
		const signature = signChallenge(identity, nonce);
		if (ctx.json)
			printJson({ identityId: identity.id, challengeNonce: nonce, challengeSignature: signature });
		else printLine(signature);
		return EXIT.ok;
	},
};

const revoke: Command = {
	name: "svc identity revoke",
	summary:
		"Revokes an identity for good (its standing becomes revoked) and deletes its key from this device.",
	help: "<id | fingerprint | name>",
	args: { min: 1, max: 1 },
	async run(ctx) {
		const api = ctx.api();
		const record = await recordFor(api, ctx.positionals[0] as string);
		const updated = await api.patch<IdentityRecord>(`/api/collections/identities/records/${record.id}`, {
			status: "revoked",
		});
		const forgotten = forgetIdentity(record.fingerprint);
		if (ctx.json) printJson({ ...updated, keyOnDevice: false });
		else {
			printLine(`Identity ${updated.name} (${updated.fingerprint.slice(0, 16)}…) is revoked.`);
			if (forgotten) note("Its private key was deleted from this device.");
		}
		return EXIT.ok;
	},
};

export const identityCommands = [create, listCommand, show, sign, revoke];
