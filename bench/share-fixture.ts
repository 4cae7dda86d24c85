// The share the public scenarios read: five value records in two sections, no view cap, made
// through the server's API by an account written straight into the server's database.
import { loadConfig } from "../src/config.ts";
import { openStore } from "../src/db/index.ts";
import { createAccount, createSession } from "../src/features/accounts/service.ts";

/** One share of five value records in two sections and no view cap; `env` is the server's. */
export async function shareFixture(base: string, env: Record<string, string>): Promise<{ slug: string }> {
	const store = await openStore(loadConfig(env));
	let token: string;
	try {
		const now = Date.now();
		const account = await createAccount(store.db, { email: "share-bench@bench.test" }, now);
		token = (await createSession(store.db, account.accountId, now)).token;
	} finally {
		await store.destroy();
	}
	const post = async (collection: string, body: unknown) => {
		const res = await fetch(`${base}/api/collections/${collection}/records`, {
			method: "POST",
			headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
			body: JSON.stringify(body),
		});
		if (!res.ok) throw new Error(`${collection}: ${res.status} ${await res.text()}`);
		return (await res.json()) as { id: string; slug: string };
	};
	const contact = await post("sections", { key: "contact", name: "Contact" });
	const bank = await post("sections", { key: "bank", name: "Bank" });
	const records = [];
	for (const [key, value, section] of [
		["email", "ann@example.org", contact.id],
		["phone", "+49 30 1234567", contact.id],
		["address", "Hauptstr. 1, 10115 Berlin", contact.id],
		["iban", "DE89 3704 0044 0532 0130 00", bank.id],
		["bic", "COBADEFFXXX", bank.id],
	]) {
		records.push(await post("records", { key, value, section }));
	}
	const link = await post("links", { label: "Bench share", records: records.map((r) => r.id) });
	return { slug: link.slug };
}
