// A real HTTP receiver on loopback for callback tests: records every request it gets (method,
// path, headers, body) and answers with whatever `respond` does (200 by default). It also counts
// the TCP connections it accepts, so a test can tell "never contacted" from "connected, then
// dropped before a request was sent".
import http from "node:http";
import net, { type AddressInfo } from "node:net";

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
	/**
	 * The TCP connections accepted so far (a `net.Server` 'connection' count, whether or not a
	 * request came on them) and the bytes read on them. Every connection the kernel completed before
	 * the call is counted: a probe connection is made and awaited first, and the listening socket
	 * accepts in order.
	 */
	tcp(): Promise<{ connections: number; bytesIn: number }>;
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
	// Each accepted socket with its peer's port, read at once (it is gone once the socket closes).
	const sockets: { socket: net.Socket; port: number | undefined }[] = [];
	const probes = new Set<number>();
	let onConnection = () => {};
	server.on("connection", (socket: net.Socket) => {
		sockets.push({ socket, port: socket.remotePort });
		onConnection();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	receiver.port = (server.address() as AddressInfo).port;
	receiver.url = `http://127.0.0.1:${receiver.port}`;
	receiver.tcp = async () => {
		const probe = net.connect(receiver.port, "127.0.0.1");
		await new Promise<void>((resolve, reject) => probe.once("connect", resolve).once("error", reject));
		const port = probe.localPort as number;
		probes.add(port);
		// The listening socket accepts in the order the kernel completed the handshakes: once the
		// probe is accepted, so is every connection made before it.
		const seen = () => sockets.some((s) => s.port === port);
		while (!seen()) await new Promise<void>((resolve) => (onConnection = resolve));
		probe.destroy();
		const counted = sockets.filter((s) => s.port === undefined || !probes.has(s.port));
		return {
			connections: counted.length,
			bytesIn: counted.reduce((sum, s) => sum + s.socket.bytesRead, 0),
		};
	};
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
