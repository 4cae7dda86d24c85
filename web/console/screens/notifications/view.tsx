import { useState } from "preact/hooks";
import { collection } from "../../api.ts";
import { useT } from "../../i18n/index.ts";
import { refreshUnread } from "../../notifications-count.ts";
import { Link } from "../../router.ts";
import {
	announce,
	Button,
	DateTime,
	EmptyState,
	ErrorAlert,
	LoadState,
	Page,
	useLoad,
} from "../../ui/index.ts";
import { describe, type Notification } from "./describe.ts";
import { messages } from "./messages.ts";

const notifications = collection<Notification>("notifications");

function Item({ item, onChange }: { item: Notification; onChange: () => void }) {
	const t = useT(messages);
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const said = describe(item, t);
	async function act(run: () => Promise<unknown>, said: string) {
		setBusy(true);
		setError(null);
		try {
			await run();
			announce(said);
			onChange();
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}
	return (
		<li class={`card${item.read ? "" : " card-unread"}`}>
			<div class="card-head">
				<h2>
					{item.read ? null : <span class="visually-hidden">{t("unread")}: </span>}
					{said.heading}
				</h2>
				<span class="meta">
					<DateTime value={item.created} />
				</span>
			</div>
			{said.text !== null ? (
				<p>{said.text}</p>
			) : said.known ? (
				<p class="meta">{item.title}</p>
			) : item.body ? (
				<p>{item.body}</p>
			) : null}
			{said.link ? (
				<p>
					<Link href={said.link.href}>{said.link.label}</Link>
				</p>
			) : null}
			<ErrorAlert error={error} />
			<div class="row-actions">
				<Button
					class="btn-small"
					busy={busy}
					onClick={() =>
						void act(
							() => notifications.update(item.id, { read: !item.read }),
							t(item.read ? "markedUnread" : "markedRead"),
						)
					}
				>
					{t(item.read ? "markUnread" : "markRead")}
				</Button>
				<Button
					class="btn-small"
					busy={busy}
					onClick={() => void act(() => notifications.remove(item.id), t("dismissed"))}
				>
					{t("dismiss")}
				</Button>
			</div>
		</li>
	);
}

export default function NotificationsScreen() {
	const t = useT(messages);
	const state = useLoad(() => notifications.all({ sort: "-created" }));
	const [error, setError] = useState<unknown>(null);
	const changed = () => {
		state.reload();
		void refreshUnread();
	};
	async function markAll(items: Notification[]) {
		setError(null);
		try {
			for (const n of items.filter((i) => !i.read)) await notifications.update(n.id, { read: true });
			announce(t("allRead"));
		} catch (err) {
			setError(err);
		}
		changed();
	}
	const items = state.data ?? [];
	return (
		<Page
			title={t("nav")}
			actions={
				items.some((i) => !i.read) ? (
					<Button onClick={() => void markAll(items)}>{t("markAllRead")}</Button>
				) : undefined
			}
		>
			<p class="intro">
				{t("intro")} <Link href="/account#notices">{t("settingsLink")}</Link>
			</p>
			<ErrorAlert error={error} />
			<LoadState state={state}>
				{(list) =>
					list.length === 0 ? (
						<EmptyState title={t("empty")}>
							<p>{t("emptyText")}</p>
						</EmptyState>
					) : (
						<ul class="list-plain" aria-label={t("count", { count: list.length })}>
							{list.map((item) => (
								<Item key={item.id} item={item} onChange={changed} />
							))}
						</ul>
					)
				}
			</LoadState>
		</Page>
	);
}
