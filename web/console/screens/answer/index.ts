// Answering a request (reached by the link a requester sends, /app/answer/<slug>; not in the
// navigation): a form built from the request's probe, filled from the responder's own vault.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/answer",
	order: 1000,
	hidden: true,
	// Opened signed out too: it says what is asked and how to answer without an account here.
	public: true,
	messages,
	navLabel: "nav",
	load: () => import("./view.tsx"),
});
