// Two parts of a share's form (new, copy, edit): its gates (password, view cap, expiry, proven identity, the
// identity that signs it) and its watermark (the stamp, an application's purpose, the preview).
import type { ComponentChildren } from "preact";
import { useT } from "../../i18n/index.ts";
import { Checkbox, Fieldset, SelectField, TextField } from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { StampPreview } from "./stamp-preview.tsx";
import type { Identity, VaultRecord } from "./types.ts";

export interface Gates {
	password: string;
	/** As typed; checked on submit. */
	maxViews: string;
	/** A datetime-local value, or "". */
	expires: string;
	requireHandshake: boolean;
	/** The identity that signs the share; "" for none. */
	identity: string;
}

/** No gate: anyone with the link, as often as they like, until revoked. */
export const OPEN: Gates = { password: "", maxViews: "", expires: "", requireHandshake: false, identity: "" };

export interface Watermark {
	/** The watermark box as ticked; an application's purpose stamps too. */
	on: boolean;
	application: boolean;
	stamp: string;
}

export const UNSTAMPED: Watermark = { on: false, application: false, stamp: "" };

export const isStamped = (w: Watermark) => w.on || w.application;

export function GateFields({
	gates,
	onChange,
	errors,
	identityList,
	password,
	maxViewsHint,
}: {
	gates: Gates;
	onChange: (patch: Partial<Gates>) => void;
	errors: { maxViews?: string | undefined; expiresAt?: string | undefined };
	identityList: Identity[];
	/** The edit form's own password fields (keep, replace or remove), instead of a new share's. */
	password?: ComponentChildren;
	/** The edit form's word on the views already taken, instead of a new share's hint. */
	maxViewsHint?: string;
}) {
	const t = useT(messages);
	return (
		<Fieldset legend={t("gates")}>
			{password ?? (
				<TextField
					label={t("password")}
					hint={t("passwordHint")}
					type="password"
					autocomplete="new-password"
					maxLength={200}
					value={gates.password}
					onInput={(password) => onChange({ password })}
				/>
			)}
			<TextField
				label={t("maxViews")}
				hint={maxViewsHint ?? t("maxViewsHint")}
				type="number"
				inputMode="numeric"
				min={1}
				max={1_000_000_000}
				step={1}
				value={gates.maxViews}
				onInput={(maxViews) => onChange({ maxViews })}
				error={errors.maxViews ?? null}
			/>
			<TextField
				label={t("expires")}
				hint={t("expiresHint")}
				type="datetime-local"
				value={gates.expires}
				onInput={(expires) => onChange({ expires })}
				error={errors.expiresAt ?? null}
			/>
			<Checkbox
				label={t("handshake")}
				hint={t("handshakeHint")}
				checked={gates.requireHandshake}
				onChange={(requireHandshake) => onChange({ requireHandshake })}
			/>
			{identityList.length > 0 ? (
				<SelectField
					label={t("identity")}
					hint={t("identityHint")}
					value={gates.identity}
					onChange={(identity) => onChange({ identity })}
					options={[
						{ value: "", label: t("identityNone") },
						...identityList.map((i) => ({ value: i.id, label: i.name })),
					]}
				/>
			) : null}
		</Fieldset>
	);
}

export function WatermarkFields({
	watermark,
	onChange,
	error,
	files,
}: {
	watermark: Watermark;
	onChange: (patch: Partial<Watermark>) => void;
	error: string | null;
	/** The files the preview stamps. */
	files: VaultRecord[];
}) {
	const t = useT(messages);
	const stamped = isStamped(watermark);
	return (
		<Fieldset legend={t("watermark")}>
			<Checkbox
				label={t("watermarkOn")}
				hint={t("watermarkHint")}
				checked={stamped}
				onChange={(on) => onChange(on ? { on } : { on, application: false })}
			/>
			<Checkbox
				label={t("application")}
				hint={t("applicationHint")}
				checked={watermark.application}
				onChange={(application) => onChange({ application })}
			/>
			{stamped ? (
				<>
					<TextField
						label={t("stamp")}
						hint={t("stampHint")}
						required
						maxLength={400}
						autocomplete="off"
						value={watermark.stamp}
						onInput={(stamp) => onChange({ stamp })}
						error={error}
					/>
					<StampPreview text={watermark.stamp} files={files} />
				</>
			) : null}
		</Fieldset>
	);
}
