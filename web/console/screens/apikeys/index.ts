import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";

export default defineScreen({
	path: "/keys",
	order: 80,
	messages,
	navLabel: "nav",
	scope: "apikey:read",
	load: () => import("./view.tsx"),
});
