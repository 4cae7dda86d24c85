// Identity certificates: X.509 issued by the server's CA (the root key), ten years (spec limits).
import crypto from "node:crypto";
import type * as X509 from "@peculiar/x509";
import { type RootKey, RSA_SHA256, x509Library } from "../server/service.ts";

export const CERTIFICATE_YEARS = 10;
const webcrypto = crypto.webcrypto;

// The root key as a WebCrypto key for @peculiar/x509 (Node 20 has no KeyObject.toCryptoKey),
// imported once per loaded root key.
const signers = new WeakMap<
	RootKey,
	Promise<{ signingKey: crypto.webcrypto.CryptoKey; ca: X509.X509Certificate }>
>();

function signer(rootKey: RootKey) {
	let entry = signers.get(rootKey);
	if (!entry) {
		entry = (async () => ({
			ca: new (await x509Library()).X509Certificate(rootKey.certificatePem),
			signingKey: await webcrypto.subtle.importKey(
				"pkcs8",
				rootKey.privateKey.export({ type: "pkcs8", format: "der" }),
				RSA_SHA256,
				false,
				["sign"],
			),
		}))();
		signers.set(rootKey, entry);
	}
	return entry;
}

/** Issues the certificate for an identity key (SPKI DER) named `name`; returns PEM. */
export async function issueCertificate(
	rootKey: RootKey,
	subject: { name: string; spki: Buffer },
	now: number,
): Promise<string> {
	const { signingKey, ca } = await signer(rootKey);
	const x509 = await x509Library();
	// Whole seconds: X.509 times carry no milliseconds.
	const notBefore = new Date(Math.floor(now / 1000) * 1000);
	const notAfter = new Date(notBefore);
	notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CERTIFICATE_YEARS);
	const spki = new Uint8Array(subject.spki);
	const cert = await x509.X509CertificateGenerator.create(
		{
			// 16 random bytes with the top bit clear: a positive serial (RFC 5280 4.1.2.2).
			serialNumber: crypto
				.randomBytes(16)
				.toString("hex")
				.replace(/^[89a-f]/, "1"),
			// Typed as a UTF8String value: @peculiar/x509's string form mangles quotes and `#`.
			subject: new x509.Name([{ CN: [{ utf8String: subject.name }] }]),
			issuer: ca.subjectName,
			notBefore,
			notAfter,
			publicKey: spki,
			signingKey: signingKey as never,
			signingAlgorithm: RSA_SHA256,
			extensions: [
				new x509.BasicConstraintsExtension(false, undefined, true),
				new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
				await x509.AuthorityKeyIdentifierExtension.create(ca.publicKey, false, webcrypto as never),
				await x509.SubjectKeyIdentifierExtension.create(spki, false, webcrypto as never),
			],
		},
		webcrypto as never,
	);
	return cert.toString("pem");
}
