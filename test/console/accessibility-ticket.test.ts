// axe-core on the operator's ticket page (/passkey, README step 1) before and after the passkey,
// in English and German, at 1280 and 390 px, in the light and the dark colour scheme
// (accessibility-suite.ts). The console's screens: accessibility.test.ts, accessibility-dark.test.ts.
// Runs once, not per database: the ticket page's look (axe-core); the passkey API under it runs on both in its own files.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["light", "dark"], "ticket");
