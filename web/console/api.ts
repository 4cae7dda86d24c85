// The typed API client: fetch with the session's bearer token and the active workspace, JSON in
// and out, and every problem+json answer turned into an ApiError carrying its `code`. Screens use
// only documented public endpoints (docs/api.md) through it.

import { errorMessages } from "./i18n/errors.ts";
import { format, type Locale, useLocale } from "./i18n/index.ts";
import { activeWorkspace, endSession, sessionToken } from "./session.ts";

export interface Problem {
	type?: string;
	title?: string;
	status?: number;
	code?: string;
	detail?: string;
	field?: string;
	scope?: string;
	[member: string]: unknown;
}

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		readonly problem: Problem,
	) {
		super(problem.detail ?? problem.title ?? code);
		this.name = "ApiError";
	}
}

export interface ApiResponse<T> {
	data: T;
	status: number;
	headers: Headers;
}

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
	query?: Query;
	/** JSON-encoded unless it is FormData. */
	body?: unknown;
	headers?: Record<string, string>;
	/** Send the session token (default true). */
	auth?: boolean;
	signal?: AbortSignal;
}

function url(path: string, query?: Query): string {
	const params = new URLSearchParams();
	for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) params.set(k, String(v));
	const qs = params.toString();
	return qs ? `${path}?${qs}` : path;
}

function headersFor(options: RequestOptions): Record<string, string> {
	const headers: Record<string, string> = { accept: "application/json", ...options.headers };
	const token = sessionToken.get();
	if (options.auth !== false && token) {
		headers.authorization = `Bearer ${token}`;
		const workspace = activeWorkspace.get();
		if (workspace) headers["x-workspace"] = workspace;
	}
	if (options.body !== undefined && !(options.body instanceof FormData))
		headers["content-type"] = "application/json";
	return headers;
}

async function problemOf(res: Response): Promise<ApiError> {
	let problem: Problem = {};
	try {
		problem = (await res.json()) as Problem;
	} catch {
		// A body that is not JSON (a proxy's page): the status still says what happened.
	}
	const code = typeof problem.code === "string" ? problem.code : `http_${res.status}`;
	return new ApiError(res.status, code, problem);
}

export async function request<T>(
	method: string,
	path: string,
	options: RequestOptions = {},
): Promise<ApiResponse<T>> {
	let res: Response;
	try {
		res = await fetch(url(path, options.query), {
			method,
			headers: headersFor(options),
			credentials: "omit",
			signal: options.signal ?? null,
			...(options.body === undefined
				? {}
				: { body: options.body instanceof FormData ? options.body : JSON.stringify(options.body) }),
		});
	} catch (err) {
		if (err instanceof DOMException && err.name === "AbortError") throw err;
		throw new ApiError(0, "network", {});
	}
	if (!res.ok) {
		const error = await problemOf(res);
		// A session that ended (signed out elsewhere, expired) signs the console out.
		if (
			error.status === 401 &&
			error.code === "not_authenticated" &&
			options.auth !== false &&
			sessionToken.get()
		)
			endSession("not_authenticated");
		throw error;
	}
	const data = (res.status === 204 ? undefined : await res.json().catch(() => undefined)) as T;
	return { data, status: res.status, headers: res.headers };
}

/**
 * A multipart upload with progress (fetch reports none for uploads): `onProgress` gets 0..1.
 * Answers like request().
 */
export function upload<T>(
	method: string,
	path: string,
	form: FormData,
	onProgress: (fraction: number) => void,
): Promise<ApiResponse<T>> {
	return new Promise((resolve, reject) => {
		const xhr = new XMLHttpRequest();
		xhr.open(method, path);
		for (const [k, v] of Object.entries(headersFor({ body: form }))) xhr.setRequestHeader(k, v);
		xhr.upload.onprogress = (e) => {
			if (e.lengthComputable) onProgress(e.loaded / e.total);
		};
		xhr.onerror = () => reject(new ApiError(0, "network", {}));
		xhr.onload = () => {
			let body: unknown;
			try {
				body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
			} catch {
				body = undefined;
			}
			const headers = new Headers();
			for (const line of xhr.getAllResponseHeaders().trim().split(/\r?\n/)) {
				const at = line.indexOf(":");
				if (at > 0) headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
			}
			if (xhr.status >= 200 && xhr.status < 300) {
				onProgress(1);
				resolve({ data: body as T, status: xhr.status, headers });
			} else {
				const problem = (body ?? {}) as Problem;
				reject(new ApiError(xhr.status, problem.code ?? `http_${xhr.status}`, problem));
			}
		};
		xhr.send(form);
	});
}

export interface ListPage<T> {
	page: number;
	perPage: number;
	totalItems: number;
	totalPages: number;
	items: T[];
}

export interface ListParams {
	page?: number;
	perPage?: number;
	sort?: string;
	filter?: string;
	fields?: string;
	skipTotal?: boolean;
}

/** `/api/collections/{name}/records`: the same five operations on every collection. */
export function collection<T>(name: string) {
	const base = `/api/collections/${name}/records`;
	return {
		list: async (params: ListParams = {}) =>
			(await request<ListPage<T>>("GET", base, { query: { ...params } })).data,
		/** Every item, a page of 1000 at a time. */
		all: async (params: Omit<ListParams, "page" | "perPage"> = {}) => {
			const items: T[] = [];
			for (let page = 1; ; page++) {
				const got = (
					await request<ListPage<T>>("GET", base, {
						query: { ...params, page, perPage: 1000, skipTotal: true },
					})
				).data;
				items.push(...got.items);
				if (got.items.length < 1000) return items;
			}
		},
		view: async (id: string) => (await request<T>("GET", `${base}/${encodeURIComponent(id)}`)).data,
		/** The whole response: a create may answer something in a header (an API key's token). */
		create: (body: unknown) => request<T>("POST", base, { body }),
		update: async (id: string, body: unknown) =>
			(await request<T>("PATCH", `${base}/${encodeURIComponent(id)}`, { body })).data,
		remove: async (id: string) => {
			await request<void>("DELETE", `${base}/${encodeURIComponent(id)}`);
		},
	};
}

/** The sentence for an error in the given language: every documented code has one. */
export function errorText(err: unknown, lang: Locale): string {
	if (err instanceof ApiError) {
		const known = err.code in errorMessages.en;
		if (err.code === "validation_failed") {
			return err.problem.field
				? format(errorMessages, lang, "validation_failed", { field: err.problem.field })
				: format(errorMessages, lang, "validation_failed_plain");
		}
		if (known) {
			return format(errorMessages, lang, err.code as keyof typeof errorMessages.en, {
				scope: err.problem.scope ?? "",
				code: err.code,
			});
		}
		return format(errorMessages, lang, "unknown", { code: err.code });
	}
	if (err instanceof DOMException && err.name === "NotAllowedError")
		return format(errorMessages, lang, "unknown", { code: "NotAllowedError" });
	return format(errorMessages, lang, "unknown", { code: err instanceof Error ? err.name : "error" });
}

/** `describe(err)` in the chosen language. */
export function useErrorText(): (err: unknown) => string {
	const lang = useLocale();
	return (err) => errorText(err, lang);
}
