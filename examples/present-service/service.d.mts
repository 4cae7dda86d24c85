// Types of service.mjs, for the tests that start it (test/console/credentials.test.ts).
export interface PresentServiceOptions {
	port?: number;
	host?: string;
	/** The origin people reach it at; default http://<host>:<port>. */
	publicOrigin?: string;
	/** The svc server asked to verify presentations. */
	verifier: string;
	type?: string;
	issuers?: string;
	claims?: string;
}

export interface Verdict {
	state: string;
	keyBound?: boolean;
	reason?: string;
	issuer?: string;
	type?: string;
	claims?: Record<string, unknown>;
	withheld?: number;
	status?: string;
}

export interface PresentService {
	origin: string;
	url: string;
	/** The verdict each request's presentation received, by its state. */
	verdicts: Map<string, Verdict>;
	/** A fresh `svc://present` link, as the page shows it. */
	link(): string;
	close(): Promise<void>;
}

export function startPresentService(options: PresentServiceOptions): Promise<PresentService>;
