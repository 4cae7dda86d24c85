// The open invitations of the members screen, and the dialog that makes one.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { serverInfo } from "../../server-info.ts";
import {
	Button,
	Checkbox,
	DataTable,
	DateTime,
	Dialog,
	ErrorAlert,
	SelectField,
	TextField,
} from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";
import { RoleSummary } from "./roles.tsx";
import type { Invitation, Role } from "./types.ts";

export function InvitationTable({
	open,
	canWrite,
	onRevoke,
}: {
	open: Invitation[];
	canWrite: boolean;
	onRevoke: (invitation: Invitation) => void;
}) {
	const t = useT(messages);
	return (
		<DataTable
			caption={t("invitationsCaption")}
			rows={open}
			rowKey={(i) => i.id}
			columns={[
				{ label: t("email"), cell: (i) => i.email },
				{ label: t("role"), cell: (i) => t(`role_${i.role}`) },
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
								onClick={() => onRevoke(i)}
							>
								{t("revoke")}
							</Button>
						) : null,
				},
			]}
		/>
	);
}

/** The address and role to invite; `onInvite` answers whether the invitation was made. */
export function InviteDialog({
	open,
	onClose,
	grantable,
	busy,
	error,
	onInvite,
}: {
	open: boolean;
	onClose: () => void;
	grantable: Role[];
	busy: boolean;
	error: unknown;
	onInvite: (email: string, role: Role, sendEmail: boolean) => Promise<boolean>;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const [email, setEmail] = useState("");
	const [role, setRole] = useState<Role>("member");
	const [emailError, setEmailError] = useState<string | null>(null);
	const [sendEmail, setSendEmail] = useState(false);
	const mailOn = serverInfo().mail;

	async function submit(event: Event) {
		event.preventDefault();
		if (!email.trim()) return setEmailError(t("emailRequired"));
		setEmailError(null);
		if (await onInvite(email.trim(), role, mailOn && sendEmail)) setEmail("");
	}

	return (
		<Dialog
			title={t("inviteTitle")}
			open={open}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="invite-form">
						{t("send")}
					</Button>
				</>
			}
		>
			<form id="invite-form" onSubmit={(e) => void submit(e)} noValidate>
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
					id="invite-role"
					label={t("role")}
					value={role}
					options={grantable.map((r) => ({ value: r, label: t(`role_${r}`) }))}
					onChange={(r) => setRole(r as Role)}
				/>
				{mailOn ? (
					<Checkbox
						name="sendEmail"
						label={t("sendEmail")}
						hint={t("sendEmailHint")}
						checked={sendEmail}
						onChange={setSendEmail}
					/>
				) : null}
				{/* Read out when the role changes: exactly what the chosen role can see and do. */}
				<div aria-live="polite">
					<RoleSummary role={role} id="invite-role-summary" />
				</div>
			</form>
			<ErrorAlert error={error} />
		</Dialog>
	);
}
