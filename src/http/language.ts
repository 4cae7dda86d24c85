// English or German for the server-rendered pages: `?lang=` first, then Accept-Language by weight.
export type Lang = "en" | "de";

export function pickLanguage(acceptLanguage: string | undefined, override?: string): Lang {
	if (override === "en" || override === "de") return override;
	const ranked = (acceptLanguage ?? "")
		.split(",")
		.map((part, index) => {
			const [tag = "", ...params] = part.trim().split(";");
			const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
			const weight = q ? Number(q.slice(2)) : 1;
			return {
				base: tag.trim().toLowerCase().split("-")[0],
				weight: Number.isFinite(weight) ? weight : 0,
				index,
			};
		})
		.filter((r) => r.weight > 0)
		.sort((a, b) => b.weight - a.weight || a.index - b.index);
	for (const r of ranked) if (r.base === "en" || r.base === "de") return r.base;
	return "en";
}
