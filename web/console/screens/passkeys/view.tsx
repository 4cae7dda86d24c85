// The account's passkeys: list, add one here or on another device (both through a one-time ticket,
// POST /api/passkeys/tickets), remove (DELETE /api/passkeys/{id}; the last one stays: its Remove is
// off, with the reason beside it).
import { useState } from "preact/hooks";
import { collection, request } from "../../api.ts";
import { register, ticketFrom } from "../../auth/passkey.ts";
import { passkeyErrorText } from "../../auth/passkey-error.ts";
import { formatDateTime, useLocale, useT } from "../../i18n/index.ts";
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
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import type { Wire } from "../../wire.ts";
import { messages } from "./messages.ts";

type Passkey = Wire<"Passkey">;

const passkeys = collection<Passkey>("passkeys");

function issueTicket() {
	return request<{ url: string; expiresAt: string }>("POST", "/api/passkeys/tickets").then((r) => r.data);
}

function AddHere({ open, onClose, onAdded }: { open: boolean; onClose: () => void; onAdded: () => void }) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const lang = useLocale();
	const [name, setName] = useState("");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<string | null>(null);
	async function create(event: Event) {
		event.preventDefault();
		setBusy(true);
		setError(null);
		try {
			const ticket = ticketFrom((await issueTicket()).url);
			if (!ticket) throw new Error("no ticket in the answer");
			await register({ ticket, ...(name.trim() ? { name: name.trim() } : {}), signIn: false });
			announce(t("added"));
			setName("");
			onAdded();
			onClose();
		} catch (err) {
			setError(passkeyErrorText(err, lang));
		} finally {
			setBusy(false);
		}
	}
	return (
		<Dialog
			title={t("addHereTitle")}
			open={open}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="add-passkey-form">
						{t("create")}
					</Button>
				</>
			}
		>
			<p>{t("addHereText")}</p>
			<form id="add-passkey-form" onSubmit={(e) => void create(e)} noValidate>
				<TextField
					label={t("passkeyName")}
					value={name}
					onInput={setName}
					maxLength={200}
					autocomplete="off"
				/>
			</form>
			{error ? (
				<div class="alert alert-error" role="alert">
					<p>{error}</p>
				</div>
			) : null}
		</Dialog>
	);
}

function AddElsewhere({ open, onClose }: { open: boolean; onClose: () => void }) {
	const t = useT(messages);
	const lang = useLocale();
	const state = useLoad(() => (open ? issueTicket() : Promise.resolve(null)), [open]);
	return (
		<Dialog title={t("linkTitle")} open={open} onClose={onClose}>
			<LoadState state={state}>
				{(ticket) =>
					ticket ? (
						<>
							<p>{t("linkText", { time: formatDateTime(ticket.expiresAt, lang) })}</p>
							<CopyField label={t("link")} value={ticket.url} />
						</>
					) : null
				}
			</LoadState>
		</Dialog>
	);
}

export default function PasskeysScreen() {
	const t = useT(messages);
	const state = useLoad(() => passkeys.all({ sort: "created" }));
	const [adding, setAdding] = useState<"here" | "elsewhere" | null>(null);
	const [removing, setRemoving] = useState<Passkey | null>(null);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);

	async function remove(passkey: Passkey) {
		setBusy(true);
		setError(null);
		try {
			await request<void>("DELETE", `/api/passkeys/${encodeURIComponent(passkey.id)}`);
			announce(t("removed"));
			state.reload();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
			setRemoving(null);
		}
	}

	return (
		<Page
			title={t("nav")}
			actions={
				<>
					<Button variant="primary" icon="plus" onClick={() => setAdding("here")}>
						{t("addHere")}
					</Button>
					<Button onClick={() => setAdding("elsewhere")}>{t("addOther")}</Button>
				</>
			}
		>
			<p class="intro">{t("intro")}</p>
			<ErrorAlert error={error} />
			<LoadState state={state}>
				{(list) => (
					<DataTable
						caption={t("caption")}
						rows={list}
						rowKey={(p) => p.id}
						columns={[
							{ label: t("name"), cell: (p) => p.name },
							{ label: t("created"), cell: (p) => <DateTime value={p.created} /> },
							{ label: t("lastUsed"), cell: (p) => <DateTime value={p.lastUsed} /> },
							{
								label: t("actions"),
								kind: "actions",
								// The last passkey stays (409 passkey_last): its button is off, the reason beside it.
								// aria-disabled, not disabled: it keeps the focus, so the keyboard reaches the reason.
								cell: (p) =>
									list.length > 1 ? (
										<Button
											class="btn-small"
											aria-label={t("removeNamed", { name: p.name })}
											onClick={() => setRemoving(p)}
										>
											{t("remove")}
										</Button>
									) : (
										<>
											<Button
												class="btn-small"
												aria-label={t("removeNamed", { name: p.name })}
												aria-describedby={`last-passkey-${p.id}`}
												aria-disabled="true"
											>
												{t("remove")}
											</Button>
											<p class="meta passkey-last" id={`last-passkey-${p.id}`}>
												{t("lastOne")}
											</p>
										</>
									),
							},
						]}
					/>
				)}
			</LoadState>
			<AddHere open={adding === "here"} onClose={() => setAdding(null)} onAdded={state.reload} />
			<AddElsewhere open={adding === "elsewhere"} onClose={() => setAdding(null)} />
			<ConfirmDialog
				open={removing !== null}
				title={t("removeTitle")}
				message={t("removeText", { name: removing?.name ?? "" })}
				confirmLabel={t("remove")}
				busy={busy}
				onConfirm={() => removing && void remove(removing)}
				onClose={() => setRemoving(null)}
			/>
		</Page>
	);
}
