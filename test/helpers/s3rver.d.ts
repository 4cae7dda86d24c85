// Types for the test-only S3 server (the package ships none): what the tests use of it.
declare module "s3rver" {
	interface Options {
		port?: number;
		address?: string;
		silent?: boolean;
		directory: string;
		resetOnClose?: boolean;
	}
	export default class S3rver {
		constructor(options: Options);
		run(): Promise<{ address: string; port: number }>;
		close(): Promise<void>;
	}
}
