// A template's editor: its name and its fields (add, reorder, remove), checked here first (names,
// keys unique in the template) and then by the server, whose refusal marks the field it names.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { Link, navigate } from "../../router.ts";
import { announce, Button, ErrorAlert, LoadState, Page, TextField, useLoad } from "../../ui/index.ts";
import { KeySuggestions } from "../../ui/key-suggestions.tsx";
import { type Draft, type DraftErrors, ItemEditor } from "./item-editor.tsx";
import { messages } from "./messages.ts";
import { KEY_PATTERN, MAX_ITEMS, type Template, templates } from "./types.ts";

let uids = 0;
const nextUid = () => `i${++uids}`;

function draftOf(item?: Template["items"][number]): Draft {
	return {
		uid: nextUid(),
		key: item?.key ?? "",
		keyTouched: item !== undefined,
		label: item?.label ?? "",
		type: item?.type ?? "text",
		required: item?.required ?? false,
		description: item?.description ?? "",
	};
}

interface Errors {
	name?: string;
	items?: string;
	each: DraftErrors[];
}

export function TemplateEditor({ id }: { id: string | null }) {
	const t = useT(messages);
	const state = useLoad(() => (id ? templates.view(id) : Promise.resolve(null)), [id]);
	if (state.data === undefined) {
		return (
			<Page title={t(id ? "editTitlePlain" : "newTitle")}>
				<p>
					<Link href="/templates">{t("back")}</Link>
				</p>
				<LoadState state={state}>{() => null}</LoadState>
			</Page>
		);
	}
	return <Form template={state.data} />;
}

function Form({ template }: { template: Template | null }) {
	const t = useT(messages);
	const [name, setName] = useState(template?.name ?? "");
	const [items, setItems] = useState<Draft[]>(() => (template ? template.items.map(draftOf) : [draftOf()]));
	const [errors, setErrors] = useState<Errors>({ each: [] });
	const [error, setError] = useState<unknown>(null);
	const [busy, setBusy] = useState(false);
	// What takes the focus after the next render: an element id, or the first invalid field.
	const focusNext = useRef<string | null>(null);

	useEffect(() => {
		const target = focusNext.current;
		if (!target) return;
		focusNext.current = null;
		const el =
			target === "invalid"
				? document.querySelector<HTMLElement>("main [aria-invalid='true']")
				: document.getElementById(target);
		if (el instanceof HTMLButtonElement && el.disabled) {
			const twin = el.id.includes("-up-") ? el.id.replace("-up-", "-down-") : el.id.replace("-down-", "-up-");
			document.getElementById(twin)?.focus();
		} else el?.focus();
	});

	function check(): Errors {
		const found: Errors = { each: items.map(() => ({})) };
		if (!name.trim()) found.name = t("nameRequired");
		if (items.length === 0) found.items = t("itemsRequired");
		const seen = new Map<string, number>();
		items.forEach((item, i) => {
			const e = found.each[i] ?? {};
			if (!item.label.trim()) e.label = t("labelRequired");
			if (!item.key) e.key = t("keyRequired");
			else if (!KEY_PATTERN.test(item.key)) e.key = t("keyInvalid");
			else if (seen.has(item.key)) e.key = t("keyRepeated", { position: (seen.get(item.key) ?? 0) + 1 });
			else seen.set(item.key, i);
			found.each[i] = e;
		});
		return found;
	}

	const hasErrors = (e: Errors) =>
		Boolean(e.name || e.items || e.each.some((x) => Object.keys(x).length > 0));

	async function submit(event: Event) {
		event.preventDefault();
		const found = check();
		setErrors(found);
		if (hasErrors(found)) {
			focusNext.current = "invalid";
			return;
		}
		const body = {
			name: name.trim(),
			items: items.map((i) => ({
				key: i.key,
				label: i.label.trim(),
				type: i.type,
				required: i.required,
				...(i.description.trim() ? { description: i.description.trim() } : {}),
			})),
		};
		setBusy(true);
		setError(null);
		try {
			if (template) await templates.update(template.id, body);
			else await templates.create(body);
			announce(t("saved", { name: body.name }));
			navigate("/templates");
		} catch (err) {
			setErrors(refused(err, items.length, t("fieldRefused")));
			setError(err);
			focusNext.current = "invalid";
		} finally {
			setBusy(false);
		}
	}

	function update(index: number, next: Draft) {
		setItems((list) => list.map((x, i) => (i === index ? next : x)));
	}
	function move(index: number, by: -1 | 1) {
		const item = items[index];
		if (!item) return;
		const list = items.filter((_, i) => i !== index);
		list.splice(index + by, 0, item);
		setItems(list);
		focusNext.current = `tpl-${by < 0 ? "up" : "down"}-${item.uid}`;
		announce(t("moved", { position: index + by + 1, count: list.length }));
	}
	function remove(index: number) {
		setItems((list) => list.filter((_, i) => i !== index));
		setErrors((e) => ({ ...e, each: e.each.filter((_, i) => i !== index) }));
		focusNext.current = "tpl-add";
		announce(t("removed"));
	}
	function add() {
		const item = draftOf();
		setItems((list) => [...list, item]);
		focusNext.current = `tpl-label-${item.uid}`;
	}

	return (
		<Page title={template ? t("editTitle", { name: template.name }) : t("newTitle")}>
			<p>
				<Link href="/templates">{t("back")}</Link>
			</p>
			<form class="tpl-form" onSubmit={(e) => void submit(e)} noValidate>
				<TextField
					label={t("name")}
					hint={t("nameHint")}
					required
					maxLength={80}
					value={name}
					onInput={setName}
					error={errors.name ?? null}
					autocomplete="off"
				/>
				<h2>{t("fields")}</h2>
				<p class="field-hint">{t("fieldsHint", { max: MAX_ITEMS })}</p>
				{errors.items ? <p class="field-error">{errors.items}</p> : null}
				<KeySuggestions />
				<ol class="tpl-items">
					{items.map((item, i) => (
						<ItemEditor
							key={item.uid}
							item={item}
							index={i}
							count={items.length}
							errors={errors.each[i] ?? {}}
							onChange={(next) => update(i, next)}
							onMove={(by) => move(i, by)}
							onRemove={() => remove(i)}
						/>
					))}
				</ol>
				<Button id="tpl-add" onClick={add} disabled={items.length >= MAX_ITEMS}>
					{t("addField")}
				</Button>
				<ErrorAlert error={error} />
				<div class="form-actions">
					<Button type="submit" variant="primary" busy={busy}>
						{template ? t("save") : t("createSubmit")}
					</Button>
					<Link class="btn btn-secondary" href="/templates">
						{t("cancel")}
					</Link>
				</div>
			</form>
		</Page>
	);
}

/** The field a refusal names (`body.name`, `body.items.2.key`) marked on the form. */
function refused(err: unknown, count: number, text: string): Errors {
	const found: Errors = { each: Array.from({ length: count }, () => ({})) };
	const field =
		err instanceof ApiError && err.code === "validation_failed" ? String(err.problem.field ?? "") : "";
	const item = /^body\.items\.(\d+)\.(key|label|description)$/.exec(field);
	if (field === "body.name") found.name = text;
	else if (item) {
		const e = found.each[Number(item[1])];
		if (e) e[item[2] as keyof DraftErrors] = text;
	}
	return found;
}
