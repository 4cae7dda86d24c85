// The console's wire types: what the server's OpenAPI document says it answers (wire.gen.ts,
// written by `npm run typecheck` from /api/openapi.json with openapi-typescript). Screens name the
// records and answers they read here instead of writing them by hand, so an answer whose schema
// changes in a way a screen relies on fails the console's type check (docs/testing.md).
import type { components, paths } from "./wire.gen.ts";

type Schemas = components["schemas"];

/** A record of a collection, or another named schema, by its OpenAPI component. */
export type Wire<Name extends keyof Schemas> = Schemas[Name];

type JsonOf<R> = R extends { content: { "application/json": infer Body } } ? Body : never;

/** The JSON body `method` on `path` answers with `status` (200 unless named). */
export type Answer<
	Path extends keyof paths,
	Method extends "get" | "post" | "put" | "patch" | "delete",
	Status extends number = 200,
> = paths[Path][Method] extends { responses: infer R }
	? Status extends keyof R
		? JsonOf<R[Status]>
		: never
	: never;
