// The account's notice settings: one switch per kind of notification, each on until turned off.
// A change is saved at once (PATCH naming that kind) and announced; a failed save puts the switch
// back and says why. Reached from the notifications screen as /account#notices.
import { useEffect, useRef, useState } from "preact/hooks";
import { request } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { announce, Checkbox, ErrorAlert, Fieldset, LoadState, useLoad } from "../../ui/index.ts";
import { KINDS, type Kind } from "../notifications/describe.ts";
import { messages as kindMessages } from "../notifications/messages.ts";
import { messages } from "./messages.ts";

type Settings = Record<Kind, boolean>;

const load = async () =>
	(await request<{ inApp: Settings }>("GET", "/api/notifications/settings")).data.inApp;

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

	async function change(kind: Kind, on: boolean) {
		if (!shown) return;
		const before = shown;
		setShown({ ...shown, [kind]: on });
		setError(null);
		try {
			const saved = await request<{ inApp: Settings }>("PATCH", "/api/notifications/settings", {
				body: { inApp: { [kind]: on } },
			});
			setShown(saved.data.inApp);
			announce(t(on ? "noticeOn" : "noticeOff", { kind: k(`kind_${kind}`) }));
		} catch (err) {
			setShown(before);
			setError(err);
		}
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
						<Fieldset legend={t("noticesLegend")}>
							{KINDS.map((kind) => (
								<Checkbox
									key={kind}
									name={kind}
									label={k(`kind_${kind}`)}
									checked={shown[kind]}
									onChange={(on) => void change(kind, on)}
								/>
							))}
						</Fieldset>
					) : null
				}
			</LoadState>
		</section>
	);
}
