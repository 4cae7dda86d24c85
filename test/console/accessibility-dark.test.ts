// axe-core on every console screen, the front page and the operator's ticket page in the dark
// colour scheme (English and German, 1280 and 390 px), and the check that the dark scheme really is
// another palette (accessibility-suite.ts). The light scheme: accessibility.test.ts.
// Runs once, not per database: the console's look (axe-core, the palette); the API under it runs on both in the API's own files.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["dark"], "screens", "palette");
