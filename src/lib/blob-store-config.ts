// Which blob store a process opens (BLOB_STORE): the folder under DATA_DIR, or S3-compatible
// storage for several nodes. The server, `svc admin backup` and `restore` open it the same way.
import path from "node:path";
import { type BlobStore, createFsBlobStore } from "./blob-store.ts";
import { createS3BlobStore } from "./blob-store-s3.ts";

/** The settings that choose and open the blob store (config.ts: BLOB_STORE, DATA_DIR, S3_*). */
export interface BlobStoreSettings {
	blobStore: "fs" | "s3";
	dataDir: string;
	s3Bucket: string;
	s3Prefix: string;
	s3Endpoint: string;
	s3Region: string;
	s3ForcePathStyle: boolean;
	s3AccessKeyId: string;
	s3SecretAccessKey: string;
	s3PartSize: number;
}

export function openBlobStore(config: BlobStoreSettings): BlobStore {
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
export function blobStoreName(config: BlobStoreSettings): string {
	return config.blobStore === "fs"
		? path.join(config.dataDir, "blobs")
		: `s3 bucket ${config.s3Bucket}${config.s3Prefix ? ` (prefix ${config.s3Prefix})` : ""}`;
}
