// What the server tells the page about itself, as data attributes of <body> (the CSP allows no
// inline script): its domain and what the operator turned on (sign-ups, issuing attestations), so
// a screen of a feature that is off says so before anyone fills its form.
export interface ServerInfo {
	domain: string;
	signups: boolean;
	/** ALLOW_ATTESTATIONS: off by default. */
	attestations: boolean;
	/** ALLOW_ANSWER_SIGNUPS: on by default; off, no request admits an answer-only sign-up. */
	answerSignups: boolean;
	/** SMTP_URL set: the server sends invitations and request links by e-mail. */
	mail: boolean;
}

export function serverInfo(): ServerInfo {
	const data = document.body.dataset;
	return {
		domain: data.domain ?? location.hostname,
		signups: data.signups === "true",
		attestations: data.attestations === "true",
		answerSignups: data.answerSignups !== "false",
		mail: data.mail === "true",
	};
}
