// The shares screen's routes: the list at /shares, the form at /shares/new, one share at
// /shares/<id>.
import type { ScreenProps } from "../../screen.ts";
import { CreateShare } from "./create.tsx";
import { ShareDetail } from "./detail.tsx";
import { ShareList } from "./list.tsx";

export default function SharesScreen({ subpath }: ScreenProps) {
	if (subpath === "" || subpath === "/") return <ShareList />;
	if (subpath === "/new") return <CreateShare />;
	return <ShareDetail id={decodeURIComponent(subpath.slice(1))} />;
}
