// A file chooser that is also a drop target: the native <input type="file"> (keyboard and screen
// reader as the browser made it) inside a zone that takes a dragged file. While it is shown, a file
// dropped beside it does not make the browser leave the console to open it.
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { messages } from "./messages.ts";

export function DropZone({
	label,
	hint,
	error,
	disabled,
	onFile,
}: {
	label: string;
	hint?: string;
	error?: string | null;
	disabled?: boolean;
	onFile: (file: File | null) => void;
}) {
	const t = useT(messages);
	const id = useId();
	const input = useRef<HTMLInputElement>(null);
	const [over, setOver] = useState(false);

	useEffect(() => {
		const keep = (e: DragEvent) => e.preventDefault();
		window.addEventListener("dragover", keep);
		window.addEventListener("drop", keep);
		return () => {
			window.removeEventListener("dragover", keep);
			window.removeEventListener("drop", keep);
		};
	}, []);

	function enter(e: DragEvent) {
		e.preventDefault();
		if (!disabled) setOver(true);
	}
	function leave(e: DragEvent) {
		const to = e.relatedTarget;
		if (to instanceof Node && e.currentTarget instanceof Node && e.currentTarget.contains(to)) return;
		setOver(false);
	}
	function drop(e: DragEvent) {
		e.preventDefault();
		setOver(false);
		const files = e.dataTransfer?.files;
		const file = files?.[0];
		if (disabled || !files || !file) return;
		// The input shows the dropped file's name too, as if it had been chosen.
		if (input.current) input.current.files = files;
		onFile(file);
	}

	const described = [`${id}-zone`, hint ? `${id}-hint` : "", error ? `${id}-error` : ""]
		.filter(Boolean)
		.join(" ");
	return (
		// A fieldset that also takes drops; the input inside is what a keyboard uses.
		<fieldset
			class={`vault-drop${over ? " vault-drop-over" : ""}${error ? " field-invalid" : ""}`}
			onDragEnter={enter}
			onDragOver={enter}
			onDragLeave={leave}
			onDrop={drop}
		>
			<legend>{label}</legend>
			<p class="vault-drop-text" id={`${id}-zone`}>
				{over ? t("dropActive") : t("dropZone")}
			</p>
			<label for={id}>{t("chooseFile")}</label>
			<input
				ref={input}
				id={id}
				type="file"
				disabled={disabled}
				aria-invalid={error ? "true" : undefined}
				aria-describedby={described}
				onChange={(e) => onFile(e.currentTarget.files?.[0] ?? null)}
			/>
			{hint ? (
				<p class="field-hint" id={`${id}-hint`}>
					{hint}
				</p>
			) : null}
			{error ? (
				<p class="field-error" id={`${id}-error`}>
					{error}
				</p>
			) : null}
		</fieldset>
	);
}
