// Creating an identity: a P-256 key pair made here (private half non-extractable), kept in
// IndexedDB under its fingerprint before the server is asked, so a certified key always has its
// private half; only the public JWK is sent. A refused create removes the key again.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Button, Dialog, ErrorAlert, TextField } from "../../ui/index.ts";
import { uiMessages } from "../../ui/messages.ts";
import { fingerprintOf, generateKeyPair, publicJwk } from "./keys.ts";
import { putKey, removeKey } from "./keystore.ts";
import { messages } from "./messages.ts";
import { type Identity, identities } from "./types.ts";

/** Thrown when WebCrypto or IndexedDB is not available here (an insecure origin, a private window). */
class NoKeyStoreError extends Error {}

async function makeIdentity(name: string): Promise<Identity> {
	if (!globalThis.crypto?.subtle || !globalThis.indexedDB) throw new NoKeyStoreError();
	let keyPair: CryptoKeyPair;
	let fingerprint: string;
	try {
		keyPair = await generateKeyPair();
		fingerprint = await fingerprintOf(keyPair.publicKey);
		await putKey({ fingerprint, id: null, name, keyPair, created: new Date().toISOString() });
	} catch {
		throw new NoKeyStoreError();
	}
	let made: Identity;
	try {
		made = (await identities.create({ name, publicKey: await publicJwk(keyPair.publicKey) })).data;
	} catch (err) {
		await removeKey(fingerprint).catch(() => undefined);
		throw err;
	}
	await putKey({ fingerprint, id: made.id, name, keyPair, created: made.created });
	return made;
}

export function CreateIdentity({
	open,
	onClose,
	onCreated,
}: {
	open: boolean;
	onClose: () => void;
	onCreated: (identity: Identity) => void;
}) {
	const t = useT(messages);
	const ui = useT(uiMessages);
	const [name, setName] = useState("");
	const [nameError, setNameError] = useState<string | null>(null);
	const [error, setError] = useState<unknown>(null);
	const [noStore, setNoStore] = useState(false);
	const [busy, setBusy] = useState(false);

	function close() {
		setNameError(null);
		setError(null);
		setNoStore(false);
		onClose();
	}

	async function submit(event: Event) {
		event.preventDefault();
		const trimmed = name.trim();
		const problem = !trimmed
			? t("nameRequired")
			: trimmed.length > 200 || /[\r\n]/.test(trimmed)
				? t("nameLong")
				: null;
		setNameError(problem);
		if (problem) return;
		setBusy(true);
		setError(null);
		setNoStore(false);
		try {
			const made = await makeIdentity(trimmed);
			setName("");
			onCreated(made);
		} catch (err) {
			if (err instanceof NoKeyStoreError) setNoStore(true);
			else setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<Dialog
			title={t("createTitle")}
			open={open}
			onClose={close}
			actions={
				<>
					<Button onClick={close}>{ui("cancel")}</Button>
					<Button type="submit" variant="primary" busy={busy} form="create-identity-form">
						{t("create")}
					</Button>
				</>
			}
		>
			<p>{t("createText")}</p>
			<form id="create-identity-form" onSubmit={(e) => void submit(e)} noValidate>
				<TextField
					label={t("name")}
					hint={t("nameHint")}
					required
					maxLength={200}
					value={name}
					onInput={setName}
					error={nameError}
					autocomplete="off"
				/>
			</form>
			{noStore ? (
				<div class="alert alert-error" role="alert">
					{t("noCrypto")}
				</div>
			) : null}
			<ErrorAlert error={error} />
		</Dialog>
	);
}
