// axe-core on the owner's screens (vault, shares, requests, templates, members, account, transfer,
// workspaces, identities, connections, attestations, credentials) in the dark colour scheme, in
// English and German at 1280 and 390 px (accessibility-suite.ts). Each screen's own test file runs
// axe on it in the light scheme.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["dark"], "owner");
