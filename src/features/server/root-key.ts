// The server's root key (RSA-2048): the certificate authority for identities and the signer of
// every `{payload, signature}` statement. Generated on first start, kept in the database so every
// node signs with the same key.
import crypto from "node:crypto";
import type * as X509 from "@peculiar/x509";
import { lazy } from "../../lib/lazy.ts";

/**
 * @peculiar/x509 (with its ASN.1 and reflect-metadata stack, about 11 MB of resident memory) is
 * loaded only to issue a certificate: the CA's at first start, an identity's when one is certified.
 */
export const x509Library: () => Promise<typeof X509> = lazy(() => import("@peculiar/x509"));

import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Clock } from "../../lib/clock.ts";
import { spkiFingerprint } from "../../lib/crypto.ts";
import { findKey, insertKeyIfAbsent } from "./store.ts";

export interface RootKey {
	privateKey: crypto.KeyObject;
	publicKey: crypto.KeyObject;
	publicPem: string;
	/** Lowercase hex SHA-256 of the SPKI DER. */
	fingerprint: string;
	/** Self-signed CA certificate (PEM) that issues identity certificates. */
	certificatePem: string;
}

const ROOT = "root";
const CA_YEARS = 30;
export const RSA_SHA256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

/** A new RSA-2048 key pair: the root key's, made once on a database's first start. */
export type RsaKeyPairSource = () => crypto.KeyPairKeyObjectResult;

export const newRsaKeyPair: RsaKeyPairSource = () =>
	crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });

export async function loadRootKey(
	db: Kysely<Database>,
	domain: string,
	clock: Clock,
	keyPair: RsaKeyPairSource = newRsaKeyPair,
): Promise<RootKey> {
	let row = await findKey(db, ROOT);
	if (!row) {
		const fresh = await generateRoot(domain, clock, keyPair());
		await insertKeyIfAbsent(db, { name: ROOT, ...fresh, created: clock.now() });
		row = await findKey(db, ROOT);
		if (!row) throw new Error("root key could not be stored");
	}
	const privateKey = crypto.createPrivateKey(row.private_pem);
	const publicKey = crypto.createPublicKey(row.public_pem);
	return {
		privateKey,
		publicKey,
		publicPem: row.public_pem,
		fingerprint: spkiFingerprint(publicKey),
		certificatePem: row.certificate_pem ?? "",
	};
}

async function generateRoot(
	domain: string,
	clock: Clock,
	{ privateKey, publicKey }: crypto.KeyPairKeyObjectResult,
) {
	const webcrypto = crypto.webcrypto;
	const keys: crypto.webcrypto.CryptoKeyPair = {
		privateKey: await webcrypto.subtle.importKey(
			"pkcs8",
			privateKey.export({ type: "pkcs8", format: "der" }),
			RSA_SHA256,
			false,
			["sign"],
		),
		publicKey: await webcrypto.subtle.importKey(
			"spki",
			publicKey.export({ type: "spki", format: "der" }),
			RSA_SHA256,
			true,
			["verify"],
		),
	};
	const notBefore = new Date(clock.now() - 60_000);
	const notAfter = new Date(notBefore);
	notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CA_YEARS);
	const x509 = await x509Library();
	const cert = await x509.X509CertificateGenerator.createSelfSigned(
		{
			serialNumber: crypto
				.randomBytes(16)
				.toString("hex")
				.replace(/^[89a-f]/, "1"),
			name: `CN=${domain} root, O=svc`,
			notBefore,
			notAfter,
			keys: keys as never,
			signingAlgorithm: RSA_SHA256,
			extensions: [
				new x509.BasicConstraintsExtension(true, 0, true),
				new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
				await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never, false, webcrypto as never),
			],
		},
		webcrypto as never,
	);
	return {
		private_pem: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
		public_pem: publicKey.export({ type: "spki", format: "pem" }).toString(),
		certificate_pem: cert.toString("pem"),
	};
}
