import { defineMessages } from "../../i18n/index.ts";

export const messages = defineMessages({
	en: {
		nav: "Passkeys",
		intro:
			"The passkeys that open your account. Keep at least two (a phone and a laptop, or a security key) so losing one device does not lock you out.",
		caption: "Your passkeys",
		name: "Name",
		created: "Added",
		lastUsed: "Last used",
		actions: "Actions",
		remove: "Remove",
		removeNamed: "Remove {name}",
		removeTitle: "Remove this passkey?",
		removeText: "“{name}” will no longer open your account. This cannot be undone.",
		removed: "Passkey removed",
		addHere: "Add a passkey on this device",
		addOther: "Add a passkey on another device",
		addHereTitle: "Add a passkey on this device",
		addHereText: "Use a security key or another passkey provider on this device.",
		passkeyName: "Name for the new passkey (optional)",
		create: "Create the passkey",
		added: "Passkey added",
		linkTitle: "Add a passkey on another device",
		linkText:
			"Open this one-time link on the other device (for example your phone). It works once, until {time}.",
		link: "One-time link",
		empty: "No passkeys",
	},
	de: {
		nav: "Passkeys",
		intro:
			"Die Passkeys, die Ihr Konto öffnen. Behalten Sie mindestens zwei (Telefon und Laptop oder einen Sicherheitsschlüssel), damit Sie ein verlorenes Gerät nicht aussperrt.",
		caption: "Ihre Passkeys",
		name: "Name",
		created: "Hinzugefügt",
		lastUsed: "Zuletzt benutzt",
		actions: "Aktionen",
		remove: "Entfernen",
		removeNamed: "{name} entfernen",
		removeTitle: "Diesen Passkey entfernen?",
		removeText: "„{name}“ öffnet Ihr Konto dann nicht mehr. Das lässt sich nicht rückgängig machen.",
		removed: "Passkey entfernt",
		addHere: "Passkey auf diesem Gerät hinzufügen",
		addOther: "Passkey auf einem anderen Gerät hinzufügen",
		addHereTitle: "Passkey auf diesem Gerät hinzufügen",
		addHereText:
			"Verwenden Sie einen Sicherheitsschlüssel oder einen anderen Passkey-Anbieter auf diesem Gerät.",
		passkeyName: "Name des neuen Passkeys (optional)",
		create: "Passkey erstellen",
		added: "Passkey hinzugefügt",
		linkTitle: "Passkey auf einem anderen Gerät hinzufügen",
		linkText:
			"Öffnen Sie diesen Einmal-Link auf dem anderen Gerät (zum Beispiel Ihrem Telefon). Er gilt einmal, bis {time}.",
		link: "Einmal-Link",
		empty: "Keine Passkeys",
	},
});
