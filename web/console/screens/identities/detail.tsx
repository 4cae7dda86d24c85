// One identity: its fingerprint in full, whether this browser holds its key, its published
// standing (the signed answer verifiers get), its certificate, signing a challenge with it, and
// revoking it (after a confirm; the key leaves this browser too).
import { useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link } from "../../router.ts";
import { hasScope } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	CopyField,
	DateTime,
	ErrorAlert,
	LoadState,
	Page,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { CertificateView } from "./cert-view.tsx";
import { keyByFingerprint, removeKey } from "./keystore.ts";
import { messages } from "./messages.ts";
import { signChallenge } from "./prove.ts";
import { readStanding } from "./standing.ts";
import { type Identity, identities, revokeIdentity } from "./types.ts";

function Standing({ identity }: { identity: Identity }) {
	const t = useT(messages);
	const state = useLoad(() => readStanding(identity.fingerprint), [identity.fingerprint, identity.status]);
	return (
		<section class="identity-section" aria-labelledby="identity-standing-heading">
			<h2 id="identity-standing-heading">{t("standingHeading")}</h2>
			<p>{t("standingText")}</p>
			<LoadState state={state}>
				{(s) => (
					<dl class="identity-facts">
						<dt>{t("standing")}</dt>
						<dd class="identity-standing">
							<span class={`badge badge-${s.status}`}>{t(`standing_${s.status}`)}</span>
						</dd>
						<dt>{t("standingSigned")}</dt>
						<dd>
							<DateTime value={s.issued} />
						</dd>
						<dt>{t("standingUntil")}</dt>
						<dd>
							<DateTime value={s.expires} />
						</dd>
					</dl>
				)}
			</LoadState>
			<p>
				<Button onClick={state.reload} busy={state.loading}>
					{t("checkAgain")}
				</Button>
			</p>
		</section>
	);
}

function SignChallenge({ identity }: { identity: Identity }) {
	const t = useT(messages);
	const [nonce, setNonce] = useState("");
	const [problem, setProblem] = useState<string | null>(null);
	const [signature, setSignature] = useState<string | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);

	async function sign(event: Event) {
		event.preventDefault();
		const value = nonce.trim();
		setProblem(value ? null : t("nonceRequired"));
		setSignature(null);
		setError(null);
		if (!value) return;
		setBusy(true);
		try {
			setSignature(await signChallenge(identity.id, value));
			announce(t("signed"));
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<section class="identity-section" aria-labelledby="identity-sign-heading">
			<h2 id="identity-sign-heading">{t("signHeading")}</h2>
			<p>{t("signText")}</p>
			<form class="identity-sign" onSubmit={(e) => void sign(e)} noValidate>
				<TextField
					label={t("nonce")}
					value={nonce}
					onInput={setNonce}
					error={problem}
					autocomplete="off"
					spellcheck={false}
				/>
				<div class="form-actions">
					<Button type="submit" busy={busy}>
						{t("sign")}
					</Button>
				</div>
			</form>
			<ErrorAlert error={error} />
			{signature ? <CopyField label={t("signature")} value={signature} /> : null}
		</section>
	);
}

function Loaded({ identity, reload }: { identity: Identity; reload: () => void }) {
	const t = useT(messages);
	const held = useLoad(
		() => keyByFingerprint(identity.fingerprint).catch(() => undefined),
		[identity.fingerprint],
	);
	const [revoking, setRevoking] = useState(false);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const active = identity.status === "active";
	const holds = held.data !== undefined;

	async function revoke() {
		setBusy(true);
		setError(null);
		try {
			await revokeIdentity(identity);
			announce(t("revoked"));
			document.querySelector<HTMLElement>("main h1")?.focus();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
			setRevoking(false);
			held.reload();
			reload();
		}
	}

	async function forget() {
		setError(null);
		try {
			await removeKey(identity.fingerprint);
			announce(t("keyRemoved"));
		} catch (err) {
			setError(err);
		}
		held.reload();
	}

	const keyText = active ? (holds ? "heldYes" : "heldNo") : holds ? "heldRevokedStill" : "heldRevoked";

	return (
		<Page
			title={identity.name}
			actions={
				active && hasScope("identity:write") ? (
					<Button variant="danger" onClick={() => setRevoking(true)}>
						{t("revoke")}
					</Button>
				) : undefined
			}
		>
			<p>
				<Link href="/identities">{t("backToList")}</Link>
			</p>
			<ErrorAlert error={error} />
			<section class="identity-section identity-first" aria-labelledby="identity-key-heading">
				<h2 id="identity-key-heading">{t("keyHeading")}</h2>
				<CopyField label={t("fingerprintFull")} value={identity.fingerprint} />
				<dl class="identity-facts">
					<dt>{t("device")}</dt>
					<dd class="identity-held">{held.loading ? "…" : t(keyText)}</dd>
					<dt>{t("created")}</dt>
					<dd>
						<DateTime value={identity.created} />
					</dd>
					{identity.revokedAt ? (
						<>
							<dt>{t("revokedAt")}</dt>
							<dd>
								<DateTime value={identity.revokedAt} />
							</dd>
						</>
					) : null}
					<dt>{t("domain")}</dt>
					<dd>{identity.domainAtIssue}</dd>
				</dl>
				{!active && holds ? (
					<p>
						<Button onClick={() => void forget()}>{t("removeKey")}</Button>
					</p>
				) : null}
			</section>
			<Standing identity={identity} />
			<section class="identity-section" aria-labelledby="identity-cert-heading">
				<h2 id="identity-cert-heading">{t("certificateHeading")}</h2>
				<p>{t("certificateText")}</p>
				<CertificateView identity={identity} />
			</section>
			{active && holds ? <SignChallenge identity={identity} /> : null}
			<ConfirmDialog
				open={revoking}
				title={t("revokeTitle")}
				message={t("revokeText", { name: identity.name })}
				confirmLabel={t("revoke")}
				busy={busy}
				onConfirm={() => void revoke()}
				onClose={() => setRevoking(false)}
			/>
		</Page>
	);
}

export function IdentityDetail({ id }: { id: string }) {
	const t = useT(messages);
	const state = useLoad(() => identities.view(id), [id]);
	if (state.error instanceof ApiError && state.error.status === 404) {
		return (
			<Page title={t("notFound")}>
				<p>{t("notFoundText")}</p>
				<p>
					<Link href="/identities">{t("backToList")}</Link>
				</p>
			</Page>
		);
	}
	return (
		<LoadState state={state}>{(identity) => <Loaded identity={identity} reload={state.reload} />}</LoadState>
	);
}
