// An identity's certificate as a person reads it: subject, issuer, serial, validity, whether its
// key is the fingerprinted one; copy it, download it as a .pem file, or show the PEM itself.
import { useEffect, useState } from "preact/hooks";
import { useT } from "../../i18n/index.ts";
import { CopyButton, DateTime, Notice, useLoad } from "../../ui/index.ts";
import { readCertificate } from "./certificate.ts";
import { messages } from "./messages.ts";
import type { Identity } from "./types.ts";

/** A file name from the identity's name: letters, digits and dashes. */
function fileName(identity: Identity): string {
	const base = identity.name
		.normalize("NFKD")
		.replace(/[^\w-]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.toLowerCase();
	return `${base || "identity"}-${identity.fingerprint.slice(0, 8)}.pem`;
}

function DownloadLink({ identity }: { identity: Identity }) {
	const t = useT(messages);
	const [url, setUrl] = useState<string | null>(null);
	useEffect(() => {
		const made = URL.createObjectURL(new Blob([identity.certificate], { type: "application/x-pem-file" }));
		setUrl(made);
		return () => URL.revokeObjectURL(made);
	}, [identity.certificate]);
	if (!url) return null;
	return (
		<a class="btn btn-secondary" href={url} download={fileName(identity)}>
			{t("downloadCertificate")}
		</a>
	);
}

export function CertificateView({ identity }: { identity: Identity }) {
	const t = useT(messages);
	const facts = useLoad(() => readCertificate(identity.certificate), [identity.certificate]);
	const cert = facts.data;
	return (
		<div class="identity-cert">
			{facts.loading ? null : cert ? (
				<dl class="identity-facts">
					<dt>{t("subject")}</dt>
					<dd>{cert.subject}</dd>
					<dt>{t("issuer")}</dt>
					<dd>{cert.issuer}</dd>
					<dt>{t("serial")}</dt>
					<dd>
						<code class="identity-hex">{cert.serial}</code>
					</dd>
					<dt>{t("validFrom")}</dt>
					<dd>
						<DateTime value={cert.notBefore} />
					</dd>
					<dt>{t("validUntil")}</dt>
					<dd>
						<DateTime value={cert.notAfter} />
					</dd>
					<dt>{t("certKey")}</dt>
					<dd>{t(cert.fingerprint === identity.fingerprint ? "keyMatches" : "keyMismatch")}</dd>
				</dl>
			) : (
				<Notice>{t("certUnreadable")}</Notice>
			)}
			<div class="identity-cert-actions">
				<CopyButton text={identity.certificate} label={t("copyCertificate")} />
				<DownloadLink identity={identity} />
			</div>
			<details class="identity-pem">
				<summary>{t("showPem")}</summary>
				<pre>{identity.certificate}</pre>
			</details>
		</div>
	);
}
