// What a connected tool may do, changed by the owner: revoke the shares its proposals became, and
// receive them (`POST /api/connections/{id}/permissions`). Withdrawing hand-over hides every address
// from the tool at once; allowing it gives the tool only shares made for it from then on.
import { useEffect, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { announce, Button, Checkbox, Dialog, ErrorAlert } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { messages } from "./messages.ts";
import { type Connection, setPermissions } from "./types.ts";

export function PermissionsDialog({
	connection,
	onClose,
	onSaved,
}: {
	connection: Connection | null;
	onClose: () => void;
	onSaved: () => void;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const [allowRevoke, setAllowRevoke] = useState(false);
	const [allowHandOver, setAllowHandOver] = useState(false);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);

	useEffect(() => {
		setAllowRevoke(connection?.allowRevoke ?? false);
		setAllowHandOver(connection?.allowHandOver ?? false);
		setError(null);
	}, [connection]);

	async function save(event: Event) {
		event.preventDefault();
		if (!connection) return;
		setBusy(true);
		setError(null);
		try {
			await setPermissions(connection.id, { allowRevoke, allowHandOver });
			announce(t("permissionsSaved", { name: connection.clientName }));
			onSaved();
			onClose();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<Dialog
			title={t("permissionsTitle", { name: connection?.clientName ?? "" })}
			open={connection !== null}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="permissions-form">
						{t("save")}
					</Button>
				</>
			}
		>
			<form id="permissions-form" onSubmit={(e) => void save(e)} noValidate>
				<p>
					<code>{connection?.clientId}</code>
				</p>
				<Checkbox label={t("allowRevoke")} checked={allowRevoke} onChange={setAllowRevoke} />
				<Checkbox
					label={t("allowHandOver")}
					hint={t("handOverHint")}
					checked={allowHandOver}
					onChange={setAllowHandOver}
				/>
				<ErrorAlert error={error} />
			</form>
		</Dialog>
	);
}
