// Where the browser tests and scripts/screenshots.ts find chromium:
// CHROMIUM_PATH when set (the only candidate then: CHROMIUM_PATH=/none shows
// the skip), else Debian's binary. `skip` is false, or the reason the browser
// tests are skipped.

import { existsSync } from "node:fs";

const CANDIDATES = process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : ["/usr/bin/chromium", "/usr/bin/chromium-browser"];
export const CHROMIUM: string | undefined = CANDIDATES.find((p) => existsSync(p));
export const skip: string | false = CHROMIUM ? false : `no chromium binary (looked for ${CANDIDATES.join(", ")}; apt-get install chromium, or set CHROMIUM_PATH)`;
