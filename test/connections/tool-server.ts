// A connected tool for browser tests: a page served from its own loopback origin that makes its
// PKCE pair and check code in the browser, polls or redeems at the owner's server from the page
// (the one cross-origin call the API allows), and a backend on the same origin that keeps the
// token and calls the tool's routes server to server, as a real tool would.
import http from "node:http";

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Flat finder</title></head>
<body><h1>Flat finder</h1><p id="out"></p>
<script>
const b64u = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
const sha = async (text) => new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
window.tool = {
  async start() {
    const verifier = b64u(crypto.getRandomValues(new Uint8Array(32)));
    const challenge = b64u(await sha(verifier));
    localStorage.setItem("verifier", verifier);
    const hex = Array.from((await sha(challenge)).slice(0, 3), (b) => b.toString(16).padStart(2, "0")).join("").toUpperCase();
    return { challenge, checkCode: hex.slice(0, 3) + "-" + hex.slice(3) };
  },
  statuses: [],
  answer: null,
  async poll(server) {
    const verifier = localStorage.getItem("verifier");
    for (let i = 0; i < 300; i++) {
      const res = await fetch(server + "/api/connect/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ verifier }),
      });
      this.statuses.push(res.status);
      if (res.status !== 202) { this.answer = await res.json(); return; }
      await sleep(150);
    }
  },
  async redeem(server, code, redirectUri) {
    const verifier = localStorage.getItem("verifier");
    const res = await fetch(server + "/api/connect/token", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ code, verifier, redirectUri }),
    });
    return { status: res.status, body: await res.json() };
  },
  async backend(path, body) {
    const res = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  },
  async direct(server, token) {
    try { await fetch(server + "/api/connection", { headers: { "x-svc-connection": token } }); return "read"; }
    catch { return "blocked"; }
  },
  async directToken(server) {
    try {
      await fetch(server + "/api/connect/token", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      return "read";
    } catch { return "blocked"; }
  },
};
const q = new URLSearchParams(location.search);
if (location.pathname === "/back" && q.get("code")) {
  window.redeemed = tool.redeem(q.get("server"), q.get("code"), location.origin + "/back");
}
</script></body></html>`;

export interface ToolServer {
	origin: string;
	close(): Promise<void>;
}

/** Serves the tool on `host`:`port`; its backend calls `svc` (the owner's server, for the API). */
export function startToolServer(host: string, port: number, svc: string): Promise<ToolServer> {
	const server = http.createServer(async (req, res) => {
		const url = new URL(req.url ?? "/", `http://${host}`);
		if (req.method === "GET") {
			res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
			return res.end(PAGE);
		}
		let raw = "";
		for await (const chunk of req) raw += chunk;
		const body = JSON.parse(raw || "{}") as { token: string; id?: string };
		const target =
			url.pathname === "/tool/status"
				? { method: "GET", path: "/api/connection" }
				: { method: "POST", path: `/api/connection/links/${body.id}/revoke` };
		const answer = await fetch(`${svc}${target.path}`, {
			method: target.method,
			headers: { "x-svc-connection": body.token },
		});
		res.writeHead(answer.status, { "content-type": "application/json" });
		res.end(await answer.text());
	});
	return new Promise((resolve) => {
		server.listen(port, host, () =>
			resolve({
				origin: `http://${host}:${port}`,
				close: () =>
					new Promise<void>((done) => {
						server.closeAllConnections();
						server.close(() => done());
					}),
			}),
		);
	});
}
