// The blob store on S3-compatible object storage, for several nodes that must serve each other's
// files. Same contract as the folder (blob-store.ts): uploads stream through the size check and
// digest into a multipart upload (`@aws-sdk/lib-storage`, a few parts in memory at most), and an
// object exists only once the upload completes; a refused or failed upload is aborted. Downloads
// stream the object's body, with a byte range when asked. The SDK loads on first use, so a node
// on the folder never pays for it.

import type { Readable } from "node:stream";
import type { S3Client } from "@aws-sdk/client-s3";
import { BlobNotFoundError, type BlobStore, checkKey, isKey, meter, newKey } from "./blob-store.ts";

export interface S3BlobOptions {
	bucket: string;
	/** Prepended to every key, e.g. `svc/`; lets several deployments share a bucket. */
	prefix: string;
	/** Empty: AWS's own endpoint for `region`. */
	endpoint: string;
	region: string;
	forcePathStyle: boolean;
	/** Empty: the SDK's default chain (AWS_ACCESS_KEY_ID…, instance roles). */
	accessKeyId: string;
	secretAccessKey: string;
	/** Multipart part size in bytes (S3's minimum is 5 MiB). */
	partSize: number;
}

/** Parts uploaded at once per upload: memory per upload is about `partSize × (QUEUE + 1)`. */
const QUEUE = 2;
const PAGE = 1000;

type Sdk = typeof import("@aws-sdk/client-s3");

function status(err: unknown): number | undefined {
	return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function named(err: unknown, ...names: string[]): boolean {
	return names.includes((err as { name?: string }).name ?? "");
}

/** What the store's operations share: the settings and the lazily loaded SDK client. */
interface S3Context {
	options: S3BlobOptions;
	load: () => Promise<{ sdk: Sdk; client: S3Client }>;
	objectKey: (key: string) => string;
}

export function createS3BlobStore(options: S3BlobOptions): BlobStore {
	const { bucket, prefix } = options;
	let loaded: Promise<{ sdk: Sdk; client: S3Client }> | undefined;
	const load = () => {
		loaded ??= import("@aws-sdk/client-s3").then((sdk) => ({
			sdk,
			client: new sdk.S3Client({
				region: options.region,
				endpoint: options.endpoint || undefined,
				forcePathStyle: options.forcePathStyle,
				credentials: options.accessKeyId
					? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
					: undefined,
				// Checksums only where S3 requires them: the newer default (aws-chunked CRC32 on every
				// upload) is not understood by many S3-compatible servers. Integrity is ours: each
				// upload's SHA-256 is computed here and stored with its record.
				requestChecksumCalculation: "WHEN_REQUIRED",
				responseChecksumValidation: "WHEN_REQUIRED",
			}),
		}));
		return loaded;
	};
	const objectKey = (key: string) => prefix + checkKey(key);
	const s3: S3Context = { options, load, objectKey };

	return {
		put: (source, opts = {}) => putObject(s3, source, opts),

		async get(key, range) {
			const { sdk, client } = await load();
			try {
				const out = await client.send(
					new sdk.GetObjectCommand({
						Bucket: bucket,
						Key: objectKey(key),
						Range: range ? `bytes=${range.start}-${range.end}` : undefined,
					}),
				);
				return out.Body as Readable;
			} catch (err) {
				if (named(err, "NoSuchKey", "NotFound") || status(err) === 404) throw new BlobNotFoundError(key);
				throw err;
			}
		},

		async size(key) {
			const { sdk, client } = await load();
			try {
				const head = await client.send(new sdk.HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
				return head.ContentLength;
			} catch (err) {
				if (err instanceof BlobNotFoundError || named(err, "NotFound", "NoSuchKey") || status(err) === 404) {
					return undefined;
				}
				throw err;
			}
		},

		async delete(key) {
			const { sdk, client } = await load();
			await client.send(new sdk.DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
		},

		async *list() {
			const { sdk, client } = await load();
			for await (const page of sdk.paginateListObjectsV2(
				{ client, pageSize: PAGE },
				{ Bucket: bucket, Prefix: prefix || undefined },
			)) {
				for (const object of page.Contents ?? []) {
					const key = object.Key?.slice(prefix.length) ?? "";
					// Objects of other kinds under the prefix are not ours to sweep.
					if (!object.Key?.startsWith(prefix) || !isKey(key)) continue;
					yield { key, modified: object.LastModified?.getTime() ?? 0 };
				}
			}
		},

		sweepPartials: (olderThanMs, now = Date.now()) => abortOldUploads(s3, olderThanMs, now),

		async ready() {
			const { sdk, client } = await load();
			try {
				await client.send(new sdk.HeadBucketCommand({ Bucket: bucket }));
			} catch (err) {
				const why = status(err) === 404 ? "does not exist" : `cannot be reached (${(err as Error).name})`;
				throw new Error(`blob store: bucket "${bucket}" ${why} at ${options.endpoint || "AWS"}`, {
					cause: err,
				});
			}
		},
	};
}

/** Streams one upload into the bucket under a new (or the given) key, metered against its cap. */
async function putObject(
	s3: S3Context,
	source: Readable,
	opts: Parameters<BlobStore["put"]>[1] = {},
): ReturnType<BlobStore["put"]> {
	const { options, load, objectKey } = s3;
	const bucket = options.bucket;
	const key = checkKey(opts.key ?? newKey());
	// Piped before the first await: a source already flowing loses nothing meanwhile.
	const metered = meter(opts.maxBytes);
	// Its error is read from `errored` once the upload settles; until the upload reads,
	// nothing else listens, and an error nobody hears would end the process.
	metered.stream.on("error", () => undefined);
	const fail = (err: Error) => metered.stream.destroy(err);
	source.once("error", fail);
	source.pipe(metered.stream);
	let upload: import("@aws-sdk/lib-storage").Upload | undefined;
	try {
		const [{ client }, { Upload }] = await Promise.all([load(), import("@aws-sdk/lib-storage")]);
		upload = new Upload({
			client,
			params: { Bucket: bucket, Key: objectKey(key), Body: metered.stream },
			partSize: options.partSize,
			queueSize: QUEUE,
			leavePartsOnError: false,
		});
		await upload.done();
	} catch (err) {
		source.unpipe(metered.stream);
		source.resume?.(); // drain what the client still sends, as the folder does
		await upload?.abort().catch(() => undefined);
		// The stream's own error (the cap, the client going away) is the cause, not the SDK's.
		throw metered.stream.errored ?? err;
	} finally {
		source.off("error", fail);
	}
	return { key, ...metered.info() };
}

/** Aborts the multipart uploads under the prefix begun longer ago than `olderThanMs`. */
async function abortOldUploads(s3: S3Context, olderThanMs: number, now: number): Promise<number> {
	const { options, load } = s3;
	const { bucket, prefix } = options;
	const { sdk, client } = await load();
	let removed = 0;
	let keyMarker: string | undefined;
	let uploadIdMarker: string | undefined;
	for (;;) {
		let page: import("@aws-sdk/client-s3").ListMultipartUploadsCommandOutput;
		try {
			page = await client.send(
				new sdk.ListMultipartUploadsCommand({
					Bucket: bucket,
					Prefix: prefix || undefined,
					KeyMarker: keyMarker,
					UploadIdMarker: uploadIdMarker,
				}),
			);
		} catch (err) {
			// Some S3-compatible servers have no such listing: a bucket lifecycle rule
			// (AbortIncompleteMultipartUpload) does the same there (docs/operations.md).
			if (named(err, "NotImplemented") || status(err) === 501) return removed;
			throw err;
		}
		for (const upload of page.Uploads ?? []) {
			if (!upload.Key || !upload.UploadId || !upload.Initiated) continue;
			if (now - upload.Initiated.getTime() <= olderThanMs) continue;
			await client.send(
				new sdk.AbortMultipartUploadCommand({
					Bucket: bucket,
					Key: upload.Key,
					UploadId: upload.UploadId,
				}),
			);
			removed++;
		}
		if (!page.IsTruncated) return removed;
		keyMarker = page.NextKeyMarker;
		uploadIdMarker = page.NextUploadIdMarker;
	}
}
