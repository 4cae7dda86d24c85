// The filter language of the collections API, in the style of PocketBase's:
//   key = "email" && (hidden = false || created >= "2025-01-01") && name ~ "bank"
// A real tokenizer and a recursive-descent parser produce an AST; filter-sql.ts checks it against
// the collection's fields and turns it into a parameterised Kysely expression. Nothing here ever
// becomes SQL text. Every refusal is `filter_invalid` naming the problem and its position.
import { AppError } from "../../http/errors.ts";

/** Bounds that keep a hostile filter cheap to parse and to run. */
export const FILTER_LIMITS = { maxLength: 2048, maxDepth: 10, maxComparisons: 50 } as const;

export type ComparisonOp = "=" | "!=" | ">" | ">=" | "<" | "<=" | "~" | "!~";
export type Literal = string | number | boolean | null;

export type Operand =
	| { kind: "field"; name: string; at: number }
	| { kind: "literal"; value: Literal; at: number };

export type FilterNode =
	| { kind: "and" | "or"; items: FilterNode[] }
	| { kind: "cmp"; op: ComparisonOp; left: Operand; right: Operand; at: number };

type Token =
	| { type: "ident"; text: string; at: number }
	| { type: "string"; value: string; at: number }
	| { type: "number"; value: number; at: number }
	| { type: "op"; text: ComparisonOp | "&&" | "||" | "(" | ")"; at: number }
	| { type: "end"; at: number };

export function filterError(message: string, at?: number): AppError {
	const where = at === undefined ? "" : ` at position ${at + 1}`;
	return new AppError("filter_invalid", `filter: ${message}${where}`, {
		extra: { field: "querystring.filter", ...(at === undefined ? {} : { position: at + 1 }) },
	});
}

// Longest first, so ">=" is not read as ">" then "=".
const OPERATORS = ["&&", "||", "!=", ">=", "<=", "!~", "=", ">", "<", "~", "(", ")"] as const;
const IDENT = /[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const ESCAPES: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', n: "\n", t: "\t", r: "\r" };

export function tokenize(input: string): Token[] {
	const tokens: Token[] = [];
	let i = 0;
	while (i < input.length) {
		const c = input[i] as string;
		if (c === " " || c === "\t" || c === "\n" || c === "\r") {
			i++;
			continue;
		}
		if (c === '"' || c === "'") {
			const at = i;
			let value = "";
			i++;
			for (;;) {
				if (i >= input.length) throw filterError("unterminated string", at);
				const ch = input[i] as string;
				if (ch === c) break;
				if (ch === "\\") {
					const next = input[i + 1];
					const decoded = next === undefined ? undefined : ESCAPES[next];
					if (decoded === undefined) throw filterError("unknown escape in string", i);
					value += decoded;
					i += 2;
					continue;
				}
				value += ch;
				i++;
			}
			i++;
			tokens.push({ type: "string", value, at });
			continue;
		}
		if ((c >= "0" && c <= "9") || (c === "-" && /[0-9]/.test(input[i + 1] ?? ""))) {
			NUMBER.lastIndex = i;
			const m = NUMBER.exec(input);
			const text = m?.[0] ?? "";
			const value = Number(text);
			if (!Number.isFinite(value)) throw filterError("number out of range", i);
			tokens.push({ type: "number", value, at: i });
			i += text.length;
			if (/[A-Za-z0-9_.]/.test(input[i] ?? "")) throw filterError("malformed number", i);
			continue;
		}
		IDENT.lastIndex = i;
		const ident = IDENT.exec(input);
		if (ident) {
			tokens.push({ type: "ident", text: ident[0], at: i });
			i += ident[0].length;
			continue;
		}
		const op = OPERATORS.find((o) => input.startsWith(o, i));
		if (op) {
			tokens.push({ type: "op", text: op, at: i });
			i += op.length;
			continue;
		}
		throw filterError(`unexpected character ${JSON.stringify(c)}`, i);
	}
	tokens.push({ type: "end", at: input.length });
	return tokens;
}

const COMPARISONS = new Set<string>(["=", "!=", ">", ">=", "<", "<=", "~", "!~"]);

/** Parses a filter into its AST; an empty filter is `undefined` (no narrowing). */
export function parseFilter(input: string | undefined): FilterNode | undefined {
	if (input === undefined || input.trim() === "") return undefined;
	if (input.length > FILTER_LIMITS.maxLength) {
		throw filterError(`longer than ${FILTER_LIMITS.maxLength} characters`);
	}
	const tokens = tokenize(input);
	let pos = 0;
	let comparisons = 0;
	const peek = (): Token => tokens[pos] as Token;
	const next = (): Token => tokens[pos++] as Token;
	const isOp = (t: Token, text: string) => t.type === "op" && t.text === text;

	const parseOr = (depth: number): FilterNode => {
		const items = [parseAnd(depth)];
		while (isOp(peek(), "||")) {
			next();
			items.push(parseAnd(depth));
		}
		return items.length === 1 ? (items[0] as FilterNode) : { kind: "or", items };
	};
	const parseAnd = (depth: number): FilterNode => {
		const items = [parseUnit(depth)];
		while (isOp(peek(), "&&")) {
			next();
			items.push(parseUnit(depth));
		}
		return items.length === 1 ? (items[0] as FilterNode) : { kind: "and", items };
	};
	const parseUnit = (depth: number): FilterNode => {
		const t = peek();
		if (isOp(t, "(")) {
			if (depth >= FILTER_LIMITS.maxDepth) {
				throw filterError(`nested deeper than ${FILTER_LIMITS.maxDepth} levels`, t.at);
			}
			next();
			const inner = parseOr(depth + 1);
			const close = next();
			if (!isOp(close, ")")) throw filterError(`expected ")" but found ${describe(close)}`, close.at);
			return inner;
		}
		return parseComparison();
	};
	const parseComparison = (): FilterNode => {
		const left = parseOperand();
		const op = next();
		if (op.type !== "op" || !COMPARISONS.has(op.text)) {
			throw filterError(`expected an operator (= != > >= < <= ~ !~) but found ${describe(op)}`, op.at);
		}
		const right = parseOperand();
		if (++comparisons > FILTER_LIMITS.maxComparisons) {
			throw filterError(`more than ${FILTER_LIMITS.maxComparisons} comparisons`, left.at);
		}
		return { kind: "cmp", op: op.text as ComparisonOp, left, right, at: left.at };
	};
	const parseOperand = (): Operand => {
		const t = next();
		switch (t.type) {
			case "string":
				return { kind: "literal", value: t.value, at: t.at };
			case "number":
				return { kind: "literal", value: t.value, at: t.at };
			case "ident":
				if (t.text === "true" || t.text === "false") {
					return { kind: "literal", value: t.text === "true", at: t.at };
				}
				if (t.text === "null") return { kind: "literal", value: null, at: t.at };
				return { kind: "field", name: t.text, at: t.at };
			case "op":
			case "end":
				throw filterError(`expected a field or a value but found ${describe(t)}`, t.at);
		}
	};

	const ast = parseOr(0);
	const rest = peek();
	if (rest.type !== "end") throw filterError(`unexpected ${describe(rest)}`, rest.at);
	return ast;
}

function describe(t: Token): string {
	switch (t.type) {
		case "end":
			return "the end of the filter";
		case "ident":
			return `"${t.text}"`;
		case "op":
			return `"${t.text}"`;
		case "string":
			return "a string";
		case "number":
			return "a number";
	}
}
