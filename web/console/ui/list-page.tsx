// A screen that lists records with actions on each row (API keys, connections, identities,
// workspaces, attestations): the heading and its button, an introduction, the table or its empty
// state, each row's buttons named after the row, and "Are you sure?" before an action that cannot
// be undone. The screen's own dialogs come as children.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useT } from "../i18n/index.ts";
import { ErrorAlert } from "./alert.tsx";
import { Button } from "./button.tsx";
import { ConfirmDialog } from "./dialog.tsx";
import type { IconName } from "./icon.tsx";
import { announce } from "./live.ts";
import { uiMessages } from "./messages.ts";
import { type Loaded, LoadState, Page } from "./page.tsx";
import { EmptyState } from "./status.tsx";
import { type Column, DataTable } from "./table.tsx";

/** Asked before the action runs; the confirming button says the action's label. */
export interface Confirmed<T> {
	title: string;
	message: (row: T) => string;
	run: (row: T) => Promise<unknown>;
	/** Announced once it has run (the list reloads then). */
	done: string;
}

/** A button in each row's actions cell: it opens the screen's own dialog, or asks and then runs. */
export type RowAction<T> = {
	/** The button's words ("Revoke"). */
	label: string;
	/** Its accessible name, naming the row ("Revoke CRM sync"). */
	named: (row: T) => string;
	/** The rows that offer it; all when absent. */
	when?: (row: T) => boolean;
} & ({ open: (row: T) => void } | { confirm: Confirmed<T> });

type ConfirmAction<T> = RowAction<T> & { confirm: Confirmed<T> };
const confirms = <T,>(a: RowAction<T>): a is ConfirmAction<T> => "confirm" in a;

export function ListPage<T>({
	title,
	intro,
	notice,
	action,
	error,
	state,
	empty,
	caption,
	rowKey,
	columns,
	actions,
	tableClass,
	children,
}: {
	title: string;
	intro: string;
	/** Said up front, under the introduction (a feature the operator turned off). */
	notice?: ComponentChildren;
	/** The heading's one button (create, issue, open a link); absent when the session may not. */
	action?: { label: string; onClick: () => void; icon?: IconName } | undefined;
	/** What went wrong in the screen's own actions. */
	error?: unknown;
	state: Loaded<T[]>;
	empty: { title: string; text?: string };
	caption: string;
	rowKey: (row: T) => string;
	columns: Column<T>[];
	/** The last column's buttons: one stands alone, several share a `.row-actions` group. */
	actions: RowAction<T>[];
	/** A class on a box around the table, for the screen's stylesheet. */
	tableClass?: string;
	children?: ComponentChildren;
}) {
	const ui = useT(uiMessages);
	const [pending, setPending] = useState<{ row: T; action: ConfirmAction<T> } | null>(null);
	const [busy, setBusy] = useState(false);
	const [failed, setFailed] = useState<unknown>(null);
	const asking = pending?.action ?? actions.find(confirms);

	async function run({ row, action: { confirm } }: { row: T; action: ConfirmAction<T> }) {
		setBusy(true);
		setFailed(null);
		try {
			await confirm.run(row);
			announce(confirm.done);
			state.reload();
		} catch (err) {
			setFailed(err);
		} finally {
			setBusy(false);
			setPending(null);
		}
	}

	const button = (a: RowAction<T>, row: T) =>
		a.when && !a.when(row) ? null : (
			<Button
				key={a.label}
				class="btn-small"
				aria-label={a.named(row)}
				onClick={() => (confirms(a) ? setPending({ row, action: a }) : a.open(row))}
			>
				{a.label}
			</Button>
		);
	const withActions: Column<T>[] = [
		...columns,
		{
			label: ui("actions"),
			kind: "actions",
			cell: (row) =>
				actions.length > 1 ? (
					<div class="row-actions">{actions.map((a) => button(a, row))}</div>
				) : actions[0] ? (
					button(actions[0], row)
				) : null,
		},
	];

	return (
		<Page
			title={title}
			actions={
				action ? (
					<Button variant="primary" icon={action.icon ?? "plus"} onClick={action.onClick}>
						{action.label}
					</Button>
				) : undefined
			}
		>
			<p class="intro">{intro}</p>
			{notice}
			<ErrorAlert error={failed ?? error} />
			<LoadState state={state}>
				{(list) => {
					if (list.length === 0) {
						return <EmptyState title={empty.title}>{empty.text ? <p>{empty.text}</p> : null}</EmptyState>;
					}
					const table = <DataTable caption={caption} rows={list} rowKey={rowKey} columns={withActions} />;
					return tableClass ? <div class={tableClass}>{table}</div> : table;
				}}
			</LoadState>
			{children}
			{asking ? (
				<ConfirmDialog
					open={pending !== null}
					title={asking.confirm.title}
					message={pending ? asking.confirm.message(pending.row) : ""}
					confirmLabel={asking.label}
					busy={busy}
					onConfirm={() => pending && void run(pending)}
					onClose={() => setPending(null)}
				/>
			) : null}
		</Page>
	);
}
