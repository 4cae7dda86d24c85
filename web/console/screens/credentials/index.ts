// The held credentials screen: what attesters stated about this person's identities, kept as
// SD-JWT VC credentials, with the two app links that concern them: accepting an attestation offer
// (`svc://a/<host>/<token>`, at /credentials/offer) and presenting a credential to a service
// (`svc://present?…`, at /credentials/present), both with the identity keys this browser holds.
import { defineScreen } from "../../screen.ts";
import { messages } from "./messages.ts";
import "./style.css";

export default defineScreen({
	path: "/credentials",
	order: 42,
	messages,
	navLabel: "nav",
	scope: "credential:read",
	load: () => import("./view.tsx"),
});
