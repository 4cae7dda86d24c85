// axe-core on every console screen and the front page in the dark colour scheme, in English at 1280
// and 390 px, and the check that the dark scheme really is another palette (accessibility-suite.ts).
// German: accessibility-dark-de.test.ts; the light scheme: accessibility.test.ts.
// Runs once, not per database: the console's look (axe-core, the palette); the API under it runs on both in the API's own files.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["dark"], "screens", "palette", ["en"]);
