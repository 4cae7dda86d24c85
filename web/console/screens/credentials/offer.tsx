// Accepting an attestation offer (`svc://a/<host>/<token>`): the offer as its server shows it (who
// attests, which type, which claims, until when), one of the workspace's identities whose key this
// browser holds, the offer server's challenge signed with that key, and the claim through
// `POST /api/credentials/claim`. This server asks the offer's server for the view and the challenge
// (`GET /api/credentials/offer`, `…/offer/challenge`): the page may call its own server only.
import { useState } from "preact/hooks";
import { AppLinkError, type OfferLink, parseOfferLink } from "../../../../src/lib/app-links.ts";
import { ApiError, request } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { announce, Button, DateTime, ErrorAlert, LoadState, Notice, useLoad } from "../../ui/index.ts";
import { shortFingerprint } from "../identities/keys.ts";
import { heldFingerprints } from "../identities/keystore.ts";
import { signChallenge } from "../identities/prove.ts";
import { type Identity, identities } from "../identities/types.ts";
import { RadioGroup } from "../requests/radio-group.tsx";
import { messages } from "./messages.ts";
import { Refused } from "./open-link.tsx";
import { type HeldCredential, type OfferView, shown } from "./types.ts";

/** The claim's `origin`: left out for this server's own offer, else the offer server's address. */
function originOf(link: OfferLink, ownDomain: string): string | undefined {
	return link.host === ownDomain ? undefined : `https://${link.host}`;
}

async function load(link: OfferLink) {
	const { data: server } = await request<{ domain: string }>("GET", "/api/server", { auth: false });
	const origin = originOf(link, server.domain);
	const [offer, all, held] = await Promise.all([
		request<OfferView>("GET", "/api/credentials/offer", { query: { origin, token: link.token } }).then(
			(r) => r.data,
		),
		identities.all({ sort: "-created" }),
		heldFingerprints().catch(() => new Set<string>()),
	]);
	const mine = all.filter((i) => i.status === "active" && held.has(i.fingerprint));
	return { origin, offer, mine };
}

export function AcceptOffer({ text }: { text: string }) {
	let link: OfferLink | null = null;
	let refused: AppLinkError | null = null;
	try {
		link = parseOfferLink(text.trim());
	} catch (err) {
		if (!(err instanceof AppLinkError)) throw err;
		refused = err;
	}
	const t = useT(messages);
	const state = useLoad(async () => (link ? load(link) : null), [text]);
	if (!link) return <Refused error={refused} />;
	const found = link;
	// The offer's server refused to show it (expired, withdrawn, accepted by another, unknown,
	// unreachable): the refusal, what to do next, and the way back.
	if (state.error instanceof ApiError && state.data === undefined) {
		return (
			<>
				<ErrorAlert error={state.error} />
				<NextStep code={state.error.code} domain={found.host} />
				<Button onClick={() => navigate("/credentials")}>{t("back")}</Button>
			</>
		);
	}
	return (
		<LoadState state={state}>{(data) => (data ? <OfferForm link={found} {...data} /> : null)}</LoadState>
	);
}

function OfferForm({
	link,
	origin,
	offer,
	mine,
}: {
	link: OfferLink;
	origin: string | undefined;
	offer: OfferView;
	mine: Identity[];
}) {
	const t = useT(messages);
	const meant = offer.subjectFingerprint;
	const choices = meant ? mine.filter((i) => i.fingerprint === meant) : mine;
	const [identityId, setIdentityId] = useState(choices[0]?.id ?? "");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [done, setDone] = useState<{ said: string; tone: "success" | "info" } | null>(null);
	const domain = offer.server.domain;

	async function accept() {
		setBusy(true);
		setError(null);
		try {
			const { data } = await request<{ nonce: string }>("GET", "/api/credentials/offer/challenge", {
				query: { origin, token: link.token, identityId },
			});
			const challengeSignature = await signChallenge(identityId, data.nonce);
			const { data: kept } = await request<HeldCredential>("POST", "/api/credentials/claim", {
				body: {
					...(origin ? { origin } : {}),
					token: link.token,
					identityId,
					challengeNonce: data.nonce,
					challengeSignature,
				},
			});
			const said = t("accepted", { type: kept.type, issuer: kept.issuer });
			announce(said);
			setDone({ said, tone: "success" });
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

	const claims = Object.entries(offer.claims ?? {});
	return (
		<section class="consent" aria-labelledby="offer-title">
			<h2 id="offer-title">{offer.label || offer.type}</h2>
			<dl class="consent-facts">
				<dt>{t("offerFrom")}</dt>
				<dd>{t("offerFromValue", { domain, workspace: offer.workspace.name })}</dd>
				<dt>{t("offerType")}</dt>
				<dd>
					<code>{offer.type}</code>
				</dd>
				<dt>{t("offerClaims")}</dt>
				<dd>
					{claims.length > 0 ? (
						<ul class="list-plain credential-claims">
							{claims.map(([name, value]) => (
								<li key={name}>
									<span class="claim-name">{name}</span>: {shown(value, t("yes"), t("no"))}
								</li>
							))}
						</ul>
					) : (
						t("offerNoClaims")
					)}
				</dd>
				<dt>{t("offerValid")}</dt>
				<dd>{offer.expiresAt ? <DateTime value={offer.expiresAt} /> : t("noEnd")}</dd>
				<dt>{t("offerStands")}</dt>
				<dd>
					<DateTime value={offer.offerExpiresAt} />
				</dd>
			</dl>
			{choices.length === 0 ? (
				<div class="alert alert-error" role="alert">
					<p>{meant ? t("offerForOther", { fingerprint: shortFingerprint(meant) }) : t("noKeys")}</p>
					{meant ? null : <Link href="/identities">{t("toIdentities")}</Link>}
				</div>
			) : (
				<>
					<RadioGroup
						legend={t("identity")}
						value={identityId}
						options={choices.map((i) => ({
							value: i.id,
							label: `${i.name} (${shortFingerprint(i.fingerprint)})`,
						}))}
						onChange={setIdentityId}
					/>
					<p class="field-hint">{t("identityHint")}</p>
				</>
			)}
			<ErrorAlert error={error} />
			{error instanceof ApiError ? <NextStep code={error.code} domain={domain} /> : null}
			<div class="form-actions">
				<Button
					onClick={() => {
						announce(t("declinedOffer"));
						setDone({ said: t("declinedOffer"), tone: "info" });
					}}
				>
					{t("decline")}
				</Button>
				<Button variant="primary" busy={busy} disabled={choices.length === 0} onClick={() => void accept()}>
					{t("accept")}
				</Button>
			</div>
		</section>
	);
}

/** What to do after the offer's server said no. */
function NextStep({ code, domain }: { code: string; domain: string }) {
	const t = useT(messages);
	const next: Record<string, string> = {
		attestation_offer_expired: t("expiredNext", { domain }),
		attestation_offer_claimed: t("claimedNext", { domain }),
		attestation_offer_revoked: t("revokedNext", { domain }),
		attestation_identity_mismatch: t("mismatchNext", { domain }),
		remote_unreachable: t("unreachableNext"),
		network: t("unreachableNext"),
		not_found: t("notFoundNext"),
		credential_invalid: t("invalidNext", { domain }),
	};
	const said = next[code];
	return said ? <p class="next-step">{said}</p> : null;
}
