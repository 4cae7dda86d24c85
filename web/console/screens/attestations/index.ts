// The attestations screen: statements this workspace makes about identities, issued as SD-JWT VC
// credentials when the identity accepts the offer (svc://a/<host>/<token>). Administrators issue.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/attestations",
	order: 45,
	messages,
	navLabel: "nav",
	scope: "attestation:read",
	load: () => import("./view.tsx"),
});
