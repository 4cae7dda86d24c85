// The identity keys this browser holds: ECDSA P-256 key pairs made by WebCrypto as non-extractable
// keys and kept in IndexedDB (database "svc-keys", store "identities"). IndexedDB stores a CryptoKey
// by structured clone, so the private half can be used here but never read out, not even by this
// page. One entry per key, keyed by its fingerprint (known before the server certifies it), with
// the identity's id once the server has answered.

const DB_NAME = "svc-keys";
const STORE = "identities";
const BY_ID = "byId";

export interface StoredKey {
	/** Lowercase hex SHA-256 of the public key's SPKI DER, as the server computes it. */
	fingerprint: string;
	/** The identity's id; null between generating the key and the server's answer. */
	id: string | null;
	name: string;
	keyPair: CryptoKeyPair;
	created: string;
}

function done<T>(req: IDBRequest<T>): Promise<T> {
	return new Promise((resolve, reject) => {
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
	});
}

let opening: Promise<IDBDatabase> | null = null;

function open(): Promise<IDBDatabase> {
	opening ??= new Promise<IDBDatabase>((resolve, reject) => {
		const req = indexedDB.open(DB_NAME, 1);
		req.onupgradeneeded = () => {
			const store = req.result.createObjectStore(STORE, { keyPath: "fingerprint" });
			store.createIndex(BY_ID, "id", { unique: false });
		};
		req.onsuccess = () => resolve(req.result);
		req.onerror = () => reject(req.error);
		req.onblocked = () => reject(new Error("the key store is blocked by another tab"));
	}).catch((err: unknown) => {
		opening = null;
		throw err;
	});
	return opening;
}

async function store(mode: IDBTransactionMode): Promise<IDBObjectStore> {
	return (await open()).transaction(STORE, mode).objectStore(STORE);
}

/** Writes (or replaces) an entry; resolves when the transaction has committed. */
export async function putKey(entry: StoredKey): Promise<void> {
	const tx = (await open()).transaction(STORE, "readwrite");
	tx.objectStore(STORE).put(entry);
	await new Promise<void>((resolve, reject) => {
		tx.oncomplete = () => resolve();
		tx.onerror = () => reject(tx.error);
		tx.onabort = () => reject(tx.error);
	});
}

export async function keyByFingerprint(fingerprint: string): Promise<StoredKey | undefined> {
	return (await done((await store("readonly")).get(fingerprint))) as StoredKey | undefined;
}

export async function keyById(id: string): Promise<StoredKey | undefined> {
	return (await done((await store("readonly")).index(BY_ID).get(id))) as StoredKey | undefined;
}

/** The fingerprints of every key this browser holds. */
export async function heldFingerprints(): Promise<Set<string>> {
	const keys = (await done((await store("readonly")).getAllKeys())) as string[];
	return new Set(keys);
}

export async function removeKey(fingerprint: string): Promise<void> {
	const tx = (await open()).transaction(STORE, "readwrite");
	tx.objectStore(STORE).delete(fingerprint);
	await new Promise<void>((resolve, reject) => {
		tx.oncomplete = () => resolve();
		tx.onerror = () => reject(tx.error);
		tx.onabort = () => reject(tx.error);
	});
}
