// The words of changing a share (edit, make a copy, see what visitors see), in English and German.
import { defineMessages } from "../../i18n/index.ts";

export const changeMessages = defineMessages({
	en: {
		edit: "Edit",
		copy: "Make a copy",
		preview: "See what visitors see",
		editTitle: "Edit “{label}”",
		editIntro:
			"Changes apply from the next read. The address stays the same; to hand out a new one, make a copy.",
		editExpired:
			"This share has expired: raising its limits does not open it again. Make a copy for a new address with the same settings.",
		passwordNew: "New password (optional)",
		passwordNewHint: "Leave it empty to keep the current password.",
		passwordRemove: "Remove the password",
		passwordRemoveHint: "Anyone with the link can then open the share without one.",
		capViewsTaken: {
			one: "Read {count} time so far. A cap at or below that ends the share at once (it expires).",
			other: "Read {count} times so far. A cap at or below that ends the share at once (it expires).",
		},
		expiresEditPast: "Choose a time in the future. To end the share now, pause or revoke it.",
		save: "Save changes",
		cancel: "Cancel",
		saved: "Changes saved",
		unchanged: "Nothing was changed",
		lowerTitle: "End this share now?",
		lowerText: {
			one: "“{label}” has been read {views} time. A cap of {count} view ends it now: it expires and never opens again, even if you raise the cap later.",
			other:
				"“{label}” has been read {views} times. A cap of {count} views ends it now: it expires and never opens again, even if you raise the cap later.",
		},
		lowerConfirm: "Lower the cap and end it",
		copyTitle: "Copy of “{label}”",
		copyOf: "{label} (copy)",
		copyIntro:
			"A copy gets a new address and starts with no views; the original stays as it is. Check the settings and create it.",
		copyIntroPassword:
			"A copy gets a new address and starts with no views; the original stays as it is. The original has a password, which is never shown: type one for the copy, or leave it empty for none.",
		previewTitle: "What visitors see: {label}",
		previewIntro:
			"This is the share page as a visitor sees it once through its gates. Looking here takes no view and is not in the read log. Files are listed without their download buttons.",
		previewGates: "Visitors first type the password or prove their identity, as you set it.",
		previewFrame: "The share page of “{label}”",
		backToShare: "Back to the share",
	},
	de: {
		edit: "Bearbeiten",
		copy: "Kopie erstellen",
		preview: "Ansehen wie Besucher",
		editTitle: "„{label}“ bearbeiten",
		editIntro:
			"Änderungen gelten ab dem nächsten Lesen. Die Adresse bleibt gleich; für eine neue Adresse erstellen Sie eine Kopie.",
		editExpired:
			"Diese Freigabe ist abgelaufen: Höhere Grenzen öffnen sie nicht wieder. Erstellen Sie eine Kopie für eine neue Adresse mit denselben Einstellungen.",
		passwordNew: "Neues Passwort (optional)",
		passwordNewHint: "Leer lassen, um das bisherige Passwort zu behalten.",
		passwordRemove: "Passwort entfernen",
		passwordRemoveHint: "Dann kann jede Person mit dem Link die Freigabe ohne Passwort öffnen.",
		capViewsTaken: {
			one: "Bisher {count}-mal gelesen. Eine Höchstzahl bis dahin beendet die Freigabe sofort (sie läuft ab).",
			other:
				"Bisher {count}-mal gelesen. Eine Höchstzahl bis dahin beendet die Freigabe sofort (sie läuft ab).",
		},
		expiresEditPast:
			"Wählen Sie einen Zeitpunkt in der Zukunft. Um die Freigabe sofort zu beenden, pausieren oder widerrufen Sie sie.",
		save: "Änderungen speichern",
		cancel: "Abbrechen",
		saved: "Änderungen gespeichert",
		unchanged: "Nichts wurde geändert",
		lowerTitle: "Diese Freigabe jetzt beenden?",
		lowerText: {
			one: "„{label}“ wurde {views}-mal gelesen. Eine Höchstzahl von {count} Aufruf beendet sie jetzt: Sie läuft ab und öffnet sich nie wieder, auch wenn Sie die Höchstzahl später erhöhen.",
			other:
				"„{label}“ wurde {views}-mal gelesen. Eine Höchstzahl von {count} Aufrufen beendet sie jetzt: Sie läuft ab und öffnet sich nie wieder, auch wenn Sie die Höchstzahl später erhöhen.",
		},
		lowerConfirm: "Senken und beenden",
		copyTitle: "Kopie von „{label}“",
		copyOf: "{label} (Kopie)",
		copyIntro:
			"Eine Kopie erhält eine neue Adresse und beginnt ohne Aufrufe; das Original bleibt, wie es ist. Prüfen Sie die Einstellungen und erstellen Sie sie.",
		copyIntroPassword:
			"Eine Kopie erhält eine neue Adresse und beginnt ohne Aufrufe; das Original bleibt, wie es ist. Das Original hat ein Passwort, das nie angezeigt wird: Geben Sie eines für die Kopie ein oder lassen Sie das Feld leer.",
		previewTitle: "Was Besucher sehen: {label}",
		previewIntro:
			"So sieht eine besuchende Person die Freigabeseite, nachdem sie die Schranken passiert hat. Das Ansehen hier zählt keinen Aufruf und steht nicht im Leseprotokoll. Dateien stehen ohne ihre Download-Knöpfe da.",
		previewGates:
			"Besucher geben zuerst das Passwort ein oder weisen ihre Identität nach, wie Sie es eingestellt haben.",
		previewFrame: "Die Freigabeseite von „{label}“",
		backToShare: "Zurück zur Freigabe",
	},
});
