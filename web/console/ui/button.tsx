import type { ComponentChildren, JSX } from "preact";

type ButtonProps = JSX.ButtonHTMLAttributes<HTMLButtonElement> & {
	variant?: "primary" | "secondary" | "danger" | "link";
	/** Shows the button as working and keeps it from being pressed twice. */
	busy?: boolean;
	children: ComponentChildren;
};

export function Button({
	variant = "secondary",
	busy = false,
	type = "button",
	class: cls,
	...rest
}: ButtonProps) {
	return (
		<button
			{...rest}
			type={type}
			class={`btn btn-${variant}${cls ? ` ${String(cls)}` : ""}`}
			disabled={Boolean(rest.disabled) || busy}
			aria-busy={busy ? "true" : undefined}
		/>
	);
}
