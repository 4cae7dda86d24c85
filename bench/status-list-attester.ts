// The fake attesters of bench/status-list.ts, in a worker thread: serving a 254 KB list then costs
// the worker's event loop, not the verifier's, which is the one measured. Messages: `{id, op, …}`
// in, `{id, result}` out.
import { parentPort } from "node:worker_threads";
import type { JWK } from "jose";
import { type FakeAttester, startFakeAttester, zeros } from "../test/helpers/fake-attester.ts";

const attesters = new Map<string, FakeAttester>();
const port = parentPort;
if (!port) throw new Error("run as a worker of bench/status-list.ts");

type Request =
	| { id: number; op: "start"; domain: string }
	| { id: number; op: "serveZeros"; domain: string; bytes: number }
	| {
			id: number;
			op: "credential";
			domain: string;
			idx: number;
			holder: { fingerprint: string; domain: string; jwk: JWK };
	  }
	| { id: number; op: "fetches"; domain: string }
	| { id: number; op: "close" };

port.on("message", async (m: Request) => {
	let result: unknown;
	if (m.op === "start") {
		const a = await startFakeAttester(m.domain);
		attesters.set(m.domain, a);
		result = { base: a.base, fingerprint: a.fingerprint, keys: [...a.keys] };
	} else if (m.op === "serveZeros") {
		const lst = await zeros(m.bytes);
		await attesters.get(m.domain)?.serveList(lst);
		result = lst.length;
	} else if (m.op === "credential") result = await attesters.get(m.domain)?.credential(m.idx, m.holder);
	else if (m.op === "fetches") result = attesters.get(m.domain)?.listFetches;
	else {
		for (const a of attesters.values()) await a.close();
		result = true;
	}
	port.postMessage({ id: m.id, result });
});
