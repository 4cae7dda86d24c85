// `svc admin delete-account --email <email> --yes`: the operator deletes an account exactly as the
// person would (docs/api.md "Deleting an account"), without the passkey confirmation. The app is
// built (never listening) so the workspace deletion hooks of every feature run, as they do for a
// request.
import { parseArgs } from "node:util";
import { accountByEmail, deleteAccount } from "../src/admin.ts";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";

export const DELETE_ACCOUNT_USAGE =
	"  svc admin delete-account --email <email> --yes   delete an account, its personal workspace and its memberships\n";

export async function adminDeleteAccount(args: string[]): Promise<number> {
	const { values } = parseArgs({
		args,
		options: { email: { type: "string" }, yes: { type: "boolean" } },
		strict: true,
	});
	if (!values.email || !values.yes) {
		process.stderr.write(
			`svc admin delete-account: --email and --yes are required (the deletion cannot be undone)\n${DELETE_ACCOUNT_USAGE}`,
		);
		return 2;
	}
	const config = loadConfig(process.env);
	const app = await buildApp({ ...config, logLevel: "silent" });
	try {
		await app.ready();
		const account = await accountByEmail(app.store.db, values.email);
		if (!account) {
			process.stderr.write(`svc admin delete-account: no account has the email ${values.email}\n`);
			return 1;
		}
		await deleteAccount(
			{ db: app.store.db, blobs: app.blobs, hooks: app.workspaceHooks },
			account.id,
			Date.now(),
		);
		process.stderr.write(`Deleted the account ${account.email} (${account.id}).\n`);
		return 0;
	} finally {
		await app.close();
	}
}
