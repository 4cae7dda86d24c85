// JSON request bodies: Fastify's own parser (prototype-poisoning refusals included), except that an
// empty body is no body. Clients send `Content-Type: application/json` on every request, bodiless
// ones too (the PocketBase SDK on DELETE); such a request reads like one without the header. A
// route that needs a body still refuses it, through its body schema: 400 `validation_failed`.
import type { FastifyInstance } from "fastify";

/** Global: registered once in buildApp, so every route reads an empty JSON body the same way. */
export function registerJsonBody(app: FastifyInstance): void {
	const { onProtoPoisoning, onConstructorPoisoning } = app.initialConfig;
	const parse = app.getDefaultJsonParser(onProtoPoisoning ?? "error", onConstructorPoisoning ?? "error");
	app.removeContentTypeParser("application/json");
	app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
		if (body.length === 0) done(null, undefined);
		// Fastify's parser answers through done and returns nothing.
		else void parse(request, body as string, done);
	});
}
