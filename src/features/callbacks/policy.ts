// The callback URL policy at save (spec "Callback URL policy"): an absolute http(s) URL whose host
// is not a blocked address. An IP literal is judged as written; a host name is resolved now and
// refused when any answer is blocked. A name that does not resolve yet is accepted: the receiver
// may not be deployed, and the same check runs again on the address dialled at every delivery.

import net from "node:net";
import { AppError } from "../../http/errors.ts";
import { checkHost, checkOutboundUrl, hostOf } from "../../lib/outbound.ts";

export const CALLBACK_URL_MAX = 2048;

export interface CallbackPolicy {
	/** ALLOW_PRIVATE_CALLBACKS. */
	allowPrivate: boolean;
	/** DNS_SERVERS: resolvers for host look-ups; empty uses the system's. */
	dnsServers: readonly string[];
}

/** The URL as it will be used (WHATWG-normalised), or 400 `validation_callback_url_blocked`. */
export async function checkCallbackUrl(raw: string, policy: CallbackPolicy): Promise<string> {
	const refuse = (reason: string) =>
		new AppError("validation_callback_url_blocked", `callbackUrl: ${reason}`, {
			extra: { field: "body.callbackUrl" },
		});
	const checked = checkOutboundUrl(raw, policy);
	if (!checked.ok) throw refuse(checked.reason);
	const href = checked.url.href;
	if (href.length > CALLBACK_URL_MAX) throw refuse(`longer than ${CALLBACK_URL_MAX} characters`);
	const host = hostOf(checked.url);
	if (!net.isIP(host)) {
		const found = await checkHost(host, policy, policy.dnsServers);
		if (found.state === "blocked") throw refuse(found.reason);
	}
	return href;
}
