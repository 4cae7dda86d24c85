// API keys of the active workspace: list, create with permissions (the token comes once, in the
// X-Plain-Token header, and is shown once with a copy button), revoke.
import { useState } from "preact/hooks";
import { collection, request } from "../../api.ts";
import { type Translate, useT } from "../../i18n/index.ts";
import { hasScope } from "../../session.ts";
import {
	Button,
	Checkbox,
	CopyField,
	DateTime,
	Dialog,
	ErrorAlert,
	Fieldset,
	ListPage,
	LoadState,
	TextField,
	useLoad,
} from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import type { Wire } from "../../wire.ts";
import { messages } from "./messages.ts";

type ApiKey = Wire<"ApiKey">;

interface Permission {
	name: string;
	label: string;
	scopes: string[];
}

type Key = Parameters<Translate<keyof (typeof messages)["en"]>>[0];

const apiKeys = collection<ApiKey>("apiKeys");

/** The catalogue's permissions a key may carry (never the vault's) that this session holds. */
async function grantable(): Promise<Permission[]> {
	const { data } = await request<{ permissions: Permission[] }>("GET", "/api/permissions");
	return data.permissions.filter((p) => !p.name.startsWith("vault:") && p.scopes.every((s) => hasScope(s)));
}

function permissionLabel(t: Translate<Key>, p: { name: string; label?: string }): string {
	const key = `perm_${p.name.replace(":", "_")}`;
	return key in messages.en ? t(key as Key) : (p.label ?? p.name);
}

function endOfDay(day: string): string {
	return new Date(`${day}T23:59:59.999`).toISOString();
}

function CreateKey({
	open,
	onClose,
	onCreated,
}: {
	open: boolean;
	onClose: () => void;
	onCreated: (token: string) => void;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const permissions = useLoad(() => (open ? grantable() : Promise.resolve([])), [open]);
	const [name, setName] = useState("");
	const [chosen, setChosen] = useState<string[]>([]);
	const [expires, setExpires] = useState("");
	const [errors, setErrors] = useState<{ name?: string; permissions?: string; expires?: string }>({});
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);

	async function submit(event: Event) {
		event.preventDefault();
		const problems: typeof errors = {};
		if (!name.trim()) problems.name = t("nameRequired");
		if (chosen.length === 0) problems.permissions = t("pickOne");
		if (expires && new Date(endOfDay(expires)).getTime() <= Date.now()) problems.expires = t("expiresPast");
		setErrors(problems);
		if (Object.keys(problems).length > 0) return;
		setBusy(true);
		setError(null);
		try {
			const res = await apiKeys.create({
				name: name.trim(),
				permissions: chosen,
				...(expires ? { expiresAt: endOfDay(expires) } : {}),
			});
			const token = res.headers.get("x-plain-token") ?? "";
			setName("");
			setChosen([]);
			setExpires("");
			onCreated(token);
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<Dialog
			title={t("createTitle")}
			open={open}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="create-key-form">
						{t("create")}
					</Button>
				</>
			}
		>
			<form id="create-key-form" onSubmit={(e) => void submit(e)} noValidate>
				<TextField
					label={t("name")}
					hint={t("nameHint")}
					required
					maxLength={200}
					value={name}
					onInput={setName}
					error={errors.name ?? null}
					autocomplete="off"
				/>
				<LoadState state={permissions}>
					{(list) => (
						<Fieldset legend={t("permissions")} error={errors.permissions ?? null}>
							<p class="field-hint">{t("permissionsHint")}</p>
							{list.map((p) => (
								<Checkbox
									key={p.name}
									label={permissionLabel(t, p)}
									hint={p.name}
									checked={chosen.includes(p.name)}
									onChange={(on) => setChosen((c) => (on ? [...c, p.name] : c.filter((n) => n !== p.name)))}
								/>
							))}
						</Fieldset>
					)}
				</LoadState>
				<TextField
					label={t("expires")}
					hint={t("expiresHint")}
					type="date"
					value={expires}
					onInput={setExpires}
					error={errors.expires ?? null}
				/>
			</form>
			<ErrorAlert error={error} />
		</Dialog>
	);
}

export default function ApiKeysScreen() {
	const t = useT(messages);
	const state = useLoad(() => apiKeys.all({ sort: "-created" }));
	const [creating, setCreating] = useState(false);
	const [token, setToken] = useState<string | null>(null);
	const canWrite = hasScope("apikey:write");

	return (
		<ListPage
			title={t("nav")}
			intro={t("intro")}
			action={canWrite ? { label: t("create"), onClick: () => setCreating(true) } : undefined}
			state={state}
			empty={{ title: t("empty"), text: t("emptyText") }}
			caption={t("caption")}
			rowKey={(k) => k.id}
			columns={[
				{ label: t("name"), cell: (k) => k.name },
				{
					label: t("permissions"),
					cell: (k) => (
						<ul class="list-plain">
							{k.permissions.map((p) => (
								<li key={p}>{permissionLabel(t, { name: p })}</li>
							))}
						</ul>
					),
				},
				{
					label: t("expiresAt"),
					cell: (k) => (k.expiresAt ? <DateTime value={k.expiresAt} /> : t("noExpiry")),
				},
				{ label: t("lastUsed"), cell: (k) => <DateTime value={k.lastUsed} /> },
				{ label: t("created"), cell: (k) => <DateTime value={k.created} /> },
			]}
			actions={[
				{
					label: t("revoke"),
					named: (k) => t("revokeNamed", { name: k.name }),
					when: () => canWrite,
					confirm: {
						title: t("revokeTitle"),
						message: (k) => t("revokeText", { name: k.name }),
						run: (k) => apiKeys.remove(k.id),
						done: t("revoked"),
					},
				},
			]}
		>
			<CreateKey
				open={creating}
				onClose={() => setCreating(false)}
				onCreated={(plain) => {
					setCreating(false);
					setToken(plain);
					state.reload();
				}}
			/>
			<Dialog
				title={t("tokenTitle")}
				open={token !== null}
				onClose={() => setToken(null)}
				actions={
					<Button variant="primary" onClick={() => setToken(null)}>
						{t("done")}
					</Button>
				}
			>
				<p>{t("tokenText")}</p>
				<CopyField label={t("token")} value={token ?? ""} />
			</Dialog>
		</ListPage>
	);
}
