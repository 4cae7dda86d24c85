import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";

export default defineScreen({
	path: "/members",
	order: 60,
	messages,
	navLabel: "nav",
	scope: "member:read",
	load: () => import("./view.tsx"),
});
