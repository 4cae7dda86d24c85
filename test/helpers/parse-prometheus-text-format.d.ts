// Types for the test-only Prometheus text parser (the package ships none).
declare module "parse-prometheus-text-format" {
	interface Sample {
		value?: string;
		labels?: Record<string, string>;
		count?: string;
		sum?: string;
		buckets?: Record<string, string>;
	}
	interface Family {
		name: string;
		help: string;
		type: string;
		metrics: Sample[];
	}
	export default function parse(text: string): Family[];
}
