// axe-core on the owner's screens (vault, shares, requests, templates, members, account, transfer,
// workspaces, identities, connections, attestations, credentials) in the dark colour scheme, in
// English at 1280 and 390 px (accessibility-suite.ts); German: accessibility-dark-owner-de.test.ts.
// Each screen's own test file runs axe on it in the light scheme.
// Runs once, not per database: the console's look (axe-core); the API under it runs on both in the API's own files.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["dark"], "owner", undefined, ["en"]);
