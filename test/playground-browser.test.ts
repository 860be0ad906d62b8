// The playground in a real browser (Debian's chromium, headless, through
// playwright-core): the built page, opened as a file, optimizes a fixture in
// its worker and offers for download exactly the bytes the CLI writes for
// the same options, under a compressed target (so the page's gzip and
// brotli measures decide what is kept) and with passes unticked (so the
// checkboxes map to --passes). Its size table shows the CLI's gzip -9 and
// brotli q11 sizes, the report of the run renders in its frame, the console
// logs no error, and the page loads nothing but its own two files.
// Skipped, with the reason, where no chromium is installed (.ci/run installs it).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Page } from "playwright-core";
import { runSafely } from "../src/cli/run.js";
import { brotliSize, gzipSize } from "../src/cli/compress.js";
import { buildPlayground } from "../scripts/build-playground.js";
import { CHROMIUM, skip, watchPage } from "../scripts/chromium.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)); // dist/test -> repository root
const FIXTURE = join(ROOT, "fixtures/wasm/families-Oz.wasm");

/** The CLI's output for these options. */
function cliOutput(dir: string, args: string[]): Uint8Array {
  const out = join(dir, `cli-${args.join("-")}.wasm`);
  const err: string[] = [];
  const status = runSafely([FIXTURE, "-o", out, ...args, "-q"], { stdout: () => {}, stderr: (s: string) => void err.push(s), stderrIsTTY: false, env: {} });
  assert.equal(status, 0, err.join(""));
  return new Uint8Array(readFileSync(out));
}

/** Waits for the run to end and returns the downloaded output. */
async function downloaded(tab: Page): Promise<Uint8Array> {
  await tab.waitForFunction(() => document.body.dataset.state === "done" || document.body.dataset.state === "error", null, { timeout: 240_000 });
  assert.equal(await tab.evaluate(() => document.body.dataset.state), "done", await tab.locator("#status").textContent() ?? "");
  const [file] = await Promise.all([tab.waitForEvent("download"), tab.locator("#download").click()]);
  assert.equal(file.suggestedFilename(), "families-Oz.min.wasm");
  return new Uint8Array(readFileSync((await file.path())!));
}

/** The size table, by row label: [before, after]. */
async function sizeTable(tab: Page): Promise<Map<string, [number, number]>> {
  const rows = await tab.$$eval("#size-table tbody tr", (trs) => trs.map((tr) => Array.from((tr as HTMLTableRowElement).cells).map((c) => c.textContent ?? "")));
  return new Map(rows.map((r) => [r[0]!, [Number(r[1]!.replace(/,/g, "")), Number(r[2]!.replace(/,/g, ""))]]));
}

test("playground: the page's output for a fixture is byte-identical to the CLI's (balanced, default passes; gzip, passes unticked)", { skip, timeout: 600_000 }, async () => {
  const { chromium } = await import("playwright-core");
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-playground-"));
  const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ["--no-sandbox"] });
  try {
    const site = await buildPlayground(join(dir, "site"));
    const tab = await browser.newPage();
    const { problems, requests } = watchPage(tab);
    await tab.goto(pathToFileURL(site.html).href, { waitUntil: "load" });
    // the pass list comes from the worker once its brotli encoder is loaded
    await tab.locator('#passes input[value="outline"]').waitFor({ timeout: 60_000 });

    // 1. the defaults: target balanced, every pass of its default pipeline
    await tab.locator("#file").setInputFiles(FIXTURE);
    const balanced = await downloaded(tab);
    const cliBalanced = cliOutput(dir, ["--target", "balanced"]);
    assert.ok(cliBalanced.length < readFileSync(FIXTURE).length, "the fixture shrinks (a run that changes nothing would prove little)");
    assert.deepEqual(balanced, cliBalanced, "balanced: the page's output is the CLI's");

    const input = new Uint8Array(readFileSync(FIXTURE));
    const sizes = await sizeTable(tab);
    assert.deepEqual(sizes.get("raw (.wasm bytes)"), [input.length, cliBalanced.length]);
    assert.deepEqual(sizes.get("gzip -9 (as the CLI measures)"), [gzipSize(input), gzipSize(cliBalanced)]);
    assert.deepEqual(sizes.get("brotli q11 (as the CLI measures)"), [brotliSize(input), brotliSize(cliBalanced)]);
    const stream = sizes.get("gzip (the browser's CompressionStream)");
    assert.ok(stream && stream[0] > 0 && stream[1] > 0, "CompressionStream sizes");

    // the report of the run: per-pass and per-function rows
    const report = tab.frameLocator("#report-frame");
    assert.ok((await report.locator("#passes tbody tr").count()) >= 6, "a row per pass");
    assert.ok((await report.locator("#functions tbody tr").count()) > 20, "function rows");

    // 2. target gzip with outline and layout unticked: --passes with the rest, in the gzip pipeline's order
    await tab.locator("#target").selectOption("gzip");
    await tab.locator('#passes input[value="outline"]').uncheck();
    await tab.locator('#passes input[value="layout"]').uncheck();
    await tab.locator("#run").click();
    const gzip = await downloaded(tab);
    assert.deepEqual(gzip, cliOutput(dir, ["--target", "gzip", "--passes", "fold-functions,merge-functions,fold-blocks,cleanup"]), "gzip with four passes: the page's output is the CLI's");

    assert.deepEqual(problems, []);
    const foreign = requests.filter((u) => !u.startsWith(pathToFileURL(join(dir, "site")).href) && !u.startsWith("blob:"));
    assert.deepEqual(foreign, [], "the page loads nothing but its own files");
  } finally {
    await browser.close();
    rmSync(dir, { recursive: true });
  }
});
