// The account screen: who is signed in, and deleting the account after a passkey confirmation.
// Last in the navigation, after the passkeys: where a person looks for their own account.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/account",
	order: 95,
	messages,
	navLabel: "nav",
	load: () => import("./view.tsx"),
});
