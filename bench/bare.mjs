// The baseline: a bare node:http server returning a fixed body, measured in the same run.
import http from "node:http";

const body = JSON.stringify({ ok: true, note: "bare node:http baseline" });
const server = http.createServer((_req, res) => {
	res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
	res.end(body);
});
server.listen(0, "127.0.0.1", () => {
	process.stdout.write(`listening ${server.address().port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
