// What a request (or a template) asks for, read-only: label, key, type, required, description.
import { useT } from "../../i18n/index.ts";
import { DataTable } from "../../ui/index.ts";
import { messages } from "./messages.ts";
import type { TemplateItem } from "./types.ts";

export function ItemsTable({ items, caption }: { items: TemplateItem[]; caption: string }) {
	const t = useT(messages);
	return (
		<DataTable
			caption={caption}
			rows={items}
			rowKey={(i) => i.key}
			columns={[
				{
					label: t("itemLabel"),
					cell: (i) => (
						<>
							<span class="req-item-label">{i.label}</span>
							{i.description ? <span class="meta req-item-desc">{i.description}</span> : null}
						</>
					),
				},
				{ label: t("itemKey"), cell: (i) => <code>{i.key}</code> },
				{ label: t("itemType"), cell: (i) => t(`type_${i.type}`) },
				{ label: t("itemRequired"), cell: (i) => t(i.required ? "yes" : "no") },
			]}
		/>
	);
}
