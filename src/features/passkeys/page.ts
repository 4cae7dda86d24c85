// `GET /passkey` and its static files: the page runs the ceremony in the browser with
// @simplewebauthn/browser (served from node_modules by this server, no CDN) and web/passkey.js, then
// opens `svc://auth?code=…&state=…` and shows the code and link for a browser that cannot. English
// or German like the console: `?lang=` first, then Accept-Language.
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { type Static, Type } from "typebox";
import { type Lang, pickLanguage } from "../../http/language.ts";
import { media, problemContent } from "../../http/schemas.ts";
import { PAGE_CSP } from "../../http/security-headers.ts";
import { withTokens } from "../../lib/brand.ts";
import { webDir } from "../../lib/web-dir.ts";
import { checkOrigin } from "./checks.ts";
import { type PageView, renderPage } from "./page-html.ts";
import { describeTicket, relyingParty } from "./service.ts";

const STATE = /^[A-Za-z0-9._~-]{1,128}$/;
const S256 = /^[A-Za-z0-9_-]{43}$/;

export function browserBundle(): string {
	// The package exports only its entry points; the UMD bundle sits beside them in the package.
	const entry = createRequire(import.meta.url).resolve("@simplewebauthn/browser");
	return path.join(path.dirname(path.dirname(entry)), "dist", "bundle", "index.umd.min.js");
}

// Lengths and forms are checked by the handler so that a bad link gets an explanatory page.
const PageQuery = Type.Object({
	mode: Type.Optional(Type.String({ description: "`signin` (default) or `signup`" })),
	ticket: Type.Optional(Type.String({ description: "one-time ticket (sign-up or add a passkey)" })),
	challenge: Type.Optional(Type.String({ description: "PKCE S256 challenge, 43 base64url characters" })),
	state: Type.Optional(Type.String({ description: "`[A-Za-z0-9._~-]{1,128}`, echoed in svc://auth" })),
	lang: Type.Optional(Type.String({ description: "`en` or `de`; otherwise Accept-Language decides" })),
});

/** The refusal pages' words. Error codes and query parameter names stay as they are. */
const REFUSALS = {
	en: {
		wrongAddress: "Wrong address",
		wrongAddressText: (origin: string) => `Passkeys work only at ${origin} (passkey_origin_invalid).`,
		continueAt: (origin: string) => `Continue at ${origin}`,
		invalidLink: "Invalid link",
		modeInvalid: "mode must be signin or signup.",
		challengeInvalid: "The challenge is malformed.",
		stateInvalid: "The state is malformed.",
		stateMissing: "A challenge needs a state.",
		fromApp: "Open this from the app",
		fromAppText: "Sign-in starts in the app, which opens this page with its challenge.",
		signupsOff: "Sign-ups are off",
		signupsOffText: "This server creates accounts only with a one-time link from its operator.",
		expired: "Link expired",
		expiredText: "This one-time link is unknown, expired or already used.",
	},
	de: {
		wrongAddress: "Falsche Adresse",
		wrongAddressText: (origin: string) =>
			`Passkeys funktionieren nur unter ${origin} (passkey_origin_invalid).`,
		continueAt: (origin: string) => `Weiter unter ${origin}`,
		invalidLink: "Ungültiger Link",
		modeInvalid: "Der Parameter mode muss signin oder signup sein.",
		challengeInvalid: "Der Parameter challenge ist fehlerhaft.",
		stateInvalid: "Der Parameter state ist fehlerhaft.",
		stateMissing: "Zu challenge fehlt der Parameter state.",
		fromApp: "Bitte aus der App öffnen",
		fromAppText: "Die Anmeldung beginnt in der App, die diese Seite dann selbst öffnet.",
		signupsOff: "Registrierungen sind abgeschaltet",
		signupsOffText: "Dieser Server legt Konten nur mit einem Einmal-Link seines Betreibers an.",
		expired: "Link abgelaufen",
		expiredText: "Dieser Einmal-Link ist unbekannt, abgelaufen oder schon benutzt.",
	},
} as const;

export const passkeyPageRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const rp = relyingParty(app.config);
	const web = webDir();
	const assets: Record<string, { type: string; body: Buffer }> = {
		"/assets/passkey.js": {
			type: "text/javascript; charset=utf-8",
			body: fs.readFileSync(path.join(web, "passkey.js")),
		},
		"/assets/passkey.css": {
			type: "text/css; charset=utf-8",
			// The design tokens first (web/tokens.css), then the page's own rules: one file.
			body: withTokens(fs.readFileSync(path.join(web, "passkey.css"))),
		},
		"/assets/simplewebauthn-browser.js": {
			type: "text/javascript; charset=utf-8",
			body: fs.readFileSync(browserBundle()),
		},
	};
	for (const [url, asset] of Object.entries(assets)) {
		app.get(url, { schema: { hide: true } }, async (_request, reply) =>
			reply.type(asset.type).header("cache-control", "public, max-age=300").send(asset.body),
		);
	}

	async function view(
		query: Static<typeof PageQuery>,
		host: string,
		lang: Lang,
	): Promise<{ status: 200 | 400; view: PageView }> {
		const r = REFUSALS[lang];
		const refuse = (title: string, message: string, link?: { href: string; text: string }) => ({
			status: 400 as const,
			view: { kind: "error" as const, title, message, ...(link ? { link } : {}) },
		});
		try {
			checkOrigin(rp, host, undefined);
		} catch {
			const here = new URL("/passkey", rp.origin);
			for (const [k, v] of Object.entries(query)) if (typeof v === "string") here.searchParams.set(k, v);
			return refuse(r.wrongAddress, r.wrongAddressText(rp.origin), {
				href: here.toString(),
				text: r.continueAt(rp.origin),
			});
		}
		const mode = query.mode ?? "signin";
		if (mode !== "signin" && mode !== "signup") return refuse(r.invalidLink, r.modeInvalid);
		const challenge = query.challenge ?? "";
		const state = query.state ?? "";
		if (challenge !== "" && !S256.test(challenge)) return refuse(r.invalidLink, r.challengeInvalid);
		if (state !== "" && !STATE.test(state)) return refuse(r.invalidLink, r.stateInvalid);
		if (challenge !== "" && state === "") return refuse(r.invalidLink, r.stateMissing);
		if (mode === "signin" && challenge === "") return refuse(r.fromApp, r.fromAppText);
		const data = { mode, ticket: query.ticket ?? "", challenge, state };
		if (mode === "signin") return { status: 200, view: { kind: "signin", domain: rp.id, data } };
		if (query.ticket === undefined) {
			if (!app.config.allowSignups) return refuse(r.signupsOff, r.signupsOffText);
			return { status: 200, view: { kind: "signup", domain: rp.id, data } };
		}
		const ticket = await describeTicket(app.store.db, query.ticket, app.clock.now());
		if (!ticket) return refuse(r.expired, r.expiredText);
		const kind = ticket.kind === "add" ? "add" : "ticket-signup";
		return { status: 200, view: { kind, domain: rp.id, data, email: ticket.email } };
	}

	app.get(
		"/passkey",
		{
			schema: {
				tags: ["passkeys"],
				summary: "The passkey page: runs a sign-in or registration and opens svc://auth",
				querystring: PageQuery,
				response: {
					200: media("text/html", "The passkey page"),
					400: {
						description:
							"An explanatory HTML page, or problem+json when the query string itself is malformed",
						content: { "text/html": { schema: Type.String() }, ...problemContent },
					},
				},
			},
		},
		async (request, reply) => {
			const lang = pickLanguage(request.headers["accept-language"], request.query.lang);
			const { status, view: v } = await view(request.query, request.host, lang);
			return reply
				.code(status)
				.type("text/html; charset=utf-8")
				.header("content-security-policy", PAGE_CSP)
				.header("content-language", lang)
				.header("vary", "Accept-Language")
				.header("cache-control", "no-store")
				.send(renderPage(v, lang));
		},
	);
};
