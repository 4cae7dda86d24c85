// The share formats (spec "What the service does" 12; "Shares": `/s/{slug}`, `/dav/s/{slug}/`):
// the share page with its CSV, vCard and iCalendar forms, and the read-only addressbook. Both
// read shares through one shares context, built here once per app; and the owner's preview of
// the page (preview-routes.ts).
import crypto from "node:crypto";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { serverClaim } from "../server/service.ts";
import { sharesContext } from "../shares/service.ts";
import { davRoutes } from "./dav-routes.ts";
import { pageRoutes } from "./page-routes.ts";
import { previewRoutes } from "./preview-routes.ts";

export const formatRoutes: FastifyPluginAsyncTypebox = async (app) => {
	const shares = sharesContext(
		app.store.db,
		serverClaim(app.config, app.rootKey.fingerprint),
		app.grantHooks,
		app.keyedLimit("password", app.limits.password),
	);
	// The ETags' key: from the root key, so every node (and a restarted one) gives the same tags.
	const etagKey = crypto
		.createHash("sha256")
		.update("share-format-etag-v1\0")
		.update(app.rootKey.privateKey.export({ type: "pkcs8", format: "der" }))
		.digest();
	const ctx = { ...shares, etagKey };
	await app.register(pageRoutes, { ctx });
	await app.register(davRoutes, { ctx });
	await app.register(previewRoutes, { ctx });
};
