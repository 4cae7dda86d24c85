// The account's workspaces (the `workspaces` collection): create, rename (owner or admin), delete
// (owner only, never the personal one; the name typed to confirm), and make one active, the same
// way the header's switcher does (activeWorkspace, then /api/auth/me again).
import { useState } from "preact/hooks";
import { loadMe } from "../../auth/passkey.ts";
import { useT } from "../../i18n/index.ts";
import { activeWorkspace } from "../../session.ts";
import {
	announce,
	Button,
	DateTime,
	Dialog,
	ErrorAlert,
	ListPage,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";
import { type Workspace, workspaces } from "./types.ts";

/** Makes `id` the tab's active workspace; the shell re-mounts the screens for it. */
function activate(id: string | null): Promise<unknown> {
	activeWorkspace.set(id);
	return loadMe();
}

function NameDialog({
	title,
	submitLabel,
	initial,
	open,
	onClose,
	onSave,
}: {
	title: string;
	submitLabel: string;
	initial: string;
	open: boolean;
	onClose: () => void;
	onSave: (name: string) => Promise<void>;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const [name, setName] = useState(initial);
	const [shown, setShown] = useState(false);
	const [problem, setProblem] = useState<string | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	// Each opening starts from the current name.
	if (open !== shown) {
		setShown(open);
		if (open) {
			setName(initial);
			setProblem(null);
			setError(null);
		}
	}

	async function submit(event: Event) {
		event.preventDefault();
		const trimmed = name.trim();
		const issue = !trimmed ? t("nameRequired") : trimmed.length > 200 ? t("nameLong") : null;
		setProblem(issue);
		if (issue) return;
		setBusy(true);
		setError(null);
		try {
			await onSave(trimmed);
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<Dialog
			title={title}
			open={open}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="workspace-name-form">
						{submitLabel}
					</Button>
				</>
			}
		>
			<form id="workspace-name-form" onSubmit={(e) => void submit(e)} noValidate>
				<TextField
					label={t("name")}
					hint={t("nameHint")}
					required
					maxLength={200}
					value={name}
					onInput={setName}
					error={problem}
					autocomplete="off"
				/>
			</form>
			<ErrorAlert error={error} />
		</Dialog>
	);
}

function DeleteDialog({
	workspace,
	onClose,
	onDeleted,
}: {
	workspace: Workspace | null;
	onClose: () => void;
	onDeleted: (workspace: Workspace) => Promise<void>;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const [typed, setTyped] = useState("");
	const [problem, setProblem] = useState<string | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	const [shownFor, setShownFor] = useState<string | null>(null);
	if ((workspace?.id ?? null) !== shownFor) {
		setShownFor(workspace?.id ?? null);
		setTyped("");
		setProblem(null);
		setError(null);
	}

	async function submit(event: Event) {
		event.preventDefault();
		if (!workspace) return;
		if (typed.trim() !== workspace.name.trim()) {
			setProblem(t("confirmMismatch", { name: workspace.name }));
			return;
		}
		setProblem(null);
		setBusy(true);
		setError(null);
		try {
			await workspaces.remove(workspace.id);
			await onDeleted(workspace);
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<Dialog
			title={t("removeTitle")}
			open={workspace !== null}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="danger" busy={busy} form="workspace-delete-form">
						{t("remove")}
					</Button>
				</>
			}
		>
			<p>{t("removeText", { name: workspace?.name ?? "" })}</p>
			<form id="workspace-delete-form" onSubmit={(e) => void submit(e)} noValidate>
				<TextField
					label={t("confirmName")}
					hint={t("confirmHint", { name: workspace?.name ?? "" })}
					value={typed}
					onInput={setTyped}
					error={problem}
					autocomplete="off"
					spellcheck={false}
				/>
			</form>
			<ErrorAlert error={error} />
		</Dialog>
	);
}

export default function WorkspacesScreen() {
	const t = useT(messages);
	const state = useLoad(() => workspaces.all({ sort: "created" }));
	const [creating, setCreating] = useState(false);
	const [renaming, setRenaming] = useState<Workspace | null>(null);
	const [deleting, setDeleting] = useState<Workspace | null>(null);
	const [error, setError] = useState<unknown>(null);

	async function makeActive(w: Workspace) {
		setError(null);
		try {
			announce(t("switched", { name: w.name }));
			await activate(w.id);
		} catch (err) {
			setError(err);
		}
	}

	const role = (w: Workspace) => t(`role_${w.role}`);

	return (
		<ListPage
			title={t("nav")}
			intro={t("intro")}
			action={{ label: t("create"), onClick: () => setCreating(true) }}
			error={error}
			state={state}
			empty={{ title: t("empty") }}
			caption={t("caption")}
			rowKey={(w) => w.id}
			tableClass="workspace-table"
			columns={[
				{
					label: t("name"),
					cell: (w) => (
						<div>
							<span class="workspace-name">{w.name}</span>
							{w.personal ? (
								<span class="workspace-personal">
									{t("personal")}
									<span class="meta"> · {t("personalHint")}</span>
								</span>
							) : null}
						</div>
					),
				},
				{ label: t("role"), cell: role },
				{ label: t("created"), cell: (w) => <DateTime value={w.created} /> },
				{
					label: t("active"),
					cell: (w) =>
						w.active ? (
							<span class="badge badge-active">{t("activeNow")}</span>
						) : (
							<Button
								class="btn-small"
								aria-label={t("makeActiveNamed", { name: w.name })}
								onClick={() => void makeActive(w)}
							>
								{t("makeActive")}
							</Button>
						),
				},
			]}
			actions={[
				{
					label: t("rename"),
					named: (w) => t("renameNamed", { name: w.name }),
					when: (w) => w.role === "owner" || w.role === "admin",
					open: setRenaming,
				},
				{
					label: t("remove"),
					named: (w) => t("removeNamed", { name: w.name }),
					when: (w) => w.role === "owner" && !w.personal,
					open: setDeleting,
				},
			]}
		>
			<NameDialog
				title={t("createTitle")}
				submitLabel={t("create")}
				initial=""
				open={creating}
				onClose={() => setCreating(false)}
				onSave={async (name) => {
					await workspaces.create({ name });
					setCreating(false);
					announce(t("created_notice", { name }));
					state.reload();
					await loadMe();
				}}
			/>
			<NameDialog
				title={t("renameTitle")}
				submitLabel={t("save")}
				initial={renaming?.name ?? ""}
				open={renaming !== null}
				onClose={() => setRenaming(null)}
				onSave={async (name) => {
					if (!renaming) return;
					await workspaces.update(renaming.id, { name });
					setRenaming(null);
					announce(t("renamed"));
					state.reload();
					await loadMe();
				}}
			/>
			<DeleteDialog
				workspace={deleting}
				onClose={() => setDeleting(null)}
				onDeleted={async (w) => {
					setDeleting(null);
					announce(t("removed"));
					if (w.active) await activate(null);
					else {
						state.reload();
						await loadMe();
					}
				}}
			/>
		</ListPage>
	);
}
