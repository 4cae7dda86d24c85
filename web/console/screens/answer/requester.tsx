// Who asks: the requester's name, the identity it asks as, and the server (domain and root key
// fingerprint) that speaks for it; with a note when this server checked another server's DNS pin.
import { useT } from "../../i18n/index.ts";
import { messages } from "./messages.ts";
import type { Probe } from "./types.ts";

export function Requester({ probe: p, verified }: { probe: Probe; verified?: string }) {
	const t = useT(messages);
	return (
		<dl class="answer-facts">
			<dt>{t("requester")}</dt>
			<dd>{p.requester.name}</dd>
			{p.requester.identity ? (
				<>
					<dt>{t("requesterIdentity")}</dt>
					<dd>
						{p.requester.identity.name} <code>{p.requester.identity.fingerprint.slice(0, 16)}</code>
					</dd>
				</>
			) : null}
			<dt>{t("server")}</dt>
			<dd>
				{p.server.domain} <code>{p.server.fingerprint.slice(0, 16)}</code>
				{verified ? <span class="answer-verified">{verified}</span> : null}
			</dd>
		</dl>
	);
}
