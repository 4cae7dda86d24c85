// Export and import: the whole vault out as one zip, and an export, contacts (vCard) or entries
// (CSV) in, previewed first (docs/api.md "Vault export and import").
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/transfer",
	order: 11,
	messages,
	navLabel: "nav",
	scope: "record:read",
	load: () => import("./view.tsx"),
});
