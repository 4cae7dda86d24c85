// A CSV cell a spreadsheet would run as a formula (CSV injection), made inert: the one rule for
// every CSV the server writes (the share's CSV, a request's answers).

/** Plain numbers, amounts and phone numbers: `+49 30 1234567`, `-12.5`, `+1 (555) 010-0100`. */
const NUMBER_LIKE = /^[+-][\d\s().,/-]*$/;

/** OWASP's CSV injection rule, narrowed: `= @ TAB CR` always; `+ -` unless the value is number-like. */
export function inertCell(value: string): string {
	const first = value[0];
	if (first === "=" || first === "@" || first === "\t" || first === "\r") return `'${value}`;
	if ((first === "+" || first === "-") && !NUMBER_LIKE.test(value)) return `'${value}`;
	return value;
}
