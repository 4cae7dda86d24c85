// The templates screen: what a request asks responders for, as a named list of typed fields.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/templates",
	order: 15,
	messages,
	navLabel: "nav",
	scope: "template:read",
	load: () => import("./view.tsx"),
});
