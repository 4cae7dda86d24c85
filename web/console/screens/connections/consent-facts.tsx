// What the consent shows before the person answers: the tool (origin, claimed name, check code, a
// live connection's expiry), and a proposal's share (label, the vault's entries it names, expiry…).
import type { Proposal } from "../../../../src/lib/app-links.ts";
import { useT } from "../../i18n/index.ts";
import { DateTime } from "../../ui/index.ts";
import type { VaultRecord } from "../vault/types.ts";
import { messages } from "./messages.ts";
import type { Connection } from "./types.ts";

export function ConnectionFacts({
	client,
	name,
	code,
	existing,
}: {
	client: string | undefined;
	name: string | undefined;
	code: string;
	existing: Connection | undefined;
}) {
	const t = useT(messages);
	return (
		<dl class="consent-facts">
			{client ? (
				<>
					<dt>{t("origin")}</dt>
					<dd>
						<code>{client}</code>
					</dd>
				</>
			) : null}
			{name ? (
				<>
					<dt>{t("tool")}</dt>
					<dd>
						{t("claims", { name })}
						<p class="field-hint">{t("claimNote")}</p>
					</dd>
				</>
			) : null}
			{code ? (
				<>
					<dt>{t("checkCode")}</dt>
					<dd>
						<strong class="check-code">{code}</strong>
						<p class="field-hint">{t("checkCodeHint")}</p>
					</dd>
				</>
			) : null}
			{existing ? (
				<>
					<dt>{t("expires")}</dt>
					<dd>
						<DateTime value={existing.expiresAt} />
					</dd>
				</>
			) : null}
		</dl>
	);
}

export function ProposalFacts({
	proposal,
	chosen,
	missing,
}: {
	proposal: Proposal;
	chosen: VaultRecord[];
	missing: string[];
}) {
	const t = useT(messages);
	return (
		<dl class="consent-facts">
			<dt>{t("label")}</dt>
			<dd>{proposal.label}</dd>
			<dt>{t("entries")}</dt>
			<dd>
				{chosen.length > 0 ? (
					<ul class="list-plain">
						{chosen.map((r) => (
							<li key={r.id}>
								{r.name} <code>{r.key}</code>
							</li>
						))}
					</ul>
				) : null}
				{missing.length > 0 ? <p class="field-hint">{t("missing", { keys: missing.join(", ") })}</p> : null}
			</dd>
			<dt>{t("shareExpires")}</dt>
			<dd>{proposal.days ? t("expiresIn", { count: proposal.days }) : t("noExpiry")}</dd>
			{proposal.stamp ? (
				<>
					<dt>{t("stamp")}</dt>
					<dd>{proposal.stamp}</dd>
				</>
			) : null}
			{proposal.purpose ? (
				<>
					<dt>{t("purpose")}</dt>
					<dd>{t("purposeApplication")}</dd>
				</>
			) : null}
			{proposal.template ? (
				<>
					<dt>{t("template")}</dt>
					<dd>{proposal.template}</dd>
				</>
			) : null}
			{proposal.ref ? (
				<>
					<dt>{t("ref")}</dt>
					<dd>{proposal.ref}</dd>
				</>
			) : null}
		</dl>
	);
}
