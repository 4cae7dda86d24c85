import { defineMessages } from "../../i18n/index.ts";

export const messages = defineMessages({
	en: {
		nav: "Confirm e-mail address",
		confirmed: "Your address {email} is confirmed.",
		what: "Services you sign in to with this server are now told that this address is verified.",
		refusedTitle: "This link cannot be used",
		noToken:
			"This address holds no confirmation link. Open the whole link from the mail, including the part after “#”.",
		again: "You can ask for a new link in your account.",
		account: "Go to your account",
		home: "Go to the start",
	},
	de: {
		nav: "E-Mail-Adresse bestätigen",
		confirmed: "Ihre Adresse {email} ist bestätigt.",
		what: "Dienste, bei denen Sie sich mit diesem Server anmelden, erfahren jetzt, dass diese Adresse bestätigt ist.",
		refusedTitle: "Dieser Link ist nicht verwendbar",
		noToken:
			"Diese Adresse enthält keinen Bestätigungslink. Öffnen Sie den ganzen Link aus der E-Mail, auch den Teil nach „#“.",
		again: "Einen neuen Link können Sie in Ihrem Konto anfordern.",
		account: "Zu Ihrem Konto",
		home: "Zum Start",
	},
});
