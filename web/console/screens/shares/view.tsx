// The shares screen's routes: the list at /shares, the form at /shares/new (a copy of another
// share at /shares/new?copy=<id>), one share at /shares/<id>, its form at /shares/<id>/edit and
// what its visitors see at /shares/<id>/preview.
import type { ScreenProps } from "../../screen.ts";
import { CopyShare, CreateShare } from "./create.tsx";
import { ShareDetail } from "./detail.tsx";
import { EditShare } from "./edit.tsx";
import { ShareList } from "./list.tsx";
import { VisitorView } from "./visitor-view.tsx";

export default function SharesScreen({ subpath, route }: ScreenProps) {
	if (subpath === "" || subpath === "/") return <ShareList />;
	if (subpath === "/new") {
		const copy = route.query.get("copy");
		return copy ? <CopyShare key={copy} id={copy} /> : <CreateShare />;
	}
	const [id = "", part] = subpath.slice(1).split("/");
	const share = decodeURIComponent(id);
	if (part === "edit") return <EditShare key={share} id={share} />;
	if (part === "preview") return <VisitorView key={share} id={share} />;
	return <ShareDetail id={share} />;
}
