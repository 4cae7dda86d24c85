// Icons from lucide (lucide-static, ISC), bundled at build time: each named import is one SVG
// string, and esbuild keeps only the ones named here (the package has no side effects). An icon
// is decorative (aria-hidden): the words beside it carry the meaning.
import {
	ArrowLeftRight,
	BadgeCheck,
	Bell,
	Briefcase,
	Cable,
	Check,
	Copy,
	Download,
	Inbox,
	KeyRound,
	KeySquare,
	Languages,
	LayoutTemplate,
	LockKeyhole,
	LogIn,
	LogOut,
	Menu,
	Plus,
	Share2,
	Stamp,
	Upload,
	UserPlus,
	UserRound,
	Users,
	WalletCards,
} from "lucide-static";

const ICONS = {
	account: UserRound,
	apikeys: KeyRound,
	attestations: Stamp,
	bell: Bell,
	check: Check,
	connections: Cable,
	copy: Copy,
	credentials: WalletCards,
	download: Download,
	identities: BadgeCheck,
	invite: UserPlus,
	language: Languages,
	members: Users,
	menu: Menu,
	passkeys: KeySquare,
	plus: Plus,
	requests: Inbox,
	shares: Share2,
	signIn: LogIn,
	signOut: LogOut,
	templates: LayoutTemplate,
	transfer: ArrowLeftRight,
	upload: Upload,
	vault: LockKeyhole,
	workspaces: Briefcase,
} as const;

export type IconName = keyof typeof ICONS;

export function hasIcon(name: string): name is IconName {
	return Object.hasOwn(ICONS, name);
}

/** An icon as tall as the text beside it, hidden from assistive technology. */
export function Icon({ name }: { name: IconName }) {
	// The markup is lucide's own, fixed at build time: no value of a person's reaches it.
	return <span class="icon" aria-hidden="true" dangerouslySetInnerHTML={{ __html: ICONS[name] }} />;
}

/** The product's mark (web/favicon.svg draws the same): decorative, the name follows it. */
export function Mark() {
	return (
		<svg class="mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
			<rect class="mark-tile" width="32" height="32" rx="8" />
			<path class="mark-glyph" d={MARK_ARC} stroke-width="3" stroke-linecap="round" />
			<circle class="mark-dot" cx="16" cy="16" r="3.25" />
		</svg>
	);
}

/** An open ring (a grant that can be cut) around a dot (the live value). */
export const MARK_ARC = "M22 10A8.5 8.5 0 1 0 24.5 16";
