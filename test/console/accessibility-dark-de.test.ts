// axe-core on every console screen and the front page in the dark colour scheme, in German at 1280
// and 390 px (accessibility-suite.ts); English and the palette check: accessibility-dark.test.ts.
// Runs once, not per database: the console's look (axe-core); the API under it runs on both in the API's own files.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["dark"], "screens", undefined, ["de"]);
