// One polite live region for the whole console: "Copied", "Saved", "Signed out".
import { Observable } from "../state.ts";

export const announcement = new Observable<{ text: string; at: number } | null>(null);

export function announce(text: string): void {
	announcement.set({ text, at: Date.now() });
}
