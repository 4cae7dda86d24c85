// Routing and the session's life: a hand-off from the /passkey page is redeemed, a stored session is
// checked with /api/auth/me, and each path is given to the screen that owns it.
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { loadMe, redeem } from "./auth/passkey.ts";
import { SignIn } from "./auth/signin.tsx";
import { SignUp } from "./auth/signup.tsx";
import { format, useLocale, useT } from "./i18n/index.ts";
import { shellMessages } from "./i18n/messages.ts";
import { refreshUnread, watchUnread } from "./notifications-count.ts";
import { Link, navigate, type Route, under, useRoute } from "./router.ts";
import type { ScreenProps } from "./screen.ts";
import { activeWorkspace, askOpenTabs, endSession, me, sessionToken, takeHandoff } from "./session.ts";
import { navScreens, orderedScreens, type RegisteredScreen, Shell } from "./shell.tsx";
import { useObservable } from "./state.ts";
import { Loading, Notice, Page } from "./ui/index.ts";

const loaded = new Map<string, ComponentType<ScreenProps>>();

function ScreenHost({ screen, route }: { screen: RegisteredScreen; route: Route }) {
	const t = useT(shellMessages);
	const [component, setComponent] = useState<ComponentType<ScreenProps> | undefined>(() =>
		loaded.get(screen.id),
	);
	const [failed, setFailed] = useState(false);
	useEffect(() => {
		if (loaded.has(screen.id)) {
			setComponent(() => loaded.get(screen.id));
			return;
		}
		setComponent(undefined);
		let live = true;
		screen.load().then(
			(module) => {
				loaded.set(screen.id, module.default);
				if (live) setComponent(() => module.default);
			},
			() => live && setFailed(true),
		);
		return () => {
			live = false;
		};
	}, [screen]);
	if (failed) return <p role="alert">{t("loadFailed")}</p>;
	if (!component) return <Loading />;
	const Component = component;
	return <Component route={route} subpath={route.path.slice(screen.path.length)} />;
}

function NotFound() {
	const t = useT(shellMessages);
	return (
		<Page title={t("notFoundTitle")}>
			<p>{t("notFoundText")}</p>
			<p>
				<Link href="/">{t("home")}</Link>
			</p>
		</Page>
	);
}

function Redirect({ to }: { to: string }) {
	useEffect(() => navigate(to, { replace: true, redirect: true }), [to]);
	return null;
}

const PUBLIC = ["/signin", "/signup"];

function SignedIn({ route }: { route: Route }) {
	const lang = useLocale();
	const t = useT(shellMessages);
	const workspace = useObservable(activeWorkspace);
	useEffect(() => watchUnread(), []);
	// Each screen change asks again, so what happened meanwhile shows in the header.
	useEffect(() => void refreshUnread(), [route.path]);
	const screen = orderedScreens.find((s) => under(route.path, s.path));
	useEffect(() => {
		document.title = screen
			? `${format(screen.messages, lang, screen.navLabel)} – ${t("appName")}`
			: t("appName");
	});
	if (route.path === "/" || PUBLIC.includes(route.path)) {
		const first = navScreens()[0];
		return first ? <Redirect to={first.path} /> : <NotFound />;
	}
	// Keyed by workspace: switching workspaces starts the screen afresh with the new one's data.
	return screen ? (
		<ScreenHost key={`${screen.id}:${workspace ?? ""}`} screen={screen} route={route} />
	) : (
		<NotFound />
	);
}

function SignedOut({ route }: { route: Route }) {
	const t = useT(shellMessages);
	const lang = useLocale();
	const open = orderedScreens.find((s) => s.public && under(route.path, s.path));
	useEffect(() => {
		const title = open
			? format(open.messages, lang, open.navLabel)
			: t(route.path === "/signup" ? "signUpTitle" : "signInTitle");
		document.title = `${title} – ${t("appName")}`;
	});
	if (open) return <ScreenHost screen={open} route={route} />;
	if (route.path === "/signup") return <SignUp ticket={route.query.get("ticket")} />;
	if (route.path !== "/signin") {
		// The query goes along: a tool's link handed over by `svc open` is `/connections/connect?link=…`.
		const query = route.query.toString();
		const next =
			route.path === "/" ? "" : `?next=${encodeURIComponent(query ? `${route.path}?${query}` : route.path)}`;
		return <Redirect to={`/signin${next}`} />;
	}
	const next = route.query.get("next");
	return <SignIn next={next?.startsWith("/") && !next.startsWith("//") ? next : "/"} />;
}

export function App() {
	const t = useT(shellMessages);
	const route = useRoute();
	const token = useObservable(sessionToken);
	const account = useObservable(me);
	const [starting, setStarting] = useState(true);
	const [handoffFailed, setHandoffFailed] = useState(false);

	useEffect(() => {
		let live = true;
		async function start() {
			const handoff = takeHandoff();
			if (handoff) {
				try {
					await redeem(handoff.code, handoff.verifier);
				} catch {
					setHandoffFailed(true);
				}
			}
			// A new tab of this browser takes the session of an open one rather than signing in again.
			if (!sessionToken.get()) await askOpenTabs();
			if (sessionToken.get()) {
				try {
					await loadMe();
				} catch {
					// An ended session was signed out by the client already; anything else too.
					if (sessionToken.get()) endSession(null);
				}
			}
			if (live) setStarting(false);
		}
		void start();
		return () => {
			live = false;
		};
	}, []);

	// A session token that appears later (sign-in) loads the account in the sign-in screen itself.
	const signedIn = Boolean(token && account);
	if (starting) {
		return (
			<Shell signedIn={false}>
				<Loading />
			</Shell>
		);
	}
	return (
		<Shell signedIn={signedIn}>
			{handoffFailed && !signedIn ? <Notice>{t("handoffFailed")}</Notice> : null}
			{signedIn ? <SignedIn route={route} /> : <SignedOut route={route} />}
		</Shell>
	);
}
