// Radio buttons in a fieldset with a legend (no shared one yet): one choice among a few.
import { useId } from "preact/hooks";

export function RadioGroup<V extends string>({
	legend,
	value,
	options,
	onChange,
}: {
	legend: string;
	value: V;
	options: { value: V; label: string }[];
	onChange: (value: V) => void;
}) {
	const name = useId();
	return (
		<fieldset class="req-radios">
			<legend>{legend}</legend>
			{options.map((o) => (
				<div class="checkbox" key={o.value}>
					<input
						type="radio"
						id={`${name}-${o.value}`}
						name={name}
						value={o.value}
						checked={value === o.value}
						onChange={() => onChange(o.value)}
					/>
					<label for={`${name}-${o.value}`}>{o.label}</label>
				</div>
			))}
		</fieldset>
	);
}
