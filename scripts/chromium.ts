// Where the browser tests and scripts/screenshots.ts find chromium:
// CHROMIUM_PATH when set (the only candidate then: CHROMIUM_PATH=/none shows
// the skip), else Debian's binary. `skip` is false, or the reason the browser
// tests are skipped. watchPage records what a page did, for the tests.

import { existsSync } from "node:fs";
import type { Page } from "playwright-core";

const CANDIDATES = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
export const CHROMIUM: string | undefined = CANDIDATES.find((p) => existsSync(p));
export const skip: string | false = CHROMIUM ? false : `no chromium binary (looked for ${CANDIDATES.join(", ")}; apt-get install chromium, or set CHROMIUM_PATH)`;

/** What a page did that a test checks: console errors and warnings, page errors and dialogs (`problems`), and every URL it requested. */
export interface Watched {
  problems: string[];
  requests: string[];
}

/** Starts recording what `tab` does (before it loads anything). */
export function watchPage(tab: Page): Watched {
  const w: Watched = { problems: [], requests: [] };
  tab.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") w.problems.push(`console ${m.type()}: ${m.text()}`);
  });
  tab.on("pageerror", (e) => w.problems.push(`page error: ${e.message}`));
  tab.on("dialog", (d) => {
    w.problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  tab.on("request", (r) => w.requests.push(r.url()));
  return w;
}
