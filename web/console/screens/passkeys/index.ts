import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";

export default defineScreen({
	path: "/passkeys",
	order: 90,
	messages,
	navLabel: "nav",
	load: () => import("./view.tsx"),
});
