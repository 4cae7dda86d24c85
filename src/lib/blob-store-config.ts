// Which blob store a process opens (BLOB_STORE): the folder under DATA_DIR, or S3-compatible
// storage for several nodes. The server, `svc admin backup` and `restore` open it the same way.
import path from "node:path";
import type { Config } from "../config.ts";
import { type BlobStore, createFsBlobStore } from "./blob-store.ts";
import { createS3BlobStore } from "./blob-store-s3.ts";

export function openBlobStore(config: Config): BlobStore {
	if (config.blobStore === "fs") return createFsBlobStore(path.join(config.dataDir, "blobs"));
	return createS3BlobStore({
		bucket: config.s3Bucket,
		prefix: config.s3Prefix,
		endpoint: config.s3Endpoint,
		region: config.s3Region,
		forcePathStyle: config.s3ForcePathStyle,
		accessKeyId: config.s3AccessKeyId,
		secretAccessKey: config.s3SecretAccessKey,
		partSize: config.s3PartSize,
	});
}

/** Where a message to an operator says the files are. */
export function blobStoreName(config: Config): string {
	return config.blobStore === "fs"
		? path.join(config.dataDir, "blobs")
		: `s3 bucket ${config.s3Bucket}${config.s3Prefix ? ` (prefix ${config.s3Prefix})` : ""}`;
}
