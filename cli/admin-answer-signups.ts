// `svc admin answer-signups`: how many answer-only accounts each request made (docs/operations.md
// "Answer-only sign-ups"), all time (against its cap) and in the last 24 hours, and whether it still admits them.
import { loadConfig } from "../src/config.ts";

export const ANSWER_SIGNUPS_USAGE =
	"  svc admin answer-signups          list answer-only sign-ups per request (all, last 24 hours)\n";

export async function adminAnswerSignups(args: string[]): Promise<number> {
	if (args.length > 0) {
		process.stderr.write(`svc admin answer-signups takes no arguments\n${ANSWER_SIGNUPS_USAGE}`);
		return 2;
	}
	const config = loadConfig(process.env);
	const { openStore } = await import("../src/db/index.ts");
	const { answerSignupCounts } = await import("../src/admin.ts");
	const store = await openStore(config);
	try {
		const rows = await answerSignupCounts(store.db, Date.now());
		process.stderr.write(
			config.allowAnswerSignups
				? "Answer-only sign-ups are allowed where a request admits them (ALLOW_ANSWER_SIGNUPS=true).\n"
				: "Answer-only sign-ups are forbidden on this server (ALLOW_ANSWER_SIGNUPS=false).\n",
		);
		process.stdout.write("request\tadmits\tall\tcap\tlast 24h\tworkspace\tlabel\n");
		for (const r of rows) {
			process.stdout.write(
				`${r.request}\t${r.allowed ? "yes" : "no"}\t${r.total}\t${r.limit}\t${r.lastDay}\t${r.workspace}\t${r.label}\n`,
			);
		}
		return 0;
	} finally {
		await store.destroy();
	}
}
