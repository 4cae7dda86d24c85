// `svc admin oidc-rotate`: adds an ID-token signing key that signs from now on (docs/api.md "OpenID
// Connect provider"). The JWKS keeps the newest 20 keys, so tokens signed by the key before still
// verify; every node reads the key list again within a minute.

import { MAX_KEYS, OIDC_KEYS, rotateKey } from "../src/admin.ts";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";

export const OIDC_USAGE =
	"  svc admin oidc-rotate             add an OpenID Connect signing key that signs from now on\n";

export async function adminOidcRotate(args: string[]): Promise<number> {
	if (args.length > 0) {
		process.stderr.write(`svc admin oidc-rotate takes no arguments\n${OIDC_USAGE}`);
		return 2;
	}
	const config = loadConfig(process.env);
	const app = await buildApp({ ...config, logLevel: "silent" });
	try {
		const key = await rotateKey(app.store.db, OIDC_KEYS, app.rootKey, config.domain, Date.now());
		process.stderr.write(
			`New OpenID Connect signing key ${key.kid}: it signs ID tokens from now on (other nodes within a minute); the JWKS keeps the newest ${MAX_KEYS}.\n`,
		);
		process.stdout.write(`${key.kid}\n`);
		return 0;
	} finally {
		await app.close();
	}
}
