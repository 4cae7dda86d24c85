// The requests screen: the workspace's data requests, making one (from a template or written by
// hand, with a callback tested on the spot), and what each collected, read live.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/requests",
	order: 30,
	messages,
	navLabel: "nav",
	scope: "request:read",
	load: () => import("./view.tsx"),
});
