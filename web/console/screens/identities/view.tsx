// The identities screen's routes: the list at /identities, one identity at /identities/<id>.
import type { ScreenProps } from "../../screen.ts";
import { IdentityDetail } from "./detail.tsx";
import { IdentityList } from "./list.tsx";

export default function IdentitiesScreen({ subpath }: ScreenProps) {
	if (subpath === "" || subpath === "/") return <IdentityList />;
	return <IdentityDetail id={decodeURIComponent(subpath.slice(1))} />;
}
