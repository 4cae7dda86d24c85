// Presenting a held credential to a service (`svc://present?…`, spec "App links"): the link is
// read whole (a malformed one is refused, naming the part, and nothing is sent); the service's
// origin and what it asks are shown; the held credentials that match `type` and `issuers` are
// offered; the requested `claims` start ticked and the person may untick any. The presentation is
// built here with the identity key this browser holds (key binding for audience `client_id` and the
// link's nonce) and this server posts `{presentation, state}` to `response_uri`
// (`POST /api/credentials/{id}/present`); a returned `redirect_uri` is followed only on the
// service's origin. Declined, nothing is sent.
import { useState } from "preact/hooks";
import { AppLinkError, type PresentRequest, parsePresentLink } from "../../../../src/lib/app-links.ts";
import { request } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { navigate } from "../../router.ts";
import {
	announce,
	Button,
	Checkbox,
	ErrorAlert,
	Fieldset,
	LoadState,
	Notice,
	useLoad,
} from "../../ui/index.ts";
import { heldFingerprints } from "../identities/keystore.ts";
import { identities } from "../identities/types.ts";
import { RadioGroup } from "../requests/radio-group.tsx";
import { messages } from "./messages.ts";
import { Refused } from "./open-link.tsx";
import { buildPresentation } from "./presentation.ts";
import { credentials, type HeldCredential, shown } from "./types.ts";

/** The held credentials that answer the request: its type and attesters (either left out: any), not expired. */
export function matching(req: PresentRequest, held: HeldCredential[], now = Date.now()): HeldCredential[] {
	return held.filter(
		(c) =>
			(req.type === undefined || c.type === req.type) &&
			(req.issuers === undefined || req.issuers.includes(c.issuer)) &&
			(c.expiresAt === null || Date.parse(c.expiresAt) > now),
	);
}

async function load(req: PresentRequest) {
	const [held, all, keys] = await Promise.all([
		credentials.all({ sort: "-issuedAt" }),
		identities.all(),
		heldFingerprints().catch(() => new Set<string>()),
	]);
	// Identities (of this workspace) whose key this browser holds: only their credentials can be shown.
	const signable = new Set(all.filter((i) => keys.has(i.fingerprint)).map((i) => i.id));
	return { fits: matching(req, held), signable };
}

export function Present({ text }: { text: string }) {
	let req: PresentRequest | null = null;
	let refused: AppLinkError | null = null;
	try {
		req = parsePresentLink(text.trim(), { allowLoopback: location.hostname === "localhost" });
	} catch (err) {
		if (!(err instanceof AppLinkError)) throw err;
		refused = err;
	}
	const state = useLoad(async () => (req ? load(req) : null), [text]);
	if (!req) return <Refused error={refused} />;
	const found = req;
	return (
		<LoadState state={state}>{(data) => (data ? <PresentForm req={found} {...data} /> : null)}</LoadState>
	);
}

function PresentForm({
	req,
	fits,
	signable,
}: {
	req: PresentRequest;
	fits: HeldCredential[];
	signable: Set<string>;
}) {
	const t = useT(messages);
	const [chosenId, setChosenId] = useState(fits[0]?.id ?? "");
	const [withheld, setWithheld] = useState<Set<string>>(new Set());
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [refusedBy, setRefusedBy] = useState<number | null>(null);
	const [done, setDone] = useState<{ said: string; tone: "success" | "info" } | null>(null);
	const chosen = fits.find((c) => c.id === chosenId);
	const asked = req.claims.filter((c) => chosen && c in chosen.claims);
	const missing = req.claims.filter((c) => chosen && !(c in chosen.claims));
	const hidden = chosen ? Object.keys(chosen.claims).filter((c) => !req.claims.includes(c)) : [];
	const disclosed = asked.filter((c) => !withheld.has(c));
	const canSign = chosen !== undefined && signable.has(chosen.identity);
	const askedFor = [
		req.type ? t("asksType", { type: req.type }) : t("asksAny"),
		req.issuers ? t("asksIssuers", { issuers: req.issuers.join(", ") }) : "",
	]
		.filter(Boolean)
		.join(" ");

	function tick(name: string, on: boolean) {
		const next = new Set(withheld);
		if (on) next.delete(name);
		else next.add(name);
		setWithheld(next);
	}

	function decline() {
		// Nothing is sent: not the service, not this server.
		announce(t("declinedPresent"));
		setDone({ said: t("declinedPresent"), tone: "info" });
	}

	async function present() {
		if (!chosen) return;
		setBusy(true);
		setError(null);
		setRefusedBy(null);
		try {
			const presentation = await buildPresentation(chosen.credential, {
				identityId: chosen.identity,
				claims: disclosed,
				audience: req.clientId,
				nonce: req.nonce,
			});
			const { data } = await request<{ status: number; redirectUri: string | null }>(
				"POST",
				`/api/credentials/${encodeURIComponent(chosen.id)}/present`,
				{
					body: {
						clientId: req.clientId,
						responseUri: req.responseUri,
						presentation,
						state: req.state ?? "",
					},
				},
			);
			if (data.status >= 400) {
				setRefusedBy(data.status);
				return;
			}
			const said =
				disclosed.length > 0
					? t("presented", { service: req.clientId, count: String(disclosed.length) })
					: t("presentedNone", { service: req.clientId });
			announce(said);
			// Followed only on the service's own origin (the server checked it too).
			const back =
				data.redirectUri && new URL(data.redirectUri).origin === req.clientId ? data.redirectUri : null;
			setDone({ said: back ? `${said} ${t("returning")}` : said, tone: "success" });
			if (back) location.assign(back);
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	if (done) {
		return (
			<>
				<Notice tone={done.tone}>
					<p>{done.said}</p>
				</Notice>
				<Button onClick={() => navigate("/credentials")}>{t("back")}</Button>
			</>
		);
	}

	return (
		<section class="consent" aria-labelledby="present-title">
			<h2 id="present-title">{t("asksTitle", { service: new URL(req.clientId).host })}</h2>
			<dl class="consent-facts">
				<dt>{t("service")}</dt>
				<dd>
					<code>{req.clientId}</code>
					<p class="field-hint">{t("serviceHint")}</p>
				</dd>
				<dt>{t("asks")}</dt>
				<dd>{askedFor}</dd>
				<dt>{t("sentTo")}</dt>
				<dd>
					<code>{req.responseUri}</code>
				</dd>
			</dl>
			{fits.length === 0 ? (
				<div class="alert alert-error" role="alert">
					<p>{t("noMatch", { asked: askedFor })}</p>
				</div>
			) : (
				<>
					{fits.length > 1 ? (
						<RadioGroup
							legend={t("choose")}
							value={chosenId}
							options={fits.map((c) => ({
								value: c.id,
								label: t("chooseOption", {
									type: c.type,
									issuer: c.issuer,
									issued: new Date(c.issuedAt).toLocaleDateString(document.documentElement.lang || undefined),
								}),
							}))}
							onChange={(id) => {
								setChosenId(id);
								setWithheld(new Set());
							}}
						/>
					) : (
						<p class="present-chosen">
							{t("chooseOption", {
								type: chosen?.type ?? "",
								issuer: chosen?.issuer ?? "",
								issued: chosen
									? new Date(chosen.issuedAt).toLocaleDateString(document.documentElement.lang || undefined)
									: "",
							})}
						</p>
					)}
					{asked.length > 0 && chosen ? (
						<Fieldset legend={t("claimsLegend")}>
							<p class="field-hint">{t("claimsHint")}</p>
							{asked.map((name) => (
								<Checkbox
									key={`${chosen.id}-${name}`}
									label={`${name}: ${shown(chosen.claims[name], t("yes"), t("no"))}`}
									checked={!withheld.has(name)}
									onChange={(on) => tick(name, on)}
								/>
							))}
						</Fieldset>
					) : (
						<p>{t("claimNone")}</p>
					)}
					{missing.length > 0 ? (
						<p class="field-hint">{t("missing", { names: missing.join(", ") })}</p>
					) : null}
					{hidden.length > 0 ? <p class="field-hint">{t("hidden", { names: hidden.join(", ") })}</p> : null}
					{canSign ? null : (
						<div class="alert alert-error" role="alert">
							<p>{t("noKey")}</p>
						</div>
					)}
				</>
			)}
			<ErrorAlert error={error} />
			{refusedBy !== null ? (
				<div class="alert alert-error" role="alert">
					<p>{t("serviceRefused", { status: String(refusedBy) })}</p>
				</div>
			) : null}
			<div class="form-actions">
				<Button onClick={decline}>{t("decline")}</Button>
				<Button variant="primary" busy={busy} disabled={!canSign} onClick={() => void present()}>
					{t("present")}
				</Button>
			</div>
		</section>
	);
}
