// The server's documented HTTP API as the device calls it: JSON calls through fetch, and streamed
// uploads and downloads through node:http(s) so a file is never held in memory whole. A refusal
// becomes a ServerRefusal (problem+json), a dead address an "unreachable" CliError.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { CliError, EXIT, type Problem, ServerRefusal } from "./errors.ts";

export interface ApiOptions {
	server: string;
	/** Session token (Authorization: Bearer). */
	token?: string;
	/** X-Workspace: the workspace to act in (else the account's first). */
	workspace?: string;
}

export type Progress = (done: number, total: number) => void;

function unreachable(server: string, err: unknown): CliError {
	const cause = (err as { cause?: { code?: string; message?: string } }).cause;
	const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
	return new CliError(`cannot reach ${server} (${why})`, EXIT.unreachable);
}

async function refusal(res: Response, what: string): Promise<CliError> {
	const text = await res.text();
	try {
		const body = JSON.parse(text) as Partial<Problem>;
		if (typeof body.code === "string")
			return new ServerRefusal({ ...body, status: res.status, code: body.code });
	} catch {
		// not JSON: described below
	}
	return new CliError(
		`${what} answered ${res.status} without a problem description; is this a svc server?`,
		res.status === 404 ? EXIT.notFound : EXIT.unreachable,
	);
}

export class Api {
	constructor(readonly options: ApiOptions) {}

	get server(): string {
		return this.options.server;
	}

	headers(extra: Record<string, string> = {}): Record<string, string> {
		return {
			accept: "application/json",
			...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
			...(this.options.workspace ? { "x-workspace": this.options.workspace } : {}),
			...extra,
		};
	}

	/** A JSON call; answers the parsed body (undefined for 204) and the response headers. */
	async call<T>(
		method: string,
		path: string,
		body?: unknown,
	): Promise<{ data: T; headers: Headers; status: number }> {
		let res: Response;
		try {
			res = await fetch(new URL(path, this.server), {
				method,
				headers: this.headers(body === undefined ? {} : { "content-type": "application/json" }),
				...(body === undefined ? {} : { body: JSON.stringify(body) }),
				redirect: "manual",
			});
		} catch (err) {
			throw unreachable(this.server, err);
		}
		if (!res.ok) throw await refusal(res, `${method} ${path}`);
		if (res.status === 204) return { data: undefined as T, headers: res.headers, status: res.status };
		const text = await res.text();
		try {
			return { data: JSON.parse(text) as T, headers: res.headers, status: res.status };
		} catch {
			throw new CliError(`${method} ${path} answered something that is not JSON`, EXIT.unreachable);
		}
	}

	get<T>(path: string): Promise<T> {
		return this.call<T>("GET", path).then((r) => r.data);
	}

	post<T>(path: string, body?: unknown): Promise<T> {
		return this.call<T>("POST", path, body ?? {}).then((r) => r.data);
	}

	patch<T>(path: string, body: unknown): Promise<T> {
		return this.call<T>("PATCH", path, body).then((r) => r.data);
	}

	async delete(path: string): Promise<void> {
		await this.call("DELETE", path);
	}

	/**
	 * Sends a multipart/form-data body: text `fields`, then the file at `file` streamed from disk as
	 * the `file` part, with a Content-Length known in advance (the server can refuse an oversized
	 * upload before a byte is read).
	 */
	async upload<T>(
		method: "POST" | "PATCH",
		path: string,
		fields: Record<string, string>,
		file: { path: string; name: string },
		progress?: Progress,
	): Promise<{ data: T; sha256: string; size: number }> {
		const size = fs.statSync(file.path).size;
		const hash = crypto.createHash("sha256");
		const boundary = `----svc-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
		const quoted = (s: string) => s.replace(/["\\\r\n]/g, (c) => encodeURIComponent(c));
		let head = "";
		for (const [name, value] of Object.entries(fields)) {
			head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
		}
		head +=
			`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(file.name)}"\r\n` +
			"Content-Type: application/octet-stream\r\n\r\n";
		const tail = `\r\n--${boundary}--\r\n`;
		const length = Buffer.byteLength(head) + size + Buffer.byteLength(tail);
		const url = new URL(path, this.server);
		const client = url.protocol === "https:" ? https : http;
		let sent = 0;
		return new Promise((resolve, reject) => {
			const req = client.request(url, {
				method,
				headers: this.headers({
					"content-type": `multipart/form-data; boundary=${boundary}`,
					"content-length": String(length),
				}),
			});
			req.on("error", (err) => reject(unreachable(this.server, { cause: err })));
			req.on("response", (res) => {
				const chunks: Buffer[] = [];
				res.on("data", (c: Buffer) => chunks.push(c));
				res.on("error", (err) => reject(unreachable(this.server, { cause: err })));
				res.on("end", () => {
					const text = Buffer.concat(chunks).toString("utf8");
					const status = res.statusCode ?? 0;
					const response = new Response(status === 204 ? null : text, { status });
					if (status >= 200 && status < 300) {
						try {
							resolve({ data: JSON.parse(text) as T, sha256: hash.digest("hex"), size: sent });
						} catch {
							reject(new CliError(`${method} ${path} answered something that is not JSON`, EXIT.unreachable));
						}
						return;
					}
					refusal(response, `${method} ${path}`).then(reject, reject);
				});
			});
			req.write(head);
			const counter = new Transform({
				transform(chunk: Buffer, _enc, done) {
					sent += chunk.length;
					hash.update(chunk);
					progress?.(sent, size);
					done(null, chunk);
				},
			});
			// The server may answer (and close) before the body is sent whole: that answer wins.
			pipeline(fs.createReadStream(file.path), counter, req, { end: false })
				.then(() => req.end(tail))
				.catch(() => undefined);
		});
	}

	/** Streams GET `path` into the file `dest` (written beside it, renamed when complete). */
	/**
	 * Streams GET `path` into the file `dest` (written beside it, renamed when complete). node:http,
	 * not fetch: fetch reads ahead of a slow disk, http's socket pauses with the file stream.
	 */
	async download(
		path: string,
		dest: string,
		progress?: Progress,
	): Promise<{ bytes: number; sha256: string }> {
		const url = new URL(path, this.server);
		const client = url.protocol === "https:" ? https : http;
		const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
			const req = client.get(url, { headers: this.headers({ accept: "*/*" }) }, resolve);
			req.on("error", (err) => reject(unreachable(this.server, { cause: err })));
		});
		const status = res.statusCode ?? 0;
		if (status < 200 || status >= 300) {
			const chunks: Buffer[] = [];
			for await (const chunk of res) chunks.push(chunk as Buffer);
			throw await refusal(new Response(Buffer.concat(chunks), { status }), `GET ${path.split("?")[0]}`);
		}
		const total = Number(res.headers["content-length"] ?? -1);
		const partial = `${dest}.part`;
		let bytes = 0;
		const hash = crypto.createHash("sha256");
		const counter = new Transform({
			transform(chunk: Buffer, _enc, done) {
				bytes += chunk.length;
				hash.update(chunk);
				progress?.(bytes, total);
				done(null, chunk);
			},
		});
		try {
			await pipeline(res, counter, fs.createWriteStream(partial, { mode: 0o600 }));
			if (total >= 0 && bytes !== total) throw new Error(`${bytes} of ${total} bytes arrived`);
			fs.renameSync(partial, dest);
		} catch (err) {
			fs.rmSync(partial, { force: true });
			throw new CliError(`the download stopped: ${err instanceof Error ? err.message : String(err)}`);
		}
		return { bytes, sha256: hash.digest("hex") };
	}
}
