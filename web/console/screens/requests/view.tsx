// The requests screen's routes: the list at /requests, the form at /requests/new, one request at
// /requests/<id>.
import type { ScreenProps } from "../../screen.ts";
import { CreateRequest } from "./create.tsx";
import { RequestDetail } from "./detail.tsx";
import { RequestList } from "./list.tsx";

export default function RequestsScreen({ subpath }: ScreenProps) {
	if (subpath === "" || subpath === "/") return <RequestList />;
	if (subpath === "/new") return <CreateRequest />;
	return <RequestDetail id={decodeURIComponent(subpath.slice(1))} />;
}
