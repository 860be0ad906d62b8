// Regenerates the README's screenshots under docs/ with headless chromium
// (playwright-core, the system browser; see chromium.ts):
//   docs/playground.png            the playground after optimizing fixtures/wasm/families-O2.wasm (default target)
//   docs/html-report.png           the --html report of fixtures/wasm/graph-O2.wasm: sizes, passes, treemap
//   docs/html-report-functions.png the same report's function table, sorted by input size
//
//   npm run screenshots     (builds first; or node dist/scripts/screenshots.js after a build)

import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { runSafely } from "../src/cli/run.js";
import { buildPlayground } from "./build-playground.js";
import { CHROMIUM, skip } from "./chromium.js";

const root = fileURLToPath(new URL("../..", import.meta.url)); // dist/scripts -> repository root
const docs = join(root, "docs");
const WIDTH = 1150;

if (!CHROMIUM) throw new Error(String(skip));
const tmp = mkdtempSync(join(tmpdir(), "wasm-compact-screenshots-"));
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
try {
  // the playground, after a run
  const site = await buildPlayground(join(tmp, "site"));
  const page = await browser.newPage({ viewport: { width: WIDTH, height: 1300 } });
  await page.goto(pathToFileURL(site.html).href, { waitUntil: "load" });
  await page.locator('#passes input[value="outline"]').waitFor({ timeout: 60_000 });
  await page.locator("#file").setInputFiles(join(root, "fixtures/wasm/families-O2.wasm"));
  await page.waitForFunction(() => document.body.dataset.state === "done" || document.body.dataset.state === "error", null, { timeout: 600_000 });
  if ((await page.evaluate(() => document.body.dataset.state)) !== "done") throw new Error(`playground: ${await page.locator("#status").textContent()}`);
  await page.screenshot({ path: join(docs, "playground.png") });

  // the --html report, run where the files are so that the page names them as the README's command does
  const report = join(tmp, "graph.report.html");
  const err: string[] = [];
  const io = { stdout: () => {}, stderr: (s: string) => void err.push(s), stderrIsTTY: false, env: {} };
  copyFileSync(join(root, "fixtures/wasm/graph-O2.wasm"), join(tmp, "graph-O2.wasm"));
  const cwd = process.cwd();
  process.chdir(tmp);
  try {
    if (runSafely(["graph-O2.wasm", "-o", "graph.min.wasm", "--html", "graph.report.html", "-q"], io) !== 0) throw new Error(err.join(""));
  } finally {
    process.chdir(cwd);
  }
  const tab = await browser.newPage({ viewport: { width: WIDTH, height: 1400 } });
  await tab.goto(pathToFileURL(report).href, { waitUntil: "load" });
  await tab.screenshot({ path: join(docs, "html-report.png") });
  await tab.locator("#functions thead th", { hasText: "input size" }).click();
  const top = await tab.locator("#h-functions").evaluate((h) => h.getBoundingClientRect().top + window.scrollY);
  await tab.screenshot({ path: join(docs, "html-report-functions.png"), fullPage: true, clip: { x: 0, y: top - 10, width: WIDTH, height: 700 } });
  console.log(`wrote ${["playground.png", "html-report.png", "html-report-functions.png"].map((f) => join(docs, f)).join(", ")}`);
} finally {
  await browser.close();
  rmSync(tmp, { recursive: true });
}
