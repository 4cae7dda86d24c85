import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";

export default defineScreen({
	path: "/notifications",
	order: 70,
	messages,
	navLabel: "nav",
	scope: "notification:read",
	load: () => import("./view.tsx"),
});
