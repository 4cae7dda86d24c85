// The identities screen: the workspace's identities (P-256 keys made in this browser, kept in
// IndexedDB as non-extractable keys, certified by the server), their certificates and standing,
// revoking, and signing challenges with them (prove.ts, for other screens too).
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/identities",
	order: 40,
	messages,
	navLabel: "nav",
	scope: "identity:read",
	load: () => import("./view.tsx"),
});
