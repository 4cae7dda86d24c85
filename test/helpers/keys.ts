// Root key pairs for the apps tests build. RSA-2048 generation took about a quarter second of CPU
// for every app (a third of building one), and the suite builds thousands. So the pairs are made
// once for the whole suite and kept in the temporary folder: the n-th app a test process builds
// gets the n-th pair. Within one process every app still has a key of its own, as every server
// does; only separate test processes, which never meet, share them. Servers spawned as processes
// (test/helpers/process.ts) generate their own.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const DIR = path.join(os.tmpdir(), "svc-test-rsa-2048");
let handedOut = 0;

/** The next pair for this process: read from the suite's folder, or made and written there. */
export function nextRsaKeyPair(): crypto.KeyPairKeyObjectResult {
	const file = path.join(DIR, `${handedOut++}.pem`);
	let pem: string | undefined;
	try {
		pem = fs.readFileSync(file, "utf8");
	} catch {
		// Not made yet: made here.
	}
	if (pem) {
		const privateKey = crypto.createPrivateKey(pem);
		return { privateKey, publicKey: crypto.createPublicKey(privateKey) };
	}
	const pair = crypto.generateKeyPairSync("rsa", { modulusLength: 2048 });
	fs.mkdirSync(DIR, { recursive: true });
	// Written whole, then renamed: a process reading at the same time sees all of it or nothing.
	const partial = `${file}.${process.pid}.partial`;
	fs.writeFileSync(partial, pair.privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
	fs.renameSync(partial, file);
	return pair;
}
