import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/connections",
	order: 60,
	messages,
	navLabel: "nav",
	scope: "link:read",
	load: () => import("./view.tsx"),
});
