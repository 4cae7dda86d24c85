import type { ComponentChildren, JSX } from "preact";
import { Icon, type IconName } from "./icon.tsx";

type ButtonProps = JSX.ButtonHTMLAttributes<HTMLButtonElement> & {
	variant?: "primary" | "secondary" | "danger" | "link";
	/** Shows the button as working and keeps it from being pressed twice. */
	busy?: boolean;
	/** A decorative icon before the words (the words stay the button's name). */
	icon?: IconName;
	children: ComponentChildren;
};

export function Button({
	variant = "secondary",
	busy = false,
	type = "button",
	class: cls,
	icon,
	children,
	...rest
}: ButtonProps) {
	return (
		<button
			{...rest}
			type={type}
			class={`btn btn-${variant}${cls ? ` ${String(cls)}` : ""}`}
			disabled={Boolean(rest.disabled) || busy}
			aria-busy={busy ? "true" : undefined}
		>
			{icon ? <Icon name={icon} /> : null}
			{children}
		</button>
	);
}
