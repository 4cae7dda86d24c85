// The templates screen's routes: the list at /templates, the editor at /templates/new and
// /templates/<id>.
import type { ScreenProps } from "../../screen.ts";
import { TemplateEditor } from "./editor.tsx";
import { TemplateList } from "./list.tsx";

export default function TemplatesScreen({ subpath }: ScreenProps) {
	const id = subpath.replace(/^\//, "");
	if (!id) return <TemplateList />;
	return <TemplateEditor key={id} id={id === "new" ? null : id} />;
}
