// The frame around every screen: skip link, header (workspace, notifications, language, account),
// navigation built from the screen registry, and the main landmark. On a narrow screen the header
// is one row (the name and a Menu button, a disclosure) and the controls and navigation open below
// it on demand; the menu closes on a move, on Escape (focus back on the button) and on a wide screen.

import { screens } from "virtual:screens";
import type { ComponentChildren, RefObject } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { loadMe, signOut } from "./auth/passkey.ts";
import { format, LOCALES, type Locale, setLocale, useLocale, useT } from "./i18n/index.ts";
import { shellMessages } from "./i18n/messages.ts";
import { unreadCount } from "./notifications-count.ts";
import { Link, navigate, under, useRoute } from "./router.ts";
import type { Screen } from "./screen.ts";
import { serverInfo } from "./server-info.ts";
import { activeWorkspace, endSession, hasScope, me } from "./session.ts";
import { useObservable } from "./state.ts";
import { hasIcon, Icon, Mark } from "./ui/icon.tsx";
import { announcement } from "./ui/live.ts";

export type RegisteredScreen = Screen & { id: string };

/** The screens in navigation order. */
export const orderedScreens: RegisteredScreen[] = [...screens].sort(
	(a, b) => a.order - b.order || a.id.localeCompare(b.id),
);

export function navScreens(): RegisteredScreen[] {
	return orderedScreens.filter((s) => !s.hidden && (!s.scope || hasScope(s.scope)));
}

function LanguageSwitch() {
	const t = useT(shellMessages);
	const lang = useLocale();
	return (
		<div class="control">
			<label for="lang-select">
				<Icon name="language" />
				<span class="control-label-text">{t("language")}</span>
			</label>
			<select id="lang-select" value={lang} onChange={(e) => setLocale(e.currentTarget.value as Locale)}>
				{LOCALES.map((l) => (
					<option key={l} value={l} lang={l}>
						{format(shellMessages, l, `lang_${l}`)}
					</option>
				))}
			</select>
		</div>
	);
}

function WorkspaceSwitch() {
	const t = useT(shellMessages);
	const account = useObservable(me);
	const active = useObservable(activeWorkspace);
	if (!account) return null;
	return (
		<div class="control">
			<label for="workspace-select">
				<Icon name="workspaces" />
				{t("workspace")}
			</label>
			<select
				id="workspace-select"
				value={active ?? account.workspace}
				onChange={(e) => {
					activeWorkspace.set(e.currentTarget.value);
					void loadMe();
				}}
			>
				{account.workspaces.map((w) => (
					<option key={w.id} value={w.id}>
						{w.personal ? t("personal", { name: w.name }) : w.name}
					</option>
				))}
			</select>
		</div>
	);
}

function NotificationsLink() {
	const t = useT(shellMessages);
	const count = useObservable(unreadCount);
	const target = orderedScreens.find((s) => s.id === "notifications");
	if (!target) return null;
	// The visible words are the accessible name, with "unread" for screen readers after the count.
	return (
		<Link href={target.path} class="notif-link">
			<Icon name="bell" />
			{t("notifications")}
			{count ? (
				<>
					{" "}
					<span class="count">{count > 99 ? "99+" : count}</span>
					<span class="visually-hidden"> {t("unreadSuffix")}</span>
				</>
			) : null}
		</Link>
	);
}

function Account() {
	const t = useT(shellMessages);
	const account = useObservable(me);
	if (!account) return null;
	async function out() {
		try {
			await signOut();
		} finally {
			endSession("signed_out");
			navigate("/signin", { replace: true });
		}
	}
	return (
		<div class="account">
			<span class="account-email">{t("signedInAs", { email: account.record.email })}</span>
			<button type="button" class="btn btn-secondary" onClick={() => void out()}>
				<Icon name="signOut" />
				{t("signOut")}
			</button>
		</div>
	);
}

function Nav({ id }: { id: string }) {
	const t = useT(shellMessages);
	const lang = useLocale();
	const { path } = useRoute();
	useObservable(me); // the list depends on the scopes of the active workspace
	// Notifications are linked once, in the header, with their unread count.
	const listed = navScreens().filter((s) => s.id !== "notifications");
	return (
		<nav class="sidenav" id={id} aria-label={t("mainNav")}>
			<ul>
				{listed.map((s) => (
					<li key={s.id}>
						<Link href={s.path} aria-current={under(path, s.path) ? "page" : undefined}>
							{hasIcon(s.id) ? <Icon name={s.id} /> : null}
							{format(s.messages, lang, s.navLabel)}
						</Link>
					</li>
				))}
			</ul>
		</nav>
	);
}

function LiveRegion() {
	const said = useObservable(announcement);
	return (
		<div class="visually-hidden" role="status" aria-live="polite">
			{said?.text ?? ""}
		</div>
	);
}

/** The Menu button of a narrow screen: a disclosure of the header's controls and the navigation. */
function MenuButton({
	open,
	controls,
	onToggle,
	button,
}: {
	open: boolean;
	controls: string;
	onToggle: () => void;
	button: RefObject<HTMLButtonElement>;
}) {
	const t = useT(shellMessages);
	const count = useObservable(unreadCount);
	return (
		<button
			ref={button}
			type="button"
			class="btn btn-secondary menu-button"
			aria-expanded={open}
			aria-controls={controls}
			onClick={onToggle}
		>
			<Icon name="menu" />
			{t("menu")}
			{count ? (
				<>
					{" "}
					<span class="count">{count > 99 ? "99+" : count}</span>
					<span class="visually-hidden"> {t("unreadNotifications")}</span>
				</>
			) : null}
		</button>
	);
}

/** Whether the console is as narrow as a phone (the stylesheet's 48rem break). */
const NARROW = "(max-width: 48rem)";

/** The narrow screen's menu: closed at first, after each move, and on Escape (focus back on its button). */
function useMenu() {
	const [open, setOpen] = useState(false);
	const button = useRef<HTMLButtonElement>(null);
	const { path } = useRoute();
	useEffect(() => setOpen(false), [path]);
	useEffect(() => {
		if (!open) return;
		const onKey = (e: KeyboardEvent) => {
			if (e.key !== "Escape" || document.querySelector("dialog[open]")) return;
			setOpen(false);
			button.current?.focus();
		};
		const wide = window.matchMedia(NARROW);
		const onWide = () => !wide.matches && setOpen(false);
		document.addEventListener("keydown", onKey);
		wide.addEventListener("change", onWide);
		return () => {
			document.removeEventListener("keydown", onKey);
			wide.removeEventListener("change", onWide);
		};
	}, [open]);
	return { open, setOpen, button };
}

export function Shell({ signedIn, children }: { signedIn: boolean; children: ComponentChildren }) {
	const t = useT(shellMessages);
	const info = serverInfo();
	const menu = useMenu();
	// Only a signed-in header folds away: a signed-out one holds the language switch alone.
	const folded = signedIn && !menu.open ? " menu-closed" : "";
	return (
		<>
			<a class="skip-link" href="#main">
				{t("skip")}
			</a>
			<header class={`topbar${signedIn ? "" : " topbar-public"}${folded}`}>
				<div class="brand">
					<Link href="/" class="brand-name">
						<Mark />
						{t("appName")}
					</Link>
					<span class="brand-domain">{info.domain}</span>
				</div>
				{signedIn ? (
					<MenuButton
						open={menu.open}
						controls="console-controls console-nav"
						onToggle={() => menu.setOpen(!menu.open)}
						button={menu.button}
					/>
				) : null}
				<div class="topbar-controls" id="console-controls">
					{signedIn ? <WorkspaceSwitch /> : null}
					{signedIn ? <NotificationsLink /> : null}
					<LanguageSwitch />
					{signedIn ? <Account /> : null}
				</div>
			</header>
			<div class={`${signedIn ? "layout" : "layout layout-public"}${folded}`}>
				{signedIn ? <Nav id="console-nav" /> : null}
				<main id="main" tabIndex={-1}>
					{children}
				</main>
			</div>
			<LiveRegion />
		</>
	);
}
