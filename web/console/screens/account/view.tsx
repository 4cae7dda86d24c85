// The signed-in account, which notifications it wants (notices.tsx), and its deletion: a confirming dialog, then the passkey ceremony; on
// success the console leaves for the front page. A refusal because the account is the last owner of
// shared workspaces names them, each with a way to its members (to hand it over).
import { useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { loadMe } from "../../auth/passkey.ts";
import { passkeyErrorText } from "../../auth/passkey-error.ts";
import { useLocale, useT } from "../../i18n/index.ts";
import { navigate } from "../../router.ts";
import { activeWorkspace, me } from "../../session.ts";
import { useObservable } from "../../state.ts";
import { Button, ConfirmDialog, DateTime, Page } from "../../ui/index.ts";
import { deleteAccount } from "./deletion.ts";
import { messages } from "./messages.ts";
import { NoticeSettings } from "./notices.tsx";

interface Named {
	id: string;
	name: string;
}

/** The workspaces a 409 `account_last_owner` names. */
function stuckIn(err: unknown): Named[] | null {
	if (!(err instanceof ApiError && err.code === "account_last_owner")) return null;
	const listed = err.problem.workspaces;
	return Array.isArray(listed)
		? listed.filter((w): w is Named => typeof w?.id === "string" && typeof w?.name === "string")
		: [];
}

function LastOwner({ workspaces }: { workspaces: Named[] }) {
	const t = useT(messages);
	async function open(id: string) {
		activeWorkspace.set(id);
		await loadMe();
		navigate("/members");
	}
	return (
		<div class="alert alert-error" role="alert">
			<p>{t("lastOwner")}</p>
			<ul>
				{workspaces.map((w) => (
					<li key={w.id}>
						<Button variant="link" onClick={() => void open(w.id)}>
							{t("openMembers", { name: w.name })}
						</Button>
					</li>
				))}
			</ul>
		</div>
	);
}

export default function AccountScreen() {
	const t = useT(messages);
	const lang = useLocale();
	const account = useObservable(me)?.record;
	const [confirming, setConfirming] = useState(false);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);

	async function remove() {
		setBusy(true);
		setError(null);
		try {
			await deleteAccount();
			// The front page, outside the console: nothing of the account is left to show.
			window.location.assign("/");
		} catch (err) {
			setError(err);
			setBusy(false);
			setConfirming(false);
		}
	}

	const stuck = stuckIn(error);
	return (
		<Page title={t("nav")}>
			{account ? (
				<dl class="facts">
					<dt>{t("name")}</dt>
					<dd>{account.name}</dd>
					<dt>{t("email")}</dt>
					<dd>{account.email}</dd>
					<dt>{t("created")}</dt>
					<dd>
						<DateTime value={account.created} />
					</dd>
				</dl>
			) : null}
			<NoticeSettings />
			<section class="account-delete" aria-labelledby="account-delete-title">
				<h2 id="account-delete-title">{t("deleteTitle")}</h2>
				<p>{t("deleteIntro")}</p>
				<ul>
					<li>{t("deletePersonal")}</li>
					<li>{t("deleteShared")}</li>
					<li>{t("deleteAccess")}</li>
				</ul>
				<p>{t("deleteOwners")}</p>
				<Button variant="danger" busy={busy} onClick={() => setConfirming(true)}>
					{t("deleteButton")}
				</Button>
				<p role="status" class="status-line">
					{busy ? t("waiting") : ""}
				</p>
				{stuck ? (
					<LastOwner workspaces={stuck} />
				) : error ? (
					<div class="alert alert-error" role="alert">
						<p>{passkeyErrorText(error, lang)}</p>
					</div>
				) : null}
			</section>
			<ConfirmDialog
				open={confirming}
				title={t("confirmTitle")}
				message={t("confirmText")}
				confirmLabel={t("confirmButton")}
				busy={busy}
				onConfirm={() => void remove()}
				onClose={() => setConfirming(false)}
			/>
		</Page>
	);
}
