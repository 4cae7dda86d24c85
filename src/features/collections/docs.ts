// The per-collection field tables of docs/api.md, generated from the registered modules
// (scripts/gen-docs.ts, from src/app.ts) so the documentation cannot drift from the schemas, access
// rules and query fields.
import type { TSchema } from "typebox";
import type { AnyCollection, Operation } from "./registry.ts";

const cell = (s: string) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

function typeName(schema: TSchema | undefined): string {
	if (!schema) return "";
	const s = schema as {
		type?: string;
		const?: unknown;
		anyOf?: TSchema[];
		items?: TSchema;
		format?: string;
		$id?: string;
	};
	if (s.const !== undefined) return JSON.stringify(s.const);
	if (s.anyOf) return [...new Set(s.anyOf.map(typeName))].join(" | ");
	if (s.type === "array") return `${typeName(s.items)}[]`;
	if (s.type === "string" && s.format === "date-time") return "string (ISO 8601)";
	return s.type ?? "any";
}

function describe(schema: TSchema | undefined): string {
	const s = schema as
		| { description?: string; pattern?: string; minLength?: number; maxLength?: number }
		| undefined;
	if (!s) return "";
	const bits: string[] = [];
	if (s.description) bits.push(s.description);
	else if (s.pattern) bits.push(`\`${s.pattern}\``);
	if (s.maxLength !== undefined && !s.description) bits.push(`up to ${s.maxLength} characters`);
	return bits.join(" ");
}

function writeMark(schema: TSchema | undefined, name: string, required: boolean): string {
	const props = (schema as { properties?: Record<string, TSchema> } | undefined)?.properties;
	if (!props || !(name in props)) return "";
	return required ? "required" : "optional";
}

function access(module: AnyCollection): string {
	const ops: Operation[] = ["list", "view", "create", "update", "delete"];
	return ops
		.map((op) => {
			const rule = module.access[op];
			if (!rule) return `${op}: not offered (405)`;
			return `${op}: \`${rule.scope}\``;
		})
		.join("; ");
}

export function collectionTable(module: AnyCollection): string {
	const item = module.schemas.item as unknown as { properties: Record<string, TSchema> };
	const create = module.schemas.create as unknown as
		| { properties?: Record<string, TSchema>; required?: string[] }
		| undefined;
	const update = module.schemas.update as unknown as
		| { properties?: Record<string, TSchema>; required?: string[] }
		| undefined;
	const names = new Set([...Object.keys(item.properties), ...Object.keys(create?.properties ?? {})]);
	const rows = [...names].map((name) => {
		const shown = item.properties[name];
		const written = create?.properties?.[name] ?? update?.properties?.[name];
		const query = module.query[name];
		const filter = query?.search ? "filter (`~` indexed)" : "filter";
		const q = [query && query.filter !== false ? filter : "", query?.sort ? "sort" : ""]
			.filter(Boolean)
			.join(", ");
		return `| \`${name}\` | ${cell(typeName(shown ?? written))} | ${writeMark(create as TSchema | undefined, name, create?.required?.includes(name) ?? false)} | ${writeMark(update as TSchema | undefined, name, update?.required?.includes(name) ?? false)} | ${q} | ${cell(describe(shown) || describe(written))} |`;
	});
	const extra = Object.keys(module.query).filter((n) => !names.has(n));
	const keys =
		module.access.list?.apiKeys || module.access.view?.apiKeys
			? "API keys with the scope are admitted."
			: "API keys are refused (403 `api_key_scope_missing`).";
	return [
		`#### \`${module.name}\``,
		"",
		cell(module.description),
		"",
		"| field | type | create | update | query | notes |",
		"| --- | --- | --- | --- | --- | --- |",
		...rows,
		"",
		`Access: ${access(module)}. ${keys}${module.uploads ? " Create and update also take `multipart/form-data` with the bytes in a `file` part." : ""}`,
		extra.length ? `Also filterable: ${extra.map((n) => `\`${n}\``).join(", ")}.` : "",
		`Default sort: \`${module.defaultSort}\`.`,
	]
		.filter((l, i, all) => l !== "" || all[i - 1] !== "")
		.join("\n");
}

export function collectionTables(modules: readonly AnyCollection[]): string {
	return modules.map(collectionTable).join("\n\n");
}
