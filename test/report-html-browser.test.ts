// The --html report in a real browser: Debian's chromium, headless, driven by
// playwright-core. The page of a fixture renders (function rows, treemap
// tiles), sorting a column reorders the rows, the search box filters them,
// a hostile name runs nothing, and the console logs no error and the page
// fetches nothing. Skipped, with the reason, where no chromium is installed
// (.ci/run installs it).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runSafely } from "../src/cli/run.js";
import { optimize } from "../src/pipeline.js";
import { htmlReport } from "../src/cli/html-report.js";
import { namedModule } from "./named-module.js";
import { CHROMIUM, skip, watchPage } from "../scripts/chromium.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)); // dist/test -> repository root
const FIXTURE = join(ROOT, "fixtures/wasm/families-O2.wasm");


test("--html report of a fixture renders in headless chromium: rows, treemap, sorting, search, no console error, no fetch", { skip, timeout: 60_000 }, async () => {
  const { chromium } = await import("playwright-core");
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-html-browser-"));
  const page = join(dir, "report.html");
  const err: string[] = [];
  const io = { stdout: () => {}, stderr: (s: string) => void err.push(s), stderrIsTTY: false, env: {} };
  // passes that fold and merge (a merge map) but not the slow ones: this test must stay fast
  const status = runSafely([FIXTURE, "-o", join(dir, "out.wasm"), "--html", page, "--target", "raw", "--passes", "fold-functions,merge-functions,cleanup", "-q"], io);
  assert.equal(status, 0, err.join(""));

  const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ["--no-sandbox"] });
  try {
    const tab = await browser.newPage();
    const { problems, requests } = watchPage(tab);
    const url = pathToFileURL(page).href;
    await tab.goto(url, { waitUntil: "load" });

    const rows = await tab.locator("#functions tbody tr").count();
    assert.ok(rows > 50, `function rows: ${rows}`);
    const tiles = await tab.locator("svg#treemap rect").count();
    assert.ok(tiles > 50, `treemap tiles: ${tiles}`);
    assert.ok((await tab.locator("#mergemap tbody tr").count()) > 0, "merge map rows");
    const box = await tab.locator("svg#treemap").boundingBox();
    assert.ok(box && box.width > 300 && box.height > 100, "the treemap is laid out");

    // sorting by input size: largest first, then reversed
    const sizes = () => tab.$$eval("#functions tbody tr", (trs) => trs.map((tr) => (tr as HTMLTableRowElement).cells[2]!.dataset.v ?? ""));
    const numeric = (vs: string[]) => vs.filter((v) => v !== "").map(Number);
    const before = await sizes();
    await tab.locator("#functions thead th", { hasText: "input size" }).click();
    const down = numeric(await sizes());
    assert.deepEqual(down, [...down].sort((a, b) => b - a), "descending after one click");
    assert.notDeepEqual(await sizes(), before, "the rows moved");
    await tab.locator("#functions thead th", { hasText: "input size" }).click();
    const up = numeric(await sizes());
    assert.deepEqual(up, [...up].sort((a, b) => a - b), "ascending after two");

    // search: only the folded rows
    await tab.locator('input[data-filter="functions"]').fill("folded into");
    const visible = await tab.locator("#functions tbody tr:visible").count();
    const folded = await tab.locator("#functions tbody tr.f-folded").count();
    assert.ok(folded > 0 && visible === folded, `search shows the ${folded} folded rows, shows ${visible}`);

    // a tile finds its row
    await tab.locator("svg#treemap g[data-row]").first().click();
    assert.equal(await tab.locator("#functions tbody tr.hit").count(), 1);

    assert.deepEqual(problems, []);
    assert.deepEqual(requests, [url], "the page loads nothing but itself");

    // names from the name section stay text
    const bytes = namedModule();
    const { binary, report } = optimize(bytes, { passes: ["fold-functions"], target: "raw" });
    await tab.setContent(htmlReport(bytes, binary, report, { input: "<b>in</b>", output: "out" }), { waitUntil: "load" });
    const names = await tab.$$eval("#functions tbody tr td:nth-child(2)", (tds) => tds.map((td) => td.textContent));
    assert.deepEqual(names, ["<script>alert(1)</script>", `"quoted" & 'single'`, "</script><img src=x onerror=alert(2)>"]);
    assert.equal(await tab.locator("img").count(), 0);
    assert.equal(await tab.locator("script").count(), 1);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true });
  }
});
