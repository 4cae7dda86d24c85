// A modal dialog on the native <dialog>: the browser keeps focus inside, Escape closes it, and
// focus returns to what opened it, whether the dialog closes (open=false) or is unmounted (the
// vault's dialogs): a modal dialog leaves the rest of the page inert, so it is closed before the
// opener takes the focus back.
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { useT } from "../i18n/index.ts";
import { Button } from "./button.tsx";
import { uiMessages } from "./messages.ts";

export function Dialog({
	title,
	open,
	onClose,
	children,
	actions,
}: {
	title: string;
	open: boolean;
	onClose: () => void;
	children: ComponentChildren;
	/** Buttons at the bottom; a Close button is added when none are given. */
	actions?: ComponentChildren;
}) {
	const t = useT(uiMessages);
	const ref = useRef<HTMLDialogElement>(null);
	const headingId = useId();
	useEffect(() => {
		const dialog = ref.current;
		if (!dialog) return;
		const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
		if (open && !dialog.open) dialog.showModal();
		if (!open && dialog.open) dialog.close();
		return () => {
			if (!open) return;
			if (dialog.open) dialog.close();
			opener?.focus();
		};
	}, [open]);
	return (
		<dialog
			ref={ref}
			class="dialog"
			aria-labelledby={headingId}
			onCancel={(e) => {
				e.preventDefault();
				onClose();
			}}
		>
			{open ? (
				<>
					<h2 id={headingId}>{title}</h2>
					<div class="dialog-body">{children}</div>
					<div class="dialog-actions">
						{actions ?? (
							<Button variant="primary" onClick={onClose}>
								{t("close")}
							</Button>
						)}
					</div>
				</>
			) : null}
		</dialog>
	);
}

/** "Are you sure?" with the action's own words on the confirming button. */
export function ConfirmDialog({
	title,
	message,
	confirmLabel,
	open,
	busy,
	onConfirm,
	onClose,
	danger = true,
}: {
	title: string;
	message: ComponentChildren;
	confirmLabel: string;
	open: boolean;
	busy?: boolean;
	onConfirm: () => void;
	onClose: () => void;
	danger?: boolean;
}) {
	const t = useT(uiMessages);
	return (
		<Dialog
			title={title}
			open={open}
			onClose={onClose}
			actions={
				<>
					<Button onClick={onClose}>{t("cancel")}</Button>
					<Button variant={danger ? "danger" : "primary"} busy={busy ?? false} onClick={onConfirm}>
						{confirmLabel}
					</Button>
				</>
			}
		>
			<p>{message}</p>
		</Dialog>
	);
}
