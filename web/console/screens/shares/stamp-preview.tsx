// "Preview stamp": the chosen file stamped with the text (POST /api/stamp-preview, nothing stored).
// An image is shown with a text alternative (as a data: URL, which the CSP allows for images); a
// PDF cannot be shown inside the console, so it is offered as a download, like the image too.
import { useEffect, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { announce, Button, ErrorAlert, SelectField } from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { dataUrl, stampPreview } from "./preview.ts";
import type { VaultRecord } from "./types.ts";

/** The types the server stamps (docs/api.md "What cannot be stamped"). */
const STAMPABLE = ["application/pdf", "image/jpeg", "image/png", "image/webp"];

interface Result {
	name: string;
	line: string;
	/** For an image: the copy as a data: URL to show. */
	image: string | null;
	/** For the download link; revoked when replaced. */
	href: string;
}

export function StampPreview({ text, files }: { text: string; files: VaultRecord[] }) {
	const t = useT(messages);
	const candidates = files.filter((f) => f.file && STAMPABLE.includes(f.file.type));
	const [chosen, setChosen] = useState("");
	const [busy, setBusy] = useState(false);
	const [error, setError] = useState<unknown>(null);
	const [problem, setProblem] = useState<string | null>(null);
	const [result, setResult] = useState<Result | null>(null);
	const fileId = candidates.some((f) => f.id === chosen) ? chosen : (candidates[0]?.id ?? "");

	useEffect(() => () => (result ? URL.revokeObjectURL(result.href) : undefined), [result]);

	if (candidates.length === 0) return <p class="field-hint share-preview">{t("previewNoFile")}</p>;

	async function preview() {
		const line = text.trim();
		if (!line) {
			setProblem(t("previewNoText"));
			return;
		}
		setProblem(null);
		setBusy(true);
		setError(null);
		try {
			const copy = await stampPreview({ record: fileId, text: line });
			const image = copy.type.startsWith("image/") ? await dataUrl(copy.blob) : null;
			setResult({ name: copy.name, line: `${line} #preview`, image, href: URL.createObjectURL(copy.blob) });
			announce(t("previewReady"));
		} catch (err) {
			setResult(null);
			setError(err);
		} finally {
			setBusy(false);
		}
	}

	return (
		<div class="share-preview">
			<SelectField
				label={t("previewFile")}
				hint={t("previewFileHint")}
				value={fileId}
				onChange={setChosen}
				options={candidates.map((f) => ({ value: f.id, label: f.file?.name ?? f.name }))}
			/>
			<Button busy={busy} onClick={() => void preview()}>
				{t("previewButton")}
			</Button>
			{problem ? <p class="field-error">{problem}</p> : null}
			<ErrorAlert error={error} />
			{result ? (
				<div class="share-preview-result">
					{result.image ? (
						<img
							class="share-preview-image"
							src={result.image}
							alt={t("previewAlt", { name: result.name, line: result.line })}
						/>
					) : (
						<p>{t("previewPdf")}</p>
					)}
					<p>
						<a href={result.href} download={result.name}>
							{t("previewDownload", { name: result.name })}
						</a>
					</p>
				</div>
			) : null}
		</div>
	);
}
