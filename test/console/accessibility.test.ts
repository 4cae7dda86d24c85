// axe-core on every console screen and the front page in the light colour scheme, in English at
// 1280 and 390 px, and the console by keyboard alone (accessibility-suite.ts). German:
// accessibility-de.test.ts; the dark scheme: accessibility-dark.test.ts.
// Runs once, not per database: the console's look (axe-core, the keyboard walk); the API under it runs on both in the API's own files.
import { accessibilitySuite } from "./accessibility-suite.ts";

accessibilitySuite(["light"], "screens", "keyboard", ["en"]);
