// axe-core on every console screen, the front page and the operator's ticket page in the light
// colour scheme (English and German, 1280 and 390 px), and the console by keyboard alone
// (accessibility-suite.ts). The dark scheme: accessibility-dark.test.ts.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["light"], "screens", "keyboard");
