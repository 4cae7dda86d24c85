// What the server tells the page about itself, as data attributes of <body> (the CSP allows no
// inline script): its domain and whether anyone may sign up.
export interface ServerInfo {
	domain: string;
	signups: boolean;
}

export function serverInfo(): ServerInfo {
	const data = document.body.dataset;
	return { domain: data.domain ?? location.hostname, signups: data.signups === "true" };
}
