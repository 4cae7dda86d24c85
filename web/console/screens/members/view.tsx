// Members of the active workspace: roles (changed within your own), invitations (the one-time link
// shown once), withdraw an invitation, remove a member, hand ownership over, leave.
import { useState } from "preact/hooks";
import { request } from "../../api.ts";
import { loadMe } from "../../auth/passkey.ts";
import { type Translate, useT } from "../../i18n/index.ts";
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
	useLoad,
} from "../../ui/index.ts";
import { InvitationTable, InviteDialog } from "./invitations.tsx";
import { messages } from "./messages.ts";
import { RoleGuide } from "./roles.tsx";
import { type Invitation, invitations, type Member, members, RANK, ROLES, type Role } from "./types.ts";

type Pending =
	| { kind: "remove"; member: Member }
	| { kind: "handOver"; member: Member }
	| { kind: "revoke"; invitation: Invitation }
	| { kind: "leave" };

/** The confirmation's words for what is pending; leaving names the workspace. */
function confirmText(t: Translate<keyof (typeof messages)["en"]>, p: Pending | null, workspace: string) {
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
		message: t("leaveText", { name: workspace }),
		label: t("leave"),
	};
}

function MemberTable({
	list,
	myId,
	actsOn,
	grantable,
	mayHandOver,
	onRole,
	onPending,
}: {
	list: Member[];
	myId: string;
	/** Whether this session may change the member's role, remove it or hand over to it. */
	actsOn: (m: Member) => boolean;
	grantable: Role[];
	mayHandOver: boolean;
	onRole: (m: Member, role: string) => void;
	onPending: (p: Pending) => void;
}) {
	const t = useT(messages);
	const roleLabel = (r: Role) => t(`role_${r}`);
	return (
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
								onChange={(r) => onRole(m, r)}
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
								{mayHandOver ? (
									<Button
										class="btn-small"
										aria-label={t("handOverNamed", { name: m.name })}
										onClick={() => onPending({ kind: "handOver", member: m })}
									>
										{t("handOver")}
									</Button>
								) : null}
								<Button
									class="btn-small"
									aria-label={t("removeNamed", { name: m.name })}
									onClick={() => onPending({ kind: "remove", member: m })}
								>
									{t("remove")}
								</Button>
							</div>
						) : null,
				},
			]}
		/>
	);
}

export default function MembersScreen() {
	const t = useT(messages);
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
	const grantable = ROLES.filter((r) => RANK[r] <= RANK[myRole]).reverse();

	const [inviting, setInviting] = useState(false);
	const [link, setLink] = useState<{ url: string; email: string; mailed: boolean } | null>(null);
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

	async function invite(email: string, role: Role, sendEmail: boolean): Promise<boolean> {
		setBusy(true);
		setError(null);
		try {
			const res = await invitations.create({ email, role, ...(sendEmail ? { sendEmail } : {}) });
			setLink({ url: res.headers.get("x-invitation-url") ?? "", email, mailed: sendEmail });
			setInviting(false);
			state.reload();
			return true;
		} catch (err) {
			setError(err);
			return false;
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

	const text = confirmText(t, pending, workspace?.name ?? "");

	return (
		<Page
			title={t("nav")}
			actions={
				<>
					{canWrite ? (
						<Button variant="primary" icon="invite" onClick={() => setInviting(true)}>
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
						<MemberTable
							list={list}
							myId={myId}
							actsOn={(m) => canWrite && m.account !== myId && RANK[m.role] <= RANK[myRole]}
							grantable={grantable}
							mayHandOver={myRole === "owner" && !workspace?.personal}
							onRole={(m, r) => void run(() => members.update(m.id, { role: r }), t("roleChanged"))}
							onPending={setPending}
						/>
						<h2>{t("invitationsTitle")}</h2>
						{open.length === 0 ? (
							<p>{t("noInvitations")}</p>
						) : (
							<InvitationTable
								open={open}
								canWrite={canWrite}
								onRevoke={(invitation) => setPending({ kind: "revoke", invitation })}
							/>
						)}
						<RoleGuide />
					</>
				)}
			</LoadState>
			<InviteDialog
				open={inviting}
				onClose={() => setInviting(false)}
				grantable={grantable}
				busy={busy}
				error={error}
				onInvite={invite}
			/>
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
				<p>{t(link?.mailed ? "linkMailed" : "linkText", { email: link?.email ?? "" })}</p>
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
