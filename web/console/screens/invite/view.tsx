// /invite#<token>: the invitation's preview (POST /api/invitations/preview, no sign-in), then, signed
// in, joining (POST /api/invitations/accept); signed out, a passkey sign-up for the invitation's
// email (register/begin {invitation}) or a sign-in here, after which the same page offers to join.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApiError, request } from "../../api.ts";
import { loadMe, register, signIn } from "../../auth/passkey.ts";
import { passkeyErrorText } from "../../auth/passkey-error.ts";
import { useLocale, useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { activeWorkspace, me } from "../../session.ts";
import { useObservable } from "../../state.ts";
import {
	announce,
	Button,
	DateTime,
	ErrorAlert,
	LoadState,
	Notice,
	Page,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { RoleSummary } from "../members/roles.tsx";
import { messages } from "./messages.ts";

interface Preview {
	workspace: { id: string; name: string };
	email: string;
	role: "owner" | "admin" | "member" | "viewer";
	invitedBy: string | null;
	expiresAt: string;
}

/** The token rides in the fragment, so no server log keeps it (docs/api.md "Members and invitations"). */
function tokenFromHash(): string | null {
	const value = window.location.hash.slice(1);
	return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
}

function useHashToken(): string | null {
	const [token, setToken] = useState(tokenFromHash);
	useEffect(() => {
		const changed = () => setToken(tokenFromHash());
		window.addEventListener("hashchange", changed);
		return () => window.removeEventListener("hashchange", changed);
	}, []);
	return token;
}

/** Opens the workspace: it becomes the active one and the console goes to its first screen. */
async function enter(workspace: string): Promise<void> {
	activeWorkspace.set(workspace);
	await loadMe();
	navigate("/", { replace: true });
}

/** Set by a sign-in on this page: the signed-in view that replaces it takes the focus to "Join". */
let signedInHere = false;

function Refused({ children }: { children: ComponentChildren }) {
	const t = useT(messages);
	const signedIn = Boolean(useObservable(me));
	return (
		<>
			{children}
			<p>{signedIn ? <Link href="/">{t("home")}</Link> : <Link href="/signin">{t("signInLink")}</Link>}</p>
		</>
	);
}

function Facts({ preview }: { preview: Preview }) {
	const t = useT(messages);
	return (
		<dl class="facts">
			<dt>{t("workspace")}</dt>
			<dd>{preview.workspace.name}</dd>
			<dt>{t("role")}</dt>
			<dd>
				{t(`role_${preview.role}`)}
				<RoleSummary role={preview.role} />
			</dd>
			{preview.invitedBy ? (
				<>
					<dt>{t("invitedBy")}</dt>
					<dd>{preview.invitedBy}</dd>
				</>
			) : null}
			<dt>{t("sentTo")}</dt>
			<dd>{preview.email}</dd>
			<dt>{t("expires")}</dt>
			<dd>
				<DateTime value={preview.expiresAt} />
			</dd>
		</dl>
	);
}

function Join({ token, preview }: { token: string; preview: Preview }) {
	const t = useT(messages);
	const account = useObservable(me);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const workspace = preview.workspace.name;
	useEffect(() => {
		if (!signedInHere) return;
		signedInHere = false;
		document.getElementById("invite-join")?.focus();
	}, []);
	if (!account) return null;

	if (account.workspaces.some((w) => w.id === preview.workspace.id)) {
		return (
			<>
				<Notice>
					<p>{t("alreadyMember", { workspace })}</p>
				</Notice>
				<p>
					<Button variant="primary" onClick={() => void enter(preview.workspace.id)}>
						{t("openWorkspace", { workspace })}
					</Button>
				</p>
			</>
		);
	}

	async function join() {
		setBusy(true);
		setError(null);
		try {
			const { data } = await request<{ workspace: string }>("POST", "/api/invitations/accept", {
				body: { token },
			});
			announce(t("joined", { workspace }));
			await enter(data.workspace);
		} catch (err) {
			setBusy(false);
			// Joined meanwhile (another tab): the account's workspaces now say so.
			if (err instanceof ApiError && err.code === "member_exists") await loadMe().catch(() => undefined);
			else setError(err);
		}
	}

	return (
		<>
			{account.record.email !== preview.email ? (
				<p>{t("otherEmail", { account: account.record.email })}</p>
			) : null}
			<p>
				<Button variant="primary" busy={busy} onClick={() => void join()} id="invite-join">
					{t("join", { workspace })}
				</Button>
			</p>
			<ErrorAlert error={error} />
		</>
	);
}

function SignUpOrIn({ token, preview }: { token: string; preview: Preview }) {
	const t = useT(messages);
	const lang = useLocale();
	const [name, setName] = useState("");
	const [busy, setBusy] = useState<"up" | "in" | null>(null);
	const [error, setError] = useState<string | null>(null);
	const workspace = preview.workspace.name;

	async function run(kind: "up" | "in", ceremony: () => Promise<unknown>) {
		setBusy(kind);
		setError(null);
		try {
			await ceremony();
		} catch (err) {
			setError(
				err instanceof ApiError && err.code === "passkey_email_taken"
					? t("emailTaken", { email: preview.email })
					: passkeyErrorText(err, lang),
			);
			setBusy(null);
		}
	}

	const signUp = (event: Event) => {
		event.preventDefault();
		void run("up", async () => {
			await register({ invitation: token, ...(name.trim() ? { name: name.trim() } : {}), signIn: true });
			announce(t("joined", { workspace }));
			await enter(preview.workspace.id);
		});
	};
	// Signed in, the page shows "Join" in place of these choices.
	const signInHere = () =>
		void run("in", async () => {
			await signIn();
			signedInHere = true;
			await loadMe();
		});

	return (
		<>
			<section class="invite-choice" aria-labelledby="invite-new">
				<h2 id="invite-new">{t("newHere")}</h2>
				<p>{t("signUpText", { email: preview.email, workspace })}</p>
				<form onSubmit={signUp} noValidate>
					<TextField
						label={t("nameLabel")}
						autocomplete="name"
						maxLength={200}
						value={name}
						onInput={setName}
					/>
					<Button type="submit" variant="primary" busy={busy === "up"} disabled={busy === "in"}>
						{t("signUp")}
					</Button>
				</form>
			</section>
			<section class="invite-choice" aria-labelledby="invite-have">
				<h2 id="invite-have">{t("haveAccount")}</h2>
				<p>{t("signInText")}</p>
				<Button busy={busy === "in"} disabled={busy === "up"} onClick={signInHere}>
					{t("signIn")}
				</Button>
			</section>
			<p role="status" class="status-line">
				{busy ? t("waiting") : ""}
			</p>
			{error ? (
				<div class="alert alert-error" role="alert">
					<p>{error}</p>
				</div>
			) : null}
		</>
	);
}

export default function InviteScreen() {
	const t = useT(messages);
	const token = useHashToken();
	const signedIn = Boolean(useObservable(me));
	const state = useLoad(
		async () =>
			token
				? (await request<Preview>("POST", "/api/invitations/preview", { auth: false, body: { token } })).data
				: null,
		[token],
	);
	// A refusal is final (404 unknown, 410 revoked, used or expired): no "try again" for it.
	const refused =
		state.error instanceof ApiError && (state.error.status === 404 || state.error.status === 410);

	return (
		<Page title={!token || refused ? t("refusedTitle") : t("nav")}>
			{!token ? (
				<Refused>
					<div class="alert alert-error" role="alert">
						<p>{t("noToken")}</p>
					</div>
				</Refused>
			) : refused ? (
				<Refused>
					<ErrorAlert error={state.error} />
				</Refused>
			) : (
				<LoadState state={state}>
					{(preview) =>
						preview ? (
							<>
								<p class="intro">
									{preview.invitedBy
										? t("intro", { inviter: preview.invitedBy, workspace: preview.workspace.name })
										: t("introNoInviter", { workspace: preview.workspace.name })}
								</p>
								<Facts preview={preview} />
								{signedIn ? (
									<Join token={token} preview={preview} />
								) : (
									<SignUpOrIn token={token} preview={preview} />
								)}
							</>
						) : null
					}
				</LoadState>
			)}
		</Page>
	);
}
