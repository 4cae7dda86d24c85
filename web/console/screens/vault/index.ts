// The vault screen: sections and entries of the active workspace (values, aliases, hidden entries, files).
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/vault",
	order: 10,
	messages,
	navLabel: "nav",
	scope: "record:read",
	load: () => import("./view.tsx"),
});
