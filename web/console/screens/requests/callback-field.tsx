// The callback URL with "Send test delivery" (POST /api/requests/callback-test): the sample is
// sent at once and the result is said in words (delivered, refused and why), with the server's
// one-line detail beside it.
import { useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { Button, ErrorAlert, TextField } from "../../ui/index.ts";
import { messages } from "./messages.ts";
import { type CallbackTest, testCallback } from "./types.ts";

export function TestResult({ result }: { result: CallbackTest }) {
	const t = useT(messages);
	return (
		<div class={`alert ${result.ok ? "alert-success" : "alert-error"}`}>
			<p>
				<strong>{t(result.ok ? "testDelivered" : "testNotDelivered")}</strong>{" "}
				{t(`test_${result.code}`, { status: result.status })}
			</p>
			{result.detail ? (
				<p class="alert-detail">
					{t("testDetail")} <span lang="en">{result.detail}</span>
				</p>
			) : null}
		</div>
	);
}

/** Sends the test delivery to `url` (with the request's real id and slug when `requestId` is given). */
export function TestDelivery({ url, requestId }: { url: string; requestId?: string }) {
	const t = useT(messages);
	const [busy, setBusy] = useState(false);
	const [result, setResult] = useState<CallbackTest | null>(null);
	const [error, setError] = useState<unknown>(null);
	async function run() {
		setBusy(true);
		setResult(null);
		setError(null);
		try {
			setResult(await testCallback(url.trim(), requestId));
		} catch (err) {
			setError(err);
		} finally {
			setBusy(false);
		}
	}
	return (
		<div class="req-test">
			<Button busy={busy} disabled={!url.trim()} onClick={() => void run()}>
				{busy ? t("testSending") : t("testSend")}
			</Button>
			<div role="status" class="req-test-result">
				{result ? <TestResult result={result} /> : null}
			</div>
			<ErrorAlert error={error} />
		</div>
	);
}

export function CallbackField({
	value,
	onInput,
	error,
}: {
	value: string;
	onInput: (value: string) => void;
	error: string | null;
}) {
	const t = useT(messages);
	return (
		<div class="req-callback">
			<TextField
				label={t("callbackUrl")}
				hint={t("callbackHint")}
				type="url"
				inputMode="url"
				autocomplete="off"
				spellcheck={false}
				maxLength={2048}
				value={value}
				onInput={onInput}
				error={error}
			/>
			<TestDelivery url={value} />
		</div>
	);
}
