#!/usr/bin/env node
// An example service that asks for a credential with `svc://present` (spec "App links") and checks
// what it receives with the svc server's `POST /api/attestations/verify`. Plain Node (node:http),
// no dependency: read it as a recipe.
//
//   VERIFIER=https://example.org PUBLIC_ORIGIN=https://shop.example node examples/present-service/service.mjs
//
// Environment: PORT (8090), HOST (127.0.0.1), PUBLIC_ORIGIN (the origin people reach it at; default
// http://127.0.0.1:<PORT>: an svc server accepts a loopback service only in development),
// VERIFIER (required: the svc server asked to verify), TYPE (the credential type asked for),
// ISSUERS and CLAIMS (comma-separated; left out: any attester, no claims).
//
// 1. GET /           a page with the link `svc://present?client_id=<origin>&response_uri=<origin>/presented
//                    &nonce=…&state=…[&type=…&issuers=…&claims=…]`: a fresh nonce and state each time,
//                    kept ten minutes.
// 2. POST /presented the app posts `{presentation, state}`: the state is spent (once), the
//                    presentation is sent to VERIFIER's `/api/attestations/verify` with
//                    `audience` = this origin and the state's nonce, the verdict kept, and the app
//                    told `{redirect_uri: <origin>/result?state=…}` (on this origin, so it follows it).
// 3. GET /result     the verdict: `verified` with `keyBound: true` is the only answer to trust;
//                    the disclosed claims, and how many the person withheld.
import crypto from "node:crypto";
import http from "node:http";
import { pathToFileURL } from "node:url";

const TEN_MINUTES = 10 * 60 * 1000;
const MAX_BODY = 256 * 1024;

const escapeHtml = (s) =>
	String(s).replace(
		/[&<>"']/g,
		(c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
	);

function page(title, body) {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{overflow-wrap:anywhere}a.button{display:inline-block;padding:.5rem 1rem;background:#0b57d0;color:#fff;border-radius:4px;text-decoration:none}
dt{font-weight:600}dd{margin:0 0 .5rem}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

/**
 * Starts the service. Answers `{origin, url, close(), verdicts}`; `verdicts` maps a state to the
 * verdict its presentation received (for the tests, and the result page).
 */
export async function startPresentService({
	port = 0,
	host = "127.0.0.1",
	publicOrigin,
	verifier,
	type,
	issuers,
	claims,
} = {}) {
	if (!verifier) throw new Error("VERIFIER is required: the svc server that verifies presentations");
	/** state -> { nonce, expires } */
	const asked = new Map();
	/** state -> verdict */
	const verdicts = new Map();
	let origin = publicOrigin;

	function newRequest() {
		const state = crypto.randomBytes(16).toString("base64url");
		const nonce = crypto.randomBytes(24).toString("base64url");
		asked.set(state, { nonce, expires: Date.now() + TEN_MINUTES });
		const params = new URLSearchParams({
			client_id: origin,
			response_uri: `${origin}/presented`,
			nonce,
			state,
			...(type ? { type } : {}),
			...(issuers ? { issuers } : {}),
			...(claims ? { claims } : {}),
		});
		// The grammar wants a space as %20; URLSearchParams writes `+`, and none of these values has one.
		return `svc://present?${params.toString()}`;
	}

	async function verify(presentation, nonce) {
		const res = await fetch(new URL("/api/attestations/verify", verifier), {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ presentation, audience: origin, nonce }),
			signal: AbortSignal.timeout(15_000),
		});
		if (!res.ok) return { state: "invalid", reason: `the verifier answered ${res.status}` };
		return res.json();
	}

	function readBody(req) {
		return new Promise((resolve, reject) => {
			let size = 0;
			const chunks = [];
			req.on("data", (c) => {
				size += c.length;
				if (size > MAX_BODY) {
					reject(new Error("too large"));
					req.destroy();
				} else chunks.push(c);
			});
			req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
			req.on("error", reject);
		});
	}

	const json = (res, status, body) => {
		res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
		res.end(JSON.stringify(body));
	};
	const html = (res, status, body) => {
		res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
		res.end(body);
	};

	const server = http.createServer(async (req, res) => {
		const url = new URL(req.url ?? "/", origin);
		for (const [state, a] of asked) if (a.expires < Date.now()) asked.delete(state);
		try {
			if (req.method === "GET" && url.pathname === "/") {
				const link = newRequest();
				return html(
					res,
					200,
					page(
						"Show your membership",
						`<p>This service asks for a credential${type ? ` of type <code>${escapeHtml(type)}</code>` : ""}${issuers ? ` from ${escapeHtml(issuers)}` : ""}${claims ? `, showing ${escapeHtml(claims)}` : ""}. Your svc app asks you first, and you choose what it sees.</p>
<p><a class="button" href="${escapeHtml(link)}">Show a credential with svc</a></p>
<p>No app handles svc:// links here? Run <code>svc open '&lt;link&gt;'</code>, or paste the link under Credentials, Open an app link, in your console:</p>
<p><code id="link">${escapeHtml(link)}</code></p>`,
					),
				);
			}
			if (req.method === "POST" && url.pathname === "/presented") {
				let body;
				try {
					body = JSON.parse(await readBody(req));
				} catch {
					return json(res, 400, { error: "the body is not JSON" });
				}
				const { presentation, state } = body ?? {};
				const a = typeof state === "string" ? asked.get(state) : undefined;
				if (typeof presentation !== "string" || !a)
					return json(res, 400, { error: "unknown or spent state" });
				asked.delete(state); // one presentation per request
				verdicts.set(state, await verify(presentation, a.nonce));
				return json(res, 200, { redirect_uri: `${origin}/result?state=${encodeURIComponent(state)}` });
			}
			if (req.method === "GET" && url.pathname === "/result") {
				const verdict = verdicts.get(url.searchParams.get("state") ?? "");
				if (!verdict)
					return html(res, 404, page("No such answer", "<p>Nothing was presented for this request.</p>"));
				const shown = Object.entries(verdict.claims ?? {})
					.map(([k, v]) => `<li><strong>${escapeHtml(k)}</strong>: ${escapeHtml(JSON.stringify(v))}</li>`)
					.join("");
				const trusted = verdict.state === "verified" && verdict.keyBound === true;
				return html(
					res,
					200,
					page(
						trusted ? "Verified" : "Not verified",
						`<dl id="verdict">
<dt>Verdict</dt><dd data-field="state">${escapeHtml(verdict.state)}</dd>
<dt>Presented by its holder for this service</dt><dd data-field="keyBound">${verdict.keyBound ? "yes" : "no"}</dd>
${verdict.reason ? `<dt>Reason</dt><dd data-field="reason">${escapeHtml(verdict.reason)}</dd>` : ""}
<dt>Attested by</dt><dd data-field="issuer">${escapeHtml(verdict.issuer ?? "")}</dd>
<dt>Type</dt><dd data-field="type">${escapeHtml(verdict.type ?? "")}</dd>
<dt>Claims shown</dt><dd data-field="claims">${shown ? `<ul>${shown}</ul>` : "none"}</dd>
<dt>Claims withheld</dt><dd data-field="withheld">${escapeHtml(verdict.withheld ?? 0)}</dd>
<dt>Status</dt><dd data-field="status">${escapeHtml(verdict.status ?? "")}</dd>
</dl><p><a href="/">Ask again</a></p>`,
					),
				);
			}
			html(res, 404, page("Not found", "<p>Nothing here.</p>"));
		} catch (err) {
			json(res, 502, { error: err instanceof Error ? err.message : String(err) });
		}
	});
	await new Promise((resolve) => server.listen(port, host, resolve));
	const bound = server.address().port;
	origin ??= `http://${host}:${bound}`;
	return {
		origin,
		url: `${origin}/`,
		verdicts,
		/** A fresh `svc://present` link, as the page shows it. */
		link: newRequest,
		close: () => new Promise((resolve) => server.close(resolve)),
	};
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
	const env = process.env;
	const port = Number(env.PORT ?? 8090);
	const service = await startPresentService({
		port,
		host: env.HOST ?? "127.0.0.1",
		publicOrigin: env.PUBLIC_ORIGIN,
		verifier: env.VERIFIER,
		type: env.TYPE,
		issuers: env.ISSUERS,
		claims: env.CLAIMS,
	});
	console.log(`present-service: ${service.url} (verifier ${env.VERIFIER})`);
}
