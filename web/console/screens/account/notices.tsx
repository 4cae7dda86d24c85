// The account's notice settings: one switch per kind of notification, each on until turned off;
// on a server that sends mail, a second switch per kind ("also by e-mail", off until turned on),
// the language of those mails, and the address's confirmation (notice mails go only to a confirmed
// address). A change is saved at once (PATCH naming that kind) and announced; a failed save puts the
// switch back and says why. Reached from the notifications screen as /account#notices.
import { useEffect, useRef, useState } from "preact/hooks";
import { request } from "../../api.ts";
import { loadMe } from "../../auth/passkey.ts";
import { useT } from "../../i18n/index.ts";
import { me } from "../../session.ts";
import { useObservable } from "../../state.ts";
import {
	announce,
	Button,
	Checkbox,
	ErrorAlert,
	Fieldset,
	LoadState,
	SelectField,
	useLoad,
} from "../../ui/index.ts";
import { KINDS, type Kind } from "../notifications/describe.ts";
import { messages as kindMessages } from "../notifications/messages.ts";
import { messages } from "./messages.ts";

type Switches = Record<Kind, boolean>;
interface Settings {
	inApp: Switches;
	mail: Switches;
	mailOn: boolean;
	language: "en" | "de" | null;
}
type Channel = "inApp" | "mail";

const SETTINGS = "/api/notifications/settings";
const load = async () => (await request<Settings>("GET", SETTINGS)).data;

export function NoticeSettings() {
	const t = useT(messages);
	const k = useT(kindMessages);
	const state = useLoad(load);
	const [shown, setShown] = useState<Settings | null>(null);
	const [error, setError] = useState<unknown>(null);
	const heading = useRef<HTMLHeadingElement>(null);
	const arrived = useRef(false);

	useEffect(() => {
		if (state.data) setShown(state.data);
	}, [state.data]);
	// Arriving at /account#notices: once the switches are there (after the screen focused its
	// title), the settings take the focus and scroll into view.
	const ready = shown !== null;
	useEffect(() => {
		if (!ready || arrived.current || window.location.hash !== "#notices" || !heading.current) return;
		arrived.current = true;
		heading.current.scrollIntoView({ block: "start" });
		heading.current.focus();
	}, [ready]);

	async function save(body: Record<string, unknown>, optimistic: Settings, said: string) {
		if (!shown) return;
		const before = shown;
		setShown(optimistic);
		setError(null);
		try {
			setShown((await request<Settings>("PATCH", SETTINGS, { body })).data);
			announce(said);
		} catch (err) {
			setShown(before);
			setError(err);
		}
	}

	function change(channel: Channel, kind: Kind, on: boolean) {
		if (!shown) return;
		const said =
			channel === "inApp"
				? t(on ? "noticeOn" : "noticeOff", { kind: k(`kind_${kind}`) })
				: t(on ? "mailOn" : "mailOff", { kind: k(`kind_${kind}`) });
		void save(
			{ [channel]: { [kind]: on } },
			{ ...shown, [channel]: { ...shown[channel], [kind]: on } },
			said,
		);
	}

	return (
		<section class="account-notices" id="notices" aria-labelledby="account-notices-title">
			<h2 id="account-notices-title" ref={heading} tabIndex={-1}>
				{t("noticesTitle")}
			</h2>
			<p>{t("noticesIntro")}</p>
			<ErrorAlert error={error} />
			<LoadState state={state}>
				{() =>
					shown ? (
						<>
							<Fieldset legend={t("noticesLegend")}>
								{KINDS.map((kind) => (
									<Checkbox
										key={kind}
										name={kind}
										label={k(`kind_${kind}`)}
										checked={shown.inApp[kind]}
										onChange={(on) => change("inApp", kind, on)}
									/>
								))}
							</Fieldset>
							{shown.mailOn ? (
								<>
									<Fieldset legend={t("mailLegend")}>
										{KINDS.map((kind) => (
											<Checkbox
												key={kind}
												name={`mail-${kind}`}
												label={k(`kind_${kind}`)}
												checked={shown.mail[kind]}
												onChange={(on) => change("mail", kind, on)}
											/>
										))}
									</Fieldset>
									<SelectField
										label={t("mailLanguage")}
										value={shown.language ?? ""}
										options={[
											...(shown.language ? [] : [{ value: "", label: t("mailLanguageUnset") }]),
											{ value: "en", label: "English" },
											{ value: "de", label: "Deutsch" },
										]}
										onChange={(value) => {
											if (value !== "en" && value !== "de") return;
											void save({ language: value }, { ...shown, language: value }, t("mailLanguageSaved"));
										}}
									/>
									<Confirmation />
								</>
							) : null}
						</>
					) : null
				}
			</LoadState>
		</section>
	);
}

/** Whether the address is confirmed, and a button that mails a new confirmation link. */
function Confirmation() {
	const t = useT(messages);
	const account = useObservable(me);
	const [sent, setSent] = useState(false);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	if (!account) return null;
	if (account.record.emailVerified)
		return <p class="hint">{t("verified", { email: account.record.email })}</p>;

	async function send() {
		setBusy(true);
		setError(null);
		try {
			await request("POST", "/api/auth/email/verify", { body: {} });
			setSent(true);
			announce(t("verifySent", { email: account?.record.email ?? "" }));
			void loadMe();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<div class="account-verify">
			<p>{t("unverified", { email: account.record.email })}</p>
			<ErrorAlert error={error} />
			{sent ? (
				<p role="status">{t("verifySent", { email: account.record.email })}</p>
			) : (
				<Button onClick={() => void send()} disabled={busy}>
					{t("verifySend")}
				</Button>
			)}
		</div>
	);
}
