// What `npm start` prints on a terminal once the server listens: the address to open (passkeys work
// only there, so 127.0.0.1 will not do for `localhost`), and, while no account exists, the command
// that makes the first owner's ticket. JSON logs are unchanged; LOG_FORMAT=json prints no banner.

export interface BannerFacts {
	/** `publicOrigin(config)`: where browsers must open the server. */
	origin: string;
	/** Where the process listens, as `host:port`, when it differs from the origin's. */
	listening: string;
	hasAccount: boolean;
}

export function startBanner({ origin, listening, hasAccount }: BannerFacts): string {
	const lines = [`svc is serving. Open ${origin}/ in your browser (listening on ${listening}).`];
	if (!hasAccount) {
		lines.push(
			"No account yet: in a second terminal, with the same environment, run",
			"  node dist/cli/svc.js admin ticket --email you@example.org",
			"and open the link it prints to create the first owner's passkey.",
		);
	}
	return `\n${lines.join("\n")}\n\n`;
}

/** A banner only for a person at a terminal: not for pipes, files, or LOG_FORMAT=json. */
export function wantsBanner(logFormat: "auto" | "json", isTTY: boolean | undefined): boolean {
	return logFormat === "auto" && isTTY === true;
}
