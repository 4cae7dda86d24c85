// The keys a template or request item's key field suggests (a <datalist>): the common keys people's
// vaults use, then the keys of the active workspace's own vault entries (web/console/common-keys.ts).
import { useEffect, useState } from "preact/hooks";
import { collection } from "../api.ts";
import { suggestedKeys } from "../common-keys.ts";
import { hasScope } from "../session.ts";

const records = collection<{ key: string }>("records");

export const KEY_SUGGESTIONS_ID = "item-key-suggestions";

export function KeySuggestions() {
	const [vaultKeys, setVaultKeys] = useState<string[]>([]);
	useEffect(() => {
		if (!hasScope("record:read")) return;
		let live = true;
		records.all().then(
			(rows) => live && setVaultKeys([...new Set(rows.map((r) => r.key))].sort()),
			() => undefined,
		);
		return () => {
			live = false;
		};
	}, []);
	return (
		<datalist id={KEY_SUGGESTIONS_ID}>
			{suggestedKeys(vaultKeys).map((k) => (
				<option key={k} value={k} />
			))}
		</datalist>
	);
}
