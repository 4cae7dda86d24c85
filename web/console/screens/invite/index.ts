// Taking an invitation (the link a member sends, /app/invite#<token>; not in the navigation): what
// it is for, then joining signed in, or signing up with a passkey from it. Opened signed out too:
// a redirect to the sign-in screen would lose the token, which rides in the fragment.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/invite",
	order: 1000,
	hidden: true,
	public: true,
	messages,
	navLabel: "nav",
	load: () => import("./view.tsx"),
});
