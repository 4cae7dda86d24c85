// `svc open 'svc://signin?…'` (spec "App links": "starts an OIDC sign-in through the app"): a
// service hands its OpenID Connect authorization request to the person's app, which knows the
// person's server; the app opens that server's authorization page (`/oidc/authorize`, found in its
// discovery document) with the request, where the person signs in with a passkey on this device
// and consents. The server answers the service at its `redirect_uri` with `iss` naming itself
// (RFC 9207), which tells the service where to redeem the code. On a terminal the address is
// printed to open; off one (the desktop's link handler) it is opened in the browser.
import type { SigninRequest } from "../../../src/lib/app-links.ts";
import { openBrowser } from "../browser.ts";
import type { Context } from "../command.ts";
import { CliError, EXIT, UsageError } from "../errors.ts";
import { note, printJson, printLine } from "../output.ts";
import { chosenServer } from "../sessions.ts";

/** The server's authorization endpoint, from its discovery document; on the server's own origin. */
async function authorizationEndpoint(ctx: Context, server: string): Promise<string> {
	const meta = await ctx
		.publicApi(server)
		.get<{ authorization_endpoint?: unknown }>("/.well-known/openid-configuration");
	const endpoint = meta.authorization_endpoint;
	if (typeof endpoint !== "string") throw new CliError(`${server} names no authorization endpoint`);
	let url: URL;
	try {
		url = new URL(endpoint);
	} catch {
		throw new CliError(`${server} names an authorization endpoint that is not an address`);
	}
	// The issuer may be the server's public name where this device reaches it another way (a
	// development server): the page is opened where this device reaches the server.
	return new URL(url.pathname, server).toString();
}

export async function openSigninLink(ctx: Context, link: SigninRequest): Promise<number> {
	const server = chosenServer(ctx.values.server as string | undefined);
	if (!server) {
		throw new UsageError(
			"which server do you sign in with? Sign in to it once with `svc login <server>`, or pass --server",
		);
	}
	const page = new URL(await authorizationEndpoint(ctx, server));
	page.search = new URLSearchParams(link.params).toString();
	const address = page.toString();
	const onTerminal = Boolean(process.stdin.isTTY && process.stderr.isTTY);
	const opened = !onTerminal && !ctx.values["no-browser"] && openBrowser(address);
	if (ctx.json) {
		printJson({
			kind: "signin",
			status: opened ? "opened" : "printed",
			server,
			client: link.clientId,
			address,
		});
	} else {
		note(
			[
				`${link.clientId} asks you to sign in (${link.scopes.join(", ")}) with your server ${server}.`,
				opened
					? "Its sign-in page is open in the browser: confirm with a passkey there."
					: "Open this address in a browser where you have a passkey for it, and confirm there:",
			].join("\n"),
		);
		printLine(address);
	}
	if (!opened && !onTerminal && !ctx.values["no-browser"]) {
		throw new CliError("no browser could be opened here: open the address above yourself", EXIT.usage);
	}
	return EXIT.ok;
}
