// axe-core on the owner's screens in the dark colour scheme, in German at 1280 and 390 px
// (accessibility-suite.ts); English: accessibility-dark-owner.test.ts.
// Runs once, not per database: the console's look (axe-core); the API under it runs on both in the API's own files.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["dark"], "owner", undefined, ["de"]);
