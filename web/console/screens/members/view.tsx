// Members of the active workspace: roles (changed within your own), invitations (the one-time link
// shown once), withdraw an invitation, remove a member, hand ownership over, leave.
import { useState } from "preact/hooks";
import { collection, request } from "../../api.ts";
import { loadMe } from "../../auth/passkey.ts";
import { useT } from "../../i18n/index.ts";
import { navigate } from "../../router.ts";
import { activeWorkspace, hasScope, me } from "../../session.ts";
import {
	announce,
	Button,
	ConfirmDialog,
	CopyField,
	DataTable,
	DateTime,
	Dialog,
	ErrorAlert,
	LoadState,
	Page,
	SelectField,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";

type Role = "owner" | "admin" | "member";
interface Member {
	id: string;
	account: string;
	email: string;
	name: string;
	role: Role;
	owner: boolean;
	created: string;
}
interface Invitation {
	id: string;
	email: string;
	role: Role;
	status: "open" | "expired";
	expiresAt: string;
}

const members = collection<Member>("members");
const invitations = collection<Invitation>("invitations");
const RANK: Record<Role, number> = { member: 1, admin: 2, owner: 3 };
type Pending =
	| { kind: "remove"; member: Member }
	| { kind: "handOver"; member: Member }
	| { kind: "revoke"; invitation: Invitation }
	| { kind: "leave" };

export default function MembersScreen() {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const state = useLoad(async () => {
		const [list, open] = await Promise.all([
			members.all({ sort: "created" }),
			invitations.all({ sort: "-created" }),
		]);
		return { list, open };
	});
	const canWrite = hasScope("member:write");
	const session = me.get();
	const myId = session?.record.id ?? "";
	const workspace = session?.workspaces.find((w) => w.id === session.workspace);
	const myRole: Role = workspace?.role ?? "member";
	const roleLabel = (r: Role) => t(`role_${r}`);
	const grantable = (["member", "admin", "owner"] as Role[]).filter((r) => RANK[r] <= RANK[myRole]);

	const [inviting, setInviting] = useState(false);
	const [email, setEmail] = useState("");
	const [role, setRole] = useState<Role>("member");
	const [emailError, setEmailError] = useState<string | null>(null);
	const [link, setLink] = useState<{ url: string; email: string } | null>(null);
	const [pending, setPending] = useState<Pending | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);

	async function run(action: () => Promise<unknown>, done: string) {
		setBusy(true);
		setError(null);
		try {
			await action();
			announce(done);
			state.reload();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
			setPending(null);
		}
	}

	async function invite(event: Event) {
		event.preventDefault();
		if (!email.trim()) return setEmailError(t("emailRequired"));
		setEmailError(null);
		setBusy(true);
		setError(null);
		try {
			const res = await invitations.create({ email: email.trim(), role });
			setLink({ url: res.headers.get("x-invitation-url") ?? "", email: email.trim() });
			setInviting(false);
			setEmail("");
			state.reload();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	async function confirm(p: Pending) {
		if (p.kind === "remove") return run(() => members.remove(p.member.id), t("removed"));
		if (p.kind === "revoke") return run(() => invitations.remove(p.invitation.id), t("revoked"));
		if (p.kind === "handOver")
			return run(async () => {
				await request("POST", `/api/members/${p.member.id}/hand-over`);
				await loadMe();
			}, t("handedOver"));
		return run(async () => {
			await request("POST", `/api/workspaces/${session?.workspace ?? ""}/leave`);
			activeWorkspace.set(null);
			await loadMe();
			navigate("/");
		}, t("left"));
	}

	const confirmText = (p: Pending | null) => {
		if (!p) return { title: "", message: "", label: "" };
		if (p.kind === "remove")
			return {
				title: t("removeTitle"),
				message: t("removeText", { name: p.member.name }),
				label: t("remove"),
			};
		if (p.kind === "handOver")
			return {
				title: t("handOverTitle"),
				message: t("handOverText", { name: p.member.name }),
				label: t("handOver"),
			};
		if (p.kind === "revoke")
			return {
				title: t("revokeTitle"),
				message: t("revokeText", { email: p.invitation.email }),
				label: t("revoke"),
			};
		return {
			title: t("leaveTitle"),
			message: t("leaveText", { name: workspace?.name ?? "" }),
			label: t("leave"),
		};
	};
	const text = confirmText(pending);
	const actsOn = (m: Member) => canWrite && m.account !== myId && RANK[m.role] <= RANK[myRole];

	return (
		<Page
			title={t("nav")}
			actions={
				<>
					{canWrite ? (
						<Button variant="primary" onClick={() => setInviting(true)}>
							{t("invite")}
						</Button>
					) : null}
					{workspace && !workspace.personal ? (
						<Button onClick={() => setPending({ kind: "leave" })}>{t("leave")}</Button>
					) : null}
				</>
			}
		>
			<p class="intro">{t("intro")}</p>
			<ErrorAlert error={error} />
			<LoadState state={state}>
				{({ list, open }) => (
					<>
						<DataTable
							caption={t("caption")}
							rows={list}
							rowKey={(m) => m.id}
							columns={[
								{ label: t("name"), cell: (m) => (m.account === myId ? t("you", { name: m.name }) : m.name) },
								{ label: t("email"), cell: (m) => m.email },
								{
									label: t("role"),
									cell: (m) =>
										actsOn(m) ? (
											<SelectField
												label={t("changeRole", { name: m.name })}
												value={m.role}
												options={grantable.map((r) => ({ value: r, label: roleLabel(r) }))}
												onChange={(r) => void run(() => members.update(m.id, { role: r }), t("roleChanged"))}
											/>
										) : (
											roleLabel(m.role)
										),
								},
								{ label: t("joined"), cell: (m) => <DateTime value={m.created} /> },
								{
									label: t("actions"),
									kind: "actions",
									cell: (m) =>
										actsOn(m) ? (
											<div class="row-actions">
												{myRole === "owner" && !workspace?.personal ? (
													<Button
														class="btn-small"
														aria-label={t("handOverNamed", { name: m.name })}
														onClick={() => setPending({ kind: "handOver", member: m })}
													>
														{t("handOver")}
													</Button>
												) : null}
												<Button
													class="btn-small"
													aria-label={t("removeNamed", { name: m.name })}
													onClick={() => setPending({ kind: "remove", member: m })}
												>
													{t("remove")}
												</Button>
											</div>
										) : null,
								},
							]}
						/>
						<h2>{t("invitationsTitle")}</h2>
						{open.length === 0 ? (
							<p>{t("noInvitations")}</p>
						) : (
							<DataTable
								caption={t("invitationsCaption")}
								rows={open}
								rowKey={(i) => i.id}
								columns={[
									{ label: t("email"), cell: (i) => i.email },
									{ label: t("role"), cell: (i) => roleLabel(i.role) },
									{
										label: t("expires"),
										cell: (i) => (i.status === "expired" ? t("expired") : <DateTime value={i.expiresAt} />),
									},
									{
										label: t("actions"),
										kind: "actions",
										cell: (i) =>
											canWrite ? (
												<Button
													class="btn-small"
													aria-label={t("revokeNamed", { email: i.email })}
													onClick={() => setPending({ kind: "revoke", invitation: i })}
												>
													{t("revoke")}
												</Button>
											) : null,
									},
								]}
							/>
						)}
					</>
				)}
			</LoadState>
			<Dialog
				title={t("inviteTitle")}
				open={inviting}
				onClose={() => setInviting(false)}
				actions={
					<>
						<Button onClick={() => setInviting(false)}>{ui("cancel")}</Button>
						<Button type="submit" variant="primary" busy={busy} form="invite-form">
							{t("send")}
						</Button>
					</>
				}
			>
				<form id="invite-form" onSubmit={(e) => void invite(e)} noValidate>
					<p class="field-hint">{t("inviteHint")}</p>
					<TextField
						label={t("email")}
						type="email"
						required
						maxLength={320}
						value={email}
						onInput={setEmail}
						error={emailError}
						autocomplete="off"
					/>
					<SelectField
						label={t("role")}
						value={role}
						options={grantable.map((r) => ({ value: r, label: roleLabel(r) }))}
						onChange={(r) => setRole(r as Role)}
					/>
				</form>
				<ErrorAlert error={error} />
			</Dialog>
			<Dialog
				title={t("linkTitle")}
				open={link !== null}
				onClose={() => setLink(null)}
				actions={
					<Button variant="primary" onClick={() => setLink(null)}>
						{t("done")}
					</Button>
				}
			>
				<p>{t("linkText", { email: link?.email ?? "" })}</p>
				<CopyField label={t("link")} value={link?.url ?? ""} />
			</Dialog>
			<ConfirmDialog
				open={pending !== null}
				title={text.title}
				message={text.message}
				confirmLabel={text.label}
				busy={busy}
				onConfirm={() => pending && void confirm(pending)}
				onClose={() => setPending(null)}
			/>
		</Page>
	);
}
