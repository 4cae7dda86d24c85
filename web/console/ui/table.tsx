// A list of records as a table with a caption and column headers; at phone width each row
// becomes a card whose cells show their column name (data-label).
import type { ComponentChildren } from "preact";

export interface Column<T> {
	label: string;
	cell: (row: T) => ComponentChildren;
	/** Right-aligned numbers, or the actions column. */
	kind?: "number" | "actions";
}

export function DataTable<T>({
	caption,
	columns,
	rows,
	rowKey,
	captionHidden = true,
}: {
	caption: string;
	columns: Column<T>[];
	rows: T[];
	rowKey: (row: T) => string;
	/** The caption is for screen readers when a heading above already says it. */
	captionHidden?: boolean;
}) {
	return (
		<div class="table-wrap">
			<table class="table">
				<caption class={captionHidden ? "visually-hidden" : undefined}>{caption}</caption>
				<thead>
					<tr>
						{columns.map((c) => (
							<th key={c.label} scope="col" class={c.kind ? `col-${c.kind}` : undefined}>
								{c.label}
							</th>
						))}
					</tr>
				</thead>
				<tbody>
					{rows.map((row) => (
						<tr key={rowKey(row)}>
							{columns.map((c) => (
								<td key={c.label} data-label={c.label} class={c.kind ? `col-${c.kind}` : undefined}>
									{c.cell(row)}
								</td>
							))}
						</tr>
					))}
				</tbody>
			</table>
		</div>
	);
}
