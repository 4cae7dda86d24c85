// The workspaces screen: the account's workspaces, making, renaming and deleting one, and choosing
// the active one (the same choice as the header's switcher).
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/workspaces",
	order: 60,
	messages,
	navLabel: "nav",
	scope: "workspace:read",
	load: () => import("./view.tsx"),
});
