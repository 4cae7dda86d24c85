// The unread count in the header: asked on sign-in, when the console regains focus, every minute
// while the tab is visible, and whenever a screen says it changed something (refreshUnread()).
import { collection } from "./api.ts";
import { sessionToken } from "./session.ts";
import { Observable } from "./state.ts";

export const unreadCount = new Observable<number | null>(null);

export async function refreshUnread(): Promise<void> {
	if (!sessionToken.get()) {
		unreadCount.set(null);
		return;
	}
	try {
		const page = await collection("notifications").list({ filter: "read = false", perPage: 1, fields: "id" });
		unreadCount.set(page.totalItems);
	} catch {
		// The count is a convenience: a failure leaves the last one shown.
	}
}

export function watchUnread(): () => void {
	void refreshUnread();
	const timer = setInterval(() => {
		if (document.visibilityState === "visible") void refreshUnread();
	}, 60_000);
	const onFocus = () => void refreshUnread();
	window.addEventListener("focus", onFocus);
	return () => {
		clearInterval(timer);
		window.removeEventListener("focus", onFocus);
	};
}
