// What each role can see and do (docs/api.md "Roles: who sees and does what"), in the person's words:
// under the invite dialog's role selector for the role chosen, and on the members screen for all.
import { Fragment } from "preact";
import { useT } from "../../i18n/index.ts";
import { messages } from "./messages.ts";
import { ROLES, type Role } from "./types.ts";

const HEAD = {
	owner: "roleCanOwner",
	admin: "roleCanAdmin",
	member: "roleCanMember",
	viewer: "roleCanViewer",
} as const;

const ITEMS = {
	owner: ["can_owner_1", "can_owner_2", "can_owner_3", "can_owner_4"],
	admin: ["can_admin_1", "can_admin_2", "can_admin_3", "can_admin_4"],
	member: ["can_member_1", "can_member_2", "can_member_3"],
	viewer: ["can_viewer_1", "can_viewer_2", "can_viewer_3"],
} as const;

/** The short list of what `role` sees and does; `id` lets a control name it in aria-describedby. */
export function RoleSummary({ role, id, head = true }: { role: Role; id?: string; head?: boolean }) {
	const t = useT(messages);
	return (
		<div class="role-summary" id={id} data-role={role}>
			{head ? <p class="role-summary-head">{t(HEAD[role])}</p> : null}
			<ul>
				{ITEMS[role].map((key) => (
					<li key={key}>{t(key)}</li>
				))}
			</ul>
		</div>
	);
}

/** Every role with its list, highest first: the members screen's reference. */
export function RoleGuide() {
	const t = useT(messages);
	return (
		<section aria-labelledby="roles-title" class="role-guide">
			<h2 id="roles-title">{t("rolesTitle")}</h2>
			<dl class="facts">
				{ROLES.map((role) => (
					<Fragment key={role}>
						<dt>{t(`role_${role}`)}</dt>
						<dd>
							<RoleSummary role={role} head={false} />
						</dd>
					</Fragment>
				))}
			</dl>
		</section>
	);
}
