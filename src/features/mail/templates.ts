// What each mail says, in English and German: a subject, a plain-text body and a simple HTML part
// with the same paragraphs (every value escaped). A template names what its params hold (names,
// labels, a notice's words), never a vault value; the one link a mail carries comes in apart.
import type { Lang } from "../../http/language.ts";
import { escapeHtml } from "../../lib/html.ts";
import { headerText } from "./addresses.ts";

export type Template = "invitation" | "request_link" | "notice" | "ticket" | "verify";

export interface Rendered {
	subject: string;
	text: string;
	html: string;
}

type Params = Record<string, string>;
/** Paragraphs; `LINK` alone in a paragraph stands for the mail's link. */
type Body = { subject: string; paragraphs: string[] };
type Writer = (p: Params, domain: string) => Body;

const LINK = "\u0000link";

const ROLE: Record<Lang, Record<string, string>> = {
	en: { owner: "owner", admin: "admin", member: "member", viewer: "viewer" },
	de: { owner: "Eigentümer", admin: "Admin", member: "Mitglied", viewer: "Betrachter" },
};

const NOTICE_KIND: Record<Lang, Record<string, string>> = {
	en: {
		request_answered: "A request was answered",
		answer_revoked: "An answer was revoked",
		callback_failed: "A callback failed",
		link_expired: "A share ran out",
		link_revoked: "A share was revoked",
		member_joined: "Someone joined a workspace",
		identity_revoked: "An identity was revoked",
		credential_revoked: "A credential was revoked",
		mail_failed: "A mail could not be delivered",
	},
	de: {
		request_answered: "Eine Anfrage wurde beantwortet",
		answer_revoked: "Eine Antwort wurde widerrufen",
		callback_failed: "Ein Callback ist fehlgeschlagen",
		link_expired: "Eine Freigabe ist abgelaufen",
		link_revoked: "Eine Freigabe wurde widerrufen",
		member_joined: "Jemand ist einem Arbeitsbereich beigetreten",
		identity_revoked: "Eine Identität wurde widerrufen",
		credential_revoked: "Ein Nachweis wurde widerrufen",
		mail_failed: "Eine E-Mail konnte nicht zugestellt werden",
	},
};

const writers: Record<Lang, Record<Template, Writer>> = {
	en: {
		invitation: (p, d) => ({
			subject: `${p.inviter} invites you to "${p.workspace}" on ${d}`,
			paragraphs: [
				`${p.inviter} invites you to join the workspace "${p.workspace}" on ${d} as ${ROLE.en[p.role ?? ""] ?? p.role}.`,
				"Open this link to accept. It works once, for seven days:",
				LINK,
				"If you did not expect this invitation, ignore this mail.",
			],
		}),
		request_link: (p, d) => ({
			subject: `${p.sender} asks you for information: "${p.label}"`,
			paragraphs: [
				`${p.sender} (${p.workspace}, on ${d}) asks you to answer the request "${p.label}".`,
				"Open this link to see what is asked and to answer:",
				LINK,
				"You decide what you share; you can revoke an answer later.",
			],
		}),
		notice: (p, d) => ({
			subject: `${NOTICE_KIND.en[p.kind ?? ""] ?? p.title}: ${p.title}`,
			paragraphs: [
				p.title ?? "",
				p.body ?? "",
				"See your notifications:",
				LINK,
				`You get this mail because you turned on mail for this kind of notice on ${d}; turn it off in your account's notice settings.`,
			],
		}),
		ticket: (p, d) => ({
			subject: `Your sign-in link for ${d}`,
			paragraphs: [
				p.kind === "add"
					? `The operator of ${d} sent you a link to add a passkey to your account.`
					: `The operator of ${d} sent you a link to create your account with a passkey.`,
				"It works once, for fifteen minutes:",
				LINK,
				"If you did not ask for this, ignore this mail.",
			],
		}),
		verify: (_p, d) => ({
			subject: `Confirm your e-mail address for ${d}`,
			paragraphs: [
				`Open this link to confirm that this address belongs to your account on ${d}. It works once, for 24 hours:`,
				LINK,
				"If you did not ask for this, ignore this mail.",
			],
		}),
	},
	de: {
		invitation: (p, d) => ({
			subject: `${p.inviter} lädt Sie zu „${p.workspace}“ auf ${d} ein`,
			paragraphs: [
				`${p.inviter} lädt Sie in den Arbeitsbereich „${p.workspace}“ auf ${d} ein, als ${ROLE.de[p.role ?? ""] ?? p.role}.`,
				"Öffnen Sie diesen Link, um anzunehmen. Er gilt einmal, sieben Tage lang:",
				LINK,
				"Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie diese E-Mail.",
			],
		}),
		request_link: (p, d) => ({
			subject: `${p.sender} bittet Sie um Angaben: „${p.label}“`,
			paragraphs: [
				`${p.sender} (${p.workspace}, auf ${d}) bittet Sie, die Anfrage „${p.label}“ zu beantworten.`,
				"Öffnen Sie diesen Link, um zu sehen, was gefragt ist, und zu antworten:",
				LINK,
				"Sie entscheiden, was Sie teilen; eine Antwort können Sie später widerrufen.",
			],
		}),
		notice: (p, d) => ({
			subject: `${NOTICE_KIND.de[p.kind ?? ""] ?? p.title}: ${p.title}`,
			paragraphs: [
				p.title ?? "",
				p.body ?? "",
				"Ihre Benachrichtigungen:",
				LINK,
				`Sie erhalten diese E-Mail, weil Sie auf ${d} E-Mails für diese Art von Benachrichtigung eingeschaltet haben; ausschalten können Sie das in den Benachrichtigungseinstellungen Ihres Kontos.`,
			],
		}),
		ticket: (p, d) => ({
			subject: `Ihr Anmeldelink für ${d}`,
			paragraphs: [
				p.kind === "add"
					? `Der Betreiber von ${d} hat Ihnen einen Link geschickt, mit dem Sie Ihrem Konto einen Passkey hinzufügen.`
					: `Der Betreiber von ${d} hat Ihnen einen Link geschickt, mit dem Sie Ihr Konto mit einem Passkey anlegen.`,
				"Er gilt einmal, fünfzehn Minuten lang:",
				LINK,
				"Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail.",
			],
		}),
		verify: (_p, d) => ({
			subject: `Bestätigen Sie Ihre E-Mail-Adresse für ${d}`,
			paragraphs: [
				`Öffnen Sie diesen Link, um zu bestätigen, dass diese Adresse zu Ihrem Konto auf ${d} gehört. Er gilt einmal, 24 Stunden lang:`,
				LINK,
				"Wenn Sie das nicht angefordert haben, ignorieren Sie diese E-Mail.",
			],
		}),
	},
};

/** The mail for `template` in `lang`, its link in place. */
export function render(
	template: Template,
	lang: Lang,
	params: Params,
	link: string,
	domain: string,
): Rendered {
	const body = writers[lang][template](params, domain);
	const paragraphs = body.paragraphs.filter((p) => p !== "");
	const text = `${paragraphs.map((p) => (p === LINK ? link : p)).join("\n\n")}\n\n-- \n${domain}\n`;
	const html = `<!doctype html><html lang="${lang}"><body>${paragraphs
		.map((p) =>
			p === LINK ? `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>` : `<p>${escapeHtml(p)}</p>`,
		)
		.join("")}<p>-- <br>${escapeHtml(domain)}</p></body></html>`;
	return { subject: headerText(body.subject), text, html };
}
