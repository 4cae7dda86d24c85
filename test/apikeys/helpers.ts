// Factories and a tiny authenticated route for the API key tests.
import assert from "node:assert/strict";
import type { FastifyInstance } from "fastify";
import type { Kysely } from "kysely";
import type { Database } from "../../src/db/schema.ts";
import { createAccount } from "../../src/features/accounts/service.ts";
import { insertMember } from "../../src/features/workspaces/store.ts";
import { optionalCaller, requireAccount, requireScope } from "../../src/http/auth.ts";
import { newId } from "../../src/lib/crypto.ts";

/** Test-only routes: `/t` needs an account, `/t/optional` reports the caller, `/t/scope/:scope` needs a scope. */
export async function probeRoutes(app: FastifyInstance): Promise<void> {
	app.get("/t", { preHandler: requireAccount }, async (request) => request.caller);
	app.get("/t/optional", { preHandler: optionalCaller }, async (request) => ({ kind: request.caller.kind }));
	app.get<{ Params: { scope: string } }>(
		"/t/scope/:scope",
		{ preHandler: requireAccount },
		async (request) => {
			requireScope(request.caller, request.params.scope);
			return { ok: true };
		},
	);
}

let n = 0;
export async function account(db: Kysely<Database>, now: number) {
	n += 1;
	return createAccount(db, { email: `person${n}-${newId()}@example.org` }, now);
}

export async function addMember(
	db: Kysely<Database>,
	workspace: string,
	accountId: string,
	role: string,
	now: number,
) {
	await insertMember(db, { id: newId(), workspace, account: accountId, role, created: now, updated: now });
}

export function assertProblem(
	res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
	status: number,
	code: string,
): Record<string, unknown> {
	assert.equal(
		res.statusCode,
		status,
		`expected ${status} ${code}, got ${res.statusCode}: ${JSON.stringify(res.json())}`,
	);
	assert.match(String(res.headers["content-type"]), /^application\/problem\+json/);
	const body = res.json() as Record<string, unknown>;
	assert.equal(body.code, code);
	return body;
}

/** Asserts that `promise` rejects with an AppError of `code`; returns the error. */
export async function rejectsWith(promise: Promise<unknown>, code: string) {
	let caught: unknown;
	await assert.rejects(promise, (err: unknown) => {
		caught = err;
		return (err as { code?: string }).code === code;
	});
	return caught as { code: string; message: string; extra?: Record<string, unknown> };
}
