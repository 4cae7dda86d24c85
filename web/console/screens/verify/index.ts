// Confirming an e-mail address (the link a verify mail carries, /app/verify#<token>; not in the
// navigation). Opened signed out too: the link is the capability, and the token rides in the
// fragment, so no server log keeps it.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";

export default defineScreen({
	path: "/verify",
	order: 1000,
	hidden: true,
	public: true,
	messages,
	navLabel: "nav",
	load: () => import("./view.tsx"),
});
