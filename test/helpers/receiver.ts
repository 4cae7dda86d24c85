// A real HTTP receiver on loopback for callback tests: records every request it gets (method,
// path, headers, body) and answers with whatever `respond` does (200 by default).
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
	method: string;
	path: string;
	headers: http.IncomingHttpHeaders;
	body: string;
	json(): Record<string, unknown>;
}

export interface Receiver {
	port: number;
	/** `http://127.0.0.1:<port>` */
	url: string;
	received: Received[];
	/** Answers each request; replace it between steps. */
	respond: (req: Received, res: http.ServerResponse) => void;
	close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
	const receiver = {
		received: [] as Received[],
		respond: (_req: Received, res: http.ServerResponse) => void res.writeHead(200).end("ok"),
	} as Receiver;
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on("data", (c: Buffer) => chunks.push(c));
		req.on("end", () => {
			const body = Buffer.concat(chunks).toString("utf8");
			const got: Received = {
				method: req.method ?? "",
				path: req.url ?? "",
				headers: req.headers,
				body,
				json: () => JSON.parse(body) as Record<string, unknown>,
			};
			receiver.received.push(got);
			receiver.respond(got, res);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	receiver.port = (server.address() as AddressInfo).port;
	receiver.url = `http://127.0.0.1:${receiver.port}`;
	receiver.close = () =>
		new Promise((resolve) => {
			server.closeAllConnections();
			server.close(() => resolve());
		});
	return receiver;
}

/** A port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
	const server = http.createServer();
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}
