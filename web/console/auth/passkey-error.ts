import { errorText } from "../api.ts";
import { format, type Locale } from "../i18n/index.ts";
import { shellMessages } from "../i18n/messages.ts";

/** The words for a failed ceremony: the browser's own refusals, then the server's codes. */
export function passkeyErrorText(err: unknown, lang: Locale): string {
	if (err instanceof Error && err.name === "NotAllowedError")
		return format(shellMessages, lang, "passkeyCancelled");
	if (err instanceof Error && err.name === "InvalidStateError")
		return format(shellMessages, lang, "passkeyExists");
	return errorText(err, lang);
}
