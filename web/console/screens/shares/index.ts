// The shares screen: the workspace's shares (links to chosen vault entries and sections), making
// one with its gates and watermark, and one share's link, QR code, live status and read log.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/shares",
	order: 20,
	messages,
	navLabel: "nav",
	scope: "link:read",
	load: () => import("./view.tsx"),
});
