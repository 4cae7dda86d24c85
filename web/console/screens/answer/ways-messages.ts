// The catalogs of answering without an account here (signed-out.tsx) and from one's own server
// (remote.tsx): English and German.
import { defineMessages } from "../../i18n/index.ts";

export const waysMessages = defineMessages({
	en: {
		outIntro: "{name} on {domain} asks you to answer this request.",
		askedHeading: "What is asked",
		required: "required",
		optional: "optional",
		whyHeading: "Why you need an account",
		whyText:
			"Your answer is not sent as a copy. It stays in your own vault as a living link that {name} reads while you allow it: you can pause or revoke it at any time, and when you change an entry they see the new value. So answering needs an account with a vault: on a server of your own, or here.",
		ownHeading: "Answer from your own server",
		ownText:
			"If you have an account on another server of this kind, enter its address. You continue there, sign in, and your answer stays in your vault on that server; {domain} only gets a revocable link to it.",
		ownLabel: "Your server's address",
		ownHint: "For example vault.example.org",
		ownInvalid: "Enter a server address such as vault.example.org.",
		ownIsThis: "This is {domain} itself. To answer here, sign in or create an account below.",
		ownContinue: "Continue on my server",
		hereHeading: "Create an account here to answer",
		hereText:
			"{name} lets you create an account on {domain} for answering. It holds your vault and your answers, and you sign in with a passkey: no password. It cannot make shares of its own.",
		hereOff:
			"{name} has not allowed creating an account on {domain} for this request. Answer from your own server, or ask {name}.",
		hereUsedUp:
			"This request's link has already created as many accounts on {domain} as {name} allowed. Answer from your own server, or ask {name}.",
		emailLabel: "Your email address",
		emailInvalid: "Enter an email address such as you@example.org.",
		nameLabel: "Your name (optional)",
		hereButton: "Create the account and answer",
		creating: "Waiting for your passkey…",
		haveAccount: "Already have an account on {domain}?",
		signIn: "Sign in to answer",
		remoteNav: "Answer a request from another server",
		remoteOutText:
			"A request on {server} sent you here to answer it from your account on {domain}. Sign in to continue: your answer stays in your vault here, and {server} gets a revocable link to it.",
		remoteSignUp: "No account here yet?",
		remoteSignUpLink: "Sign up",
		remoteBadLink:
			"This link does not name a request on another server. Open the request's link again and choose “Answer from your own server”.",
		remoteIntro:
			"{name} on {server} asks you for the items below. You answer from your vault on {domain}: {server} reads your answer through a revocable link.",
		remoteVerified: "Checked by {domain}: {server} holds the key its DNS record names.",
	},
	de: {
		outIntro: "{name} auf {domain} bittet Sie, diese Anfrage zu beantworten.",
		askedHeading: "Was erfragt wird",
		required: "erforderlich",
		optional: "optional",
		whyHeading: "Warum Sie ein Konto brauchen",
		whyText:
			"Ihre Antwort wird nicht als Kopie verschickt. Sie bleibt in Ihrem eigenen Tresor, als lebendiger Link, den {name} liest, solange Sie es erlauben: Sie können ihn jederzeit pausieren oder widerrufen, und wenn Sie einen Eintrag ändern, sieht {name} den neuen Wert. Deshalb braucht eine Antwort ein Konto mit Tresor: auf einem eigenen Server oder hier.",
		ownHeading: "Von Ihrem eigenen Server antworten",
		ownText:
			"Wenn Sie ein Konto auf einem anderen Server dieser Art haben, geben Sie dessen Adresse ein. Sie machen dort weiter, melden sich an, und Ihre Antwort bleibt in Ihrem Tresor auf jenem Server; {domain} erhält nur einen widerrufbaren Link darauf.",
		ownLabel: "Adresse Ihres Servers",
		ownHint: "Zum Beispiel tresor.example.org",
		ownInvalid: "Geben Sie eine Serveradresse wie tresor.example.org ein.",
		ownIsThis:
			"Das ist {domain} selbst. Um hier zu antworten, melden Sie sich an oder legen Sie unten ein Konto an.",
		ownContinue: "Auf meinem Server weiter",
		hereHeading: "Hier ein Konto zum Antworten anlegen",
		hereText:
			"{name} erlaubt Ihnen, auf {domain} ein Konto zum Antworten anzulegen. Es enthält Ihren Tresor und Ihre Antworten, und Sie melden sich mit einem Passkey an: ohne Passwort. Eigene Freigaben kann es nicht erstellen.",
		hereOff:
			"{name} hat für diese Anfrage nicht erlaubt, auf {domain} ein Konto anzulegen. Antworten Sie von Ihrem eigenen Server, oder fragen Sie {name}.",
		hereUsedUp:
			"Über den Link dieser Anfrage wurden auf {domain} schon so viele Konten angelegt, wie {name} erlaubt hat. Antworten Sie von Ihrem eigenen Server, oder fragen Sie {name}.",
		emailLabel: "Ihre E-Mail-Adresse",
		emailInvalid: "Geben Sie eine E-Mail-Adresse wie sie@example.org ein.",
		nameLabel: "Ihr Name (optional)",
		hereButton: "Konto anlegen und antworten",
		creating: "Warte auf Ihren Passkey…",
		haveAccount: "Sie haben schon ein Konto auf {domain}?",
		signIn: "Zum Antworten anmelden",
		remoteNav: "Anfrage eines anderen Servers beantworten",
		remoteOutText:
			"Eine Anfrage auf {server} hat Sie hierher geschickt, um sie mit Ihrem Konto auf {domain} zu beantworten. Melden Sie sich an, um fortzufahren: Ihre Antwort bleibt hier in Ihrem Tresor, und {server} erhält einen widerrufbaren Link darauf.",
		remoteSignUp: "Noch kein Konto hier?",
		remoteSignUpLink: "Registrieren",
		remoteBadLink:
			"Dieser Link nennt keine Anfrage auf einem anderen Server. Öffnen Sie den Link der Anfrage noch einmal und wählen Sie „Von Ihrem eigenen Server antworten“.",
		remoteIntro:
			"{name} auf {server} bittet Sie um die folgenden Angaben. Sie antworten aus Ihrem Tresor auf {domain}: {server} liest Ihre Antwort über einen widerrufbaren Link.",
		remoteVerified: "Geprüft von {domain}: {server} hat den Schlüssel, den sein DNS-Eintrag nennt.",
	},
});
