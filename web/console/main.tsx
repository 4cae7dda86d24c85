// The console's entry: styles, language, then the app into <div id="app">.
import "./styles.css";
import { render } from "preact";
import { App } from "./app.tsx";
import { locale } from "./i18n/index.ts";

document.documentElement.lang = locale.get();
const root = document.getElementById("app");
if (root) render(<App />, root);
