// An S3-compatible server for the tests (s3rver, on loopback, its objects in a temporary folder),
// and the configuration that points a node at one of its buckets.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import type { Config } from "../../src/config.ts";

export interface TestS3 {
	endpoint: string;
	/** Where s3rver keeps its buckets. */
	dir: string;
	/** Creates a fresh bucket and answers its name. */
	bucket(): Promise<string>;
	/** Configuration for a node keeping its files in `bucket`. */
	config(bucket: string, prefix?: string): Partial<Config>;
	close(): Promise<void>;
}

let buckets = 0;

export async function startS3(): Promise<TestS3> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-s3-"));
	const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory: dir });
	const { port } = await server.run();
	const endpoint = `http://127.0.0.1:${port}`;
	return {
		endpoint,
		dir,
		async bucket() {
			const name = `svc-${process.pid}-${++buckets}`;
			const res = await fetch(`${endpoint}/${name}`, { method: "PUT" });
			if (res.status !== 200) throw new Error(`s3rver: bucket ${name}: ${res.status}`);
			return name;
		},
		config: (bucket, prefix = "") => ({
			blobStore: "s3",
			s3Bucket: bucket,
			s3Prefix: prefix,
			s3Endpoint: endpoint,
			s3Region: "us-east-1",
			s3ForcePathStyle: true,
			s3AccessKeyId: "S3RVER",
			s3SecretAccessKey: "S3RVER",
			s3PartSize: 5 * 1024 * 1024,
		}),
		async close() {
			await server.close();
			fs.rmSync(dir, { recursive: true, force: true });
		},
	};
}
