// The consent a person gives a tool: to connect (`svc://connect`) or to turn its proposal
// (`svc://p`) into a share. Shows the tool's origin, its claimed name, the check code and what it
// may do; a proposal's keys are matched to the vault's records. On consent the connection is made
// (or reused), the share created naming it, and the answer sent back to the tool (spec "App links").
import { useEffect, useState } from "preact/hooks";
import { AppLinkError, checkCode } from "../../../../src/lib/app-links.ts";
import { collection, request } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { navigate } from "../../router.ts";
import { announce, Button, Checkbox, ErrorAlert, LoadState, Notice, useLoad } from "../../ui/index.ts";
import type { VaultRecord } from "../vault/types.ts";
import { ConnectionFacts, ProposalFacts } from "./consent-facts.tsx";
import { messages } from "./messages.ts";
import { type Asked, readLink, useRefusal } from "./open-link.tsx";
import { type Connection, connections, setPermissions } from "./types.ts";

const records = collection<VaultRecord>("records");
const links = collection<{ id: string }>("links");

/** Where the app sends the answer (spec `svc://connect`): state, status, server, code, link. */
function answerAddress(redirect: string, params: Record<string, string | undefined>): string {
	const url = new URL(redirect);
	for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
	return url.toString();
}

/** A name for a new connection when a proposal gives none (`from` is optional): its host, 40 at most. */
function nameFor(asked: Asked): string {
	const name = asked.kind === "connect" ? asked.link.name : asked.link.from;
	if (name) return name;
	return Array.from(new URL(asked.link.client ?? "").host)
		.slice(0, 40)
		.join("");
}

export function Consent({ text }: { text: string }) {
	const t = useT(messages);
	const refusal = useRefusal();
	let asked: Asked | null = null;
	let refused: AppLinkError | null = null;
	try {
		asked = readLink(text);
	} catch (err) {
		if (!(err instanceof AppLinkError)) throw err;
		refused = err;
	}
	const proposal = asked?.kind === "proposal";
	const state = useLoad(
		async () =>
			asked
				? {
						known: await connections.all(),
						vault: proposal ? await records.all() : ([] as VaultRecord[]),
					}
				: null,
		[text],
	);

	if (refused || !asked) {
		return (
			<>
				<div class="alert alert-error" role="alert">
					<p>{refused ? refusal(refused) : t("linkRequired")}</p>
				</div>
				<Button onClick={() => navigate("/connections")}>{t("back")}</Button>
			</>
		);
	}
	const found = asked;
	return (
		<LoadState state={state}>
			{(data) =>
				data ? (
					<ConsentForm
						asked={found}
						existing={data.known.find((c) => c.clientId === found.link.client && c.state === "connected")}
						vault={data.vault}
					/>
				) : null
			}
		</LoadState>
	);
}

/**
 * Carries out the consent: the permissions of a live connection changed, the connection made (or,
 * already connected, only an answer), a proposal's share created naming it. Returns the answer.
 */
async function carryOut(
	asked: Asked,
	existing: Connection | undefined,
	{ allowRevoke, allowHandOver }: { allowRevoke: boolean; allowHandOver: boolean },
	chosen: VaultRecord[],
): Promise<Record<string, string | undefined>> {
	const { client, challenge, redirect } = asked.link;
	const poll = asked.kind === "proposal" ? asked.link.poll : undefined;
	let connectionId = existing?.id;
	let answer: string | undefined;
	let mayHandOver = allowHandOver;
	if (existing && (existing.allowRevoke !== allowRevoke || existing.allowHandOver !== allowHandOver)) {
		mayHandOver = (await setPermissions(existing.id, { allowRevoke, allowHandOver })).allowHandOver;
	}
	if (client && challenge && redirect) {
		const common = { clientId: client, redirectUri: redirect, challenge, poll: poll !== undefined };
		// Already connected: no new connection, only an answer (name, permissions, expiry stay).
		const body = existing
			? { ...common, reuse: true }
			: { ...common, clientName: nameFor(asked), allowRevoke, allowHandOver };
		const { data } = await request<{ code: string; connectionId: string }>(
			"POST",
			"/api/connections/authorize",
			{ body },
		);
		connectionId = data.connectionId;
		answer = data.code;
	}
	if (asked.kind !== "proposal") return { status: "connected", code: answer };
	const p = asked.link;
	const handable = chosen.every((r) => !r.hidden && r.type !== "file");
	const created = await links.create({
		label: p.label,
		records: chosen.map((r) => r.id),
		...(p.days ? { expiresAt: new Date(Date.now() + p.days * 86_400_000).toISOString() } : {}),
		...(p.stamp ? { stamp: p.stamp } : {}),
		...(p.purpose ? { purpose: p.purpose } : {}),
		...(p.ref ? { ref: p.ref } : {}),
		...(connectionId ? { connection: connectionId, handedOver: mayHandOver && handable } : {}),
	});
	return { status: "created", code: answer, link: created.data.id };
}

function ConsentForm({
	asked,
	existing,
	vault,
}: {
	asked: Asked;
	existing: Connection | undefined;
	vault: VaultRecord[];
}) {
	const t = useT(messages);
	const link = asked.link;
	const client = link.client;
	const name = asked.kind === "connect" ? asked.link.name : asked.link.from;
	const [code, setCode] = useState("");
	const [allowRevoke, setAllowRevoke] = useState(existing?.allowRevoke ?? false);
	const [allowHandOver, setAllowHandOver] = useState(existing?.allowHandOver ?? false);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [done, setDone] = useState<string | null>(null);

	useEffect(() => {
		if (link.challenge) void checkCode(link.challenge).then(setCode);
	}, [link.challenge]);

	// A connection is made with the tool's challenge; without one, only a live connection is named.
	const canConnect = Boolean(client && link.challenge && link.redirect);
	const connects = canConnect || existing !== undefined;
	const poll = asked.kind === "proposal" ? asked.link.poll : undefined;
	const pollElsewhere = poll !== undefined && poll !== location.origin;
	const chosen =
		asked.kind === "proposal"
			? asked.link.keys.flatMap((k) => vault.filter((r) => r.key === k).slice(0, 1))
			: [];
	const missing =
		asked.kind === "proposal" ? asked.link.keys.filter((k) => !chosen.some((r) => r.key === k)) : [];
	const handable = chosen.every((r) => !r.hidden && r.type !== "file");
	const nothing = asked.kind === "proposal" && chosen.length === 0;

	function finish(params: Record<string, string | undefined>) {
		const declined = params.status === "declined";
		if (!link.redirect || poll !== undefined) {
			setDone(declined ? t("declined") : t("donePoll"));
			return;
		}
		setDone(declined ? t("declinedReturn") : t("doneReturn"));
		location.assign(answerAddress(link.redirect, { state: link.state, server: location.origin, ...params }));
	}

	async function approve() {
		setBusy(true);
		setError(null);
		try {
			const answer = await carryOut(asked, existing, { allowRevoke, allowHandOver }, chosen);
			announce(t("doneTitle"));
			finish(answer);
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	if (done) {
		return (
			<>
				<Notice tone="success">{done}</Notice>
				<Button onClick={() => navigate("/connections")}>{t("back")}</Button>
			</>
		);
	}

	return (
		<section class="consent" aria-labelledby="consent-title">
			<h2 id="consent-title">{asked.kind === "connect" ? t("consentConnect") : t("consentProposal")}</h2>
			<ConnectionFacts client={client} name={name} code={code} existing={existing} />
			{asked.kind === "proposal" ? (
				<ProposalFacts proposal={asked.link} chosen={chosen} missing={missing} />
			) : null}
			{connects ? (
				<fieldset class="fieldset consent-permissions">
					<legend>{t("permissionsNew")}</legend>
					{existing ? <p class="field-hint">{t("permissionsConnected")}</p> : null}
					<Checkbox
						label={t("allowRevoke")}
						hint={asked.kind === "proposal" ? reason(asked.link.revokeReason) : undefined}
						checked={allowRevoke}
						onChange={setAllowRevoke}
					/>
					<Checkbox
						label={t("allowHandOver")}
						hint={asked.kind === "proposal" ? reason(asked.link.linksReason) : undefined}
						checked={allowHandOver}
						onChange={setAllowHandOver}
					/>
				</fieldset>
			) : null}
			{asked.kind === "proposal" && !nothing ? (
				<p class="consent-outcome">
					{!connects
						? t("outcomeUnconnected")
						: !allowHandOver
							? t("outcomeStatus")
							: handable
								? t("outcomeHandOver")
								: t("notHandedOver")}
				</p>
			) : null}
			{nothing ? (
				<div class="alert alert-error" role="alert">
					<p>{t("nothing")}</p>
				</div>
			) : null}
			{pollElsewhere ? (
				<div class="alert alert-error" role="alert">
					<p>{t("pollElsewhere", { poll })}</p>
				</div>
			) : null}
			<ErrorAlert error={error} />
			<div class="form-actions">
				<Button onClick={() => finish({ status: "declined" })}>{t("decline")}</Button>
				<Button
					variant="primary"
					busy={busy}
					disabled={pollElsewhere || nothing}
					onClick={() => void approve()}
				>
					{asked.kind === "connect" ? t("approve") : t("approveProposal")}
				</Button>
			</div>
		</section>
	);

	function reason(text: string | undefined): string | undefined {
		return text ? t("toolReason", { reason: text }) : undefined;
	}
}
