import { defineMessages } from "../../i18n/index.ts";

export const messages = defineMessages({
	en: {
		nav: "Account",
		name: "Name",
		email: "Email",
		created: "Created",
		deleteTitle: "Delete your account",
		deleteIntro: "Deleting your account cannot be undone. What goes with it:",
		deletePersonal:
			"your personal workspace with everything in it: records, files, templates, shares and requests; its identities are revoked, so they verify as revoked and its shares stop working;",
		deleteShared:
			"your place in the workspaces you share with others, and the API keys you made there; what you made there stays with them;",
		deleteAccess: "your passkeys, your sessions on every device and your API keys.",
		deleteOwners:
			"While you are the last owner of a shared workspace, hand it over to another member or delete it first.",
		deleteButton: "Delete my account",
		confirmTitle: "Delete your account for good?",
		confirmText: "Your browser asks for one of your passkeys next. Once you confirm, the account is gone.",
		confirmButton: "Confirm with a passkey",
		waiting: "Waiting for your passkey…",
		lastOwner:
			"Your account was not deleted: you are the last owner of these workspaces. Hand each over to another member or delete it, then try again.",
		openMembers: "Members of “{name}”",
		noticesTitle: "Notifications",
		noticesIntro:
			"Choose what you are told about in the console. Each kind is on until you turn it off; turning one off stops new ones, those you have stay.",
		noticesLegend: "Tell me when",
		noticeOn: "You will be notified: {kind}",
		noticeOff: "You will no longer be notified: {kind}",
		mailLegend: "Also tell me by e-mail when",
		mailOn: "You will also get an e-mail: {kind}",
		mailOff: "No more e-mails: {kind}",
		mailLanguage: "Language of your e-mails",
		mailLanguageUnset: "Not chosen (the sender's)",
		mailLanguageSaved: "Language of your e-mails saved.",
		verified: "Your address {email} is confirmed.",
		unverified:
			"Your address {email} is not confirmed yet. E-mails about notifications go only to a confirmed address.",
		verifySend: "Send me a confirmation link",
		verifySent: "A confirmation link is on its way to {email}. It works for 24 hours.",
	},
	de: {
		nav: "Konto",
		name: "Name",
		email: "E-Mail",
		created: "Angelegt",
		deleteTitle: "Konto löschen",
		deleteIntro: "Das Löschen Ihres Kontos lässt sich nicht rückgängig machen. Damit geht:",
		deletePersonal:
			"Ihr persönlicher Arbeitsbereich mit allem darin: Einträge, Dateien, Vorlagen, Freigaben und Anfragen; seine Identitäten werden widerrufen, sie gelten dann als widerrufen und seine Freigaben funktionieren nicht mehr;",
		deleteShared:
			"Ihr Platz in den Arbeitsbereichen, die Sie mit anderen teilen, und die API-Schlüssel, die Sie dort angelegt haben; was Sie dort angelegt haben, bleibt dort;",
		deleteAccess: "Ihre Passkeys, Ihre Sitzungen auf allen Geräten und Ihre API-Schlüssel.",
		deleteOwners:
			"Solange Sie der letzte Eigentümer eines geteilten Arbeitsbereichs sind, übergeben Sie ihn zuerst an ein anderes Mitglied oder löschen Sie ihn.",
		deleteButton: "Mein Konto löschen",
		confirmTitle: "Ihr Konto endgültig löschen?",
		confirmText:
			"Als Nächstes fragt Ihr Browser nach einem Ihrer Passkeys. Sobald Sie bestätigen, ist das Konto gelöscht.",
		confirmButton: "Mit Passkey bestätigen",
		waiting: "Warte auf Ihren Passkey…",
		lastOwner:
			"Ihr Konto wurde nicht gelöscht: Sie sind der letzte Eigentümer dieser Arbeitsbereiche. Übergeben Sie jeden an ein anderes Mitglied oder löschen Sie ihn, und versuchen Sie es dann erneut.",
		openMembers: "Mitglieder von „{name}“",
		noticesTitle: "Benachrichtigungen",
		noticesIntro:
			"Wählen Sie, worüber die Konsole Sie benachrichtigt. Jede Art ist eingeschaltet, bis Sie sie ausschalten; danach kommen keine neuen, vorhandene bleiben.",
		noticesLegend: "Benachrichtigen, wenn",
		noticeOn: "Sie werden benachrichtigt: {kind}",
		noticeOff: "Sie werden nicht mehr benachrichtigt: {kind}",
		mailLegend: "Zusätzlich per E-Mail benachrichtigen, wenn",
		mailOn: "Sie erhalten zusätzlich eine E-Mail: {kind}",
		mailOff: "Keine E-Mails mehr: {kind}",
		mailLanguage: "Sprache Ihrer E-Mails",
		mailLanguageUnset: "Nicht gewählt (die des Absenders)",
		mailLanguageSaved: "Sprache Ihrer E-Mails gespeichert.",
		verified: "Ihre Adresse {email} ist bestätigt.",
		unverified:
			"Ihre Adresse {email} ist noch nicht bestätigt. E-Mails zu Benachrichtigungen gehen nur an eine bestätigte Adresse.",
		verifySend: "Bestätigungslink senden",
		verifySent: "Ein Bestätigungslink ist unterwegs an {email}. Er gilt 24 Stunden.",
	},
});
