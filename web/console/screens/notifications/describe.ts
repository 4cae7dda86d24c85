// What a notification says in the reader's language, and where its link goes: built from its kind
// and the ids in `data` (the server's English title is only the fallback for a kind we do not know).
import type { Translate } from "../../i18n/index.ts";
import type { Wire } from "../../wire.ts";
import type { messages } from "./messages.ts";

export type Notification = Wire<"Notification">;

type Key = keyof (typeof messages)["en"];
type T = Translate<Key>;

export const KINDS = [
	"request_answered",
	"answer_revoked",
	"callback_failed",
	"link_expired",
	"link_revoked",
	"member_joined",
	"identity_revoked",
	"credential_revoked",
	"mail_failed",
] as const;
export type Kind = (typeof KINDS)[number];

const BY = ["owner", "tool", "system"] as const;
/** The mails a `mail_failed` notice may name (`data.mail`). */
const MAILS = ["invitation", "request_link", "notice", "ticket", "verify"] as const;
const ROLES = ["owner", "admin", "member"] as const;

export interface Described {
	/** A kind this console knows: the heading and text are in the reader's language. */
	known: boolean;
	heading: string;
	/** What happened, in words, naming the thing; null: the server's title stands beside the heading. */
	text: string | null;
	link: { href: string; label: string } | null;
}

const str = (v: unknown): string => (typeof v === "string" ? v : "");
const id = (v: unknown): string => encodeURIComponent(str(v));

function link(href: string, ok: boolean, label: string) {
	return ok ? { href, label } : null;
}

function what(kind: Kind, d: Record<string, unknown>, t: T): Pick<Described, "text" | "link"> {
	switch (kind) {
		case "request_answered":
		case "answer_revoked":
		case "callback_failed": {
			const request = str(d.request) || str(d.requestId);
			const label = str(d.label);
			const who = str(d.senderName) || str(d.server) || t("someone");
			const text = !label
				? null
				: kind === "request_answered"
					? t(d.updated === true ? "answerUpdated" : "answered", { who, label })
					: kind === "answer_revoked"
						? t("answerRevoked", { label })
						: t("callbackFailed", { label, target: str(d.target) || "?" }) + reasonText(d, t);
			return {
				text,
				link: link(`/requests/${encodeURIComponent(request)}`, request !== "", t("open_request")),
			};
		}
		case "link_expired":
		case "link_revoked": {
			const label = str(d.label) || t("untitled");
			const by = BY.find((b) => b === d.by);
			const text =
				kind === "link_revoked"
					? typeof d.label === "string"
						? `${t("linkRevoked", { label })}${by ? ` ${t(`by_${by}`)}` : ""}`
						: null
					: d.reason === "views"
						? t("usedUp", { count: Number(d.maxViews ?? d.views ?? 0), label })
						: t("expired", { label });
			return { text, link: link(`/shares/${id(d.link)}`, str(d.link) !== "", t("open_share")) };
		}
		case "member_joined": {
			const name = str(d.name) || str(d.email) || t("someone");
			const role = ROLES.find((r) => r === d.role);
			const text = role ? t("joined", { name, role: t(`role_${role}`) }) : t("joinedPlain", { name });
			return { text, link: { href: "/members", label: t("open_members") } };
		}
		case "identity_revoked":
			return {
				text: t("identityRevoked", { name: str(d.name) }),
				link: link(`/identities/${id(d.identity)}`, str(d.identity) !== "", t("open_identity")),
			};
		case "credential_revoked":
			return d.as === "holder"
				? {
						text: t("credentialHolder"),
						link: link(`/identities/${id(d.identity)}`, str(d.identity) !== "", t("open_identity")),
					}
				: {
						text: t("credentialIssuer", { label: str(d.label) || str(d.type) }),
						link: { href: "/attestations", label: t("open_attestations") },
					};
		case "mail_failed": {
			const mail = MAILS.find((m) => m === d.mail);
			return {
				text: t("mailFailed", {
					mail: t(mail ? `mail_${mail}` : "mail_other"),
					recipient: str(d.recipient) || "?",
					count: Number(d.attempts ?? 1),
				}),
				link: mail === "invitation" ? { href: "/members", label: t("open_members") } : null,
			};
		}
	}
}

const REASONS = ["blocked", "timeout", "unreachable", "status", "interrupted"] as const;

/** Why a callback failed, in words; a status the receiver answered is named as a number. */
function reasonText(d: Record<string, unknown>, t: T): string {
	const reason = REASONS.find((r) => r === d.reason);
	if (!reason) return "";
	return ` ${t(`reason_${reason}`, { status: Number(d.status ?? 0) })}`;
}

export function describe(item: Notification, t: T): Described {
	const kind = KINDS.find((k) => k === item.kind);
	if (!kind) return { known: false, heading: item.title, text: null, link: null };
	return { known: true, heading: t(`kind_${kind}`), ...what(kind, item.data, t) };
}
