// The HTML report (--html): the treemap layout, what became of each function
// (function-fates.ts), per-function sizes read from binaries, the page's
// content and its escaping of names from the untrusted name section, and the
// CLI option. report-html-browser.test.ts opens a page in a real browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { squarify } from "../src/treemap.js";
import { functionRows, type FunctionRow } from "../src/function-fates.js";
import { moduleFunctions, type FunctionSize, type ModuleFunctions } from "../src/function-sizes.js";
import { escapeHtml, reportHtml } from "../src/report-html.js";
import { optimize } from "../src/pipeline.js";
import { htmlReport } from "../src/cli/html-report.js";
import { runSafely, type CliIO } from "../src/cli/run.js";
import type { MergeMapEntry } from "../src/passes/merge-map.js";
import { ADD1, HOSTILE, MUL7, namedModule } from "./named-module.js";
import { rng } from "./random-body.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)); // dist/test -> repository root

// ---------------------------------------------------------------- treemap

test("squarify: one tile per positive value, areas proportional, inside the box, no overlaps (randomized, seed 19)", () => {
  const rand = rng(19);
  for (let round = 0; round < 200; round++) {
    const n = 1 + Math.floor(rand() * 40);
    const values = Array.from({ length: n }, () => (rand() < 0.1 ? 0 : Math.floor(rand() ** 3 * 5000)));
    const box = { x: 3, y: 5, w: 50 + rand() * 1000, h: 50 + rand() * 600 };
    const tiles = squarify(values.map((value, item) => ({ value, item })), box);
    const positive = values.filter((v) => v > 0);
    assert.equal(tiles.length, positive.length);
    const total = positive.reduce((s, v) => s + v, 0);
    const eps = 1e-6 * box.w * box.h;
    for (const t of tiles) {
      assert.ok(Math.abs(t.w * t.h - (values[t.item]! / total) * box.w * box.h) < eps, "area proportional to value");
      assert.ok(t.x >= box.x - 1e-6 && t.y >= box.y - 1e-6 && t.x + t.w <= box.x + box.w + 1e-6 && t.y + t.h <= box.y + box.h + 1e-6, "inside the box");
    }
    for (let i = 0; i < tiles.length; i++) {
      for (let j = i + 1; j < tiles.length; j++) {
        const a = tiles[i]!;
        const b = tiles[j]!;
        const ox = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x);
        const oy = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
        assert.ok(ox <= 1e-6 || oy <= 1e-6, "tiles do not overlap");
      }
    }
    const values2 = tiles.map((t) => values[t.item]!);
    assert.deepEqual(values2, [...values2].sort((a, b) => b - a), "largest first");
  }
});

test("squarify: nothing for an empty list, all-zero values or an empty box; squares for equal values in a square", () => {
  assert.deepEqual(squarify([], { x: 0, y: 0, w: 10, h: 10 }), []);
  assert.deepEqual(squarify([{ value: 0, item: 1 }], { x: 0, y: 0, w: 10, h: 10 }), []);
  assert.deepEqual(squarify([{ value: 5, item: 1 }], { x: 0, y: 0, w: 0, h: 10 }), []);
  const four = squarify([1, 1, 1, 1].map((value, item) => ({ value, item })), { x: 0, y: 0, w: 10, h: 10 });
  for (const t of four) assert.ok(Math.abs(t.w - 5) < 1e-9 && Math.abs(t.h - 5) < 1e-9);
});

// ---------------------------------------------------------------- function sizes and fates

test("moduleFunctions: index, name, exports and code-section bytes of each defined function", () => {
  const m = moduleFunctions(namedModule(["one", "two", "three"]));
  assert.equal(m.imported, 0);
  assert.equal(m.named, true);
  assert.deepEqual(
    m.functions.map((f) => ({ index: f.index, name: f.name, exports: f.exports, size: f.size })),
    [
      { index: 0, name: "one", exports: ["a"], size: ADD1.length + 1 },
      { index: 1, name: "two", exports: ["b"], size: ADD1.length + 1 },
      { index: 2, name: "three", exports: ["c"], size: MUL7.length + 1 },
    ],
  );
  // the sizes add up to the code section's payload less its count
  const total = m.functions.reduce((s, f) => s + f.size, 0);
  assert.equal(total, ADD1.length + 1 + ADD1.length + 1 + MUL7.length + 1);
});

const fn = (index: number, size: number, extra: Partial<FunctionSize> = {}, body?: number[]): FunctionSize => ({
  index,
  size,
  exports: [],
  body: new Uint8Array(body ?? [index, size]),
  ...extra,
});
const mod = (functions: FunctionSize[], imported = 0): ModuleFunctions => ({ imported, functions, named: functions.some((f) => f.name !== undefined) });
const brief = (rows: FunctionRow[]) =>
  rows.map((r) => [r.input?.index ?? null, r.output?.index ?? null, r.fate, r.matchedBy ?? null, r.into?.origin ?? null, r.extracted.map((e) => `${e.into.origin}x${e.sites}`).join(",")]);

test("functionRows: the merge map first (folded, thunk, extracted, new), then names, exports and identical bodies", () => {
  // input: 1 import, defined 1..7; output: defined 1..5 (+ 6 new)
  const input = mod(
    [
      fn(1, 10, { name: "kept" }),
      fn(2, 20, { name: "folded" }),
      fn(3, 30, { name: "thunk" }),
      fn(4, 40, { name: "host" }),
      fn(5, 50, { exports: ["e"] }),
      fn(6, 60, {}, [9, 9, 9]),
      fn(7, 70, { name: "gone" }),
    ],
    1,
  );
  const output = mod(
    [
      fn(1, 35, { name: "host" }),
      fn(2, 8, { name: "thunk" }),
      fn(3, 11, { name: "kept" }),
      fn(4, 49, { exports: ["e"] }),
      fn(5, 60, {}, [9, 9, 9]),
      fn(6, 12, { name: "outlined" }),
    ],
    1,
  );
  const map: MergeMapEntry[] = [
    { function: { origin: 2, name: "folded" }, became: "folded", into: { origin: 1, name: "kept", output: 3 } },
    { function: { origin: 3, name: "thunk", output: 2 }, became: "thunk", into: { origin: 1, name: "kept", output: 3 }, args: ["i32.const 1"] },
    { function: { origin: 4, name: "host", output: 1 }, became: "extracted", into: { origin: -1, output: 6 }, sites: 2 },
  ];
  assert.deepEqual(brief(functionRows(map, input, output)), [
    [1, 3, "kept", "name", null, ""],
    [2, null, "folded", null, 1, ""],
    [3, 2, "thunk", "merge map", 1, ""],
    [4, 1, "kept", "merge map", null, "-1x2"],
    [5, 4, "kept", "export", null, ""],
    [6, 5, "kept", "identical body", null, ""],
    [7, null, "removed", null, null, ""],
    [null, 6, "new", null, null, ""],
  ]);
});

test("functionRows: ambiguous names, exports and bodies match nothing; what is left is unmatched on both sides, never guessed", () => {
  const input = mod([fn(0, 10, { name: "dup" }, [0xa0]), fn(1, 10, { name: "dup" }, [0xa1]), fn(2, 5, {}, [1]), fn(3, 5, {}, [1]), fn(4, 7, {}, [0xa4])]);
  const output = mod([fn(0, 10, { name: "dup" }, [0xb0]), fn(1, 5, {}, [1]), fn(2, 9, {}, [0xb2])]);
  const rows = functionRows([], input, output);
  assert.deepEqual(brief(rows), [
    [0, null, "unmatched", null, null, ""],
    [1, null, "unmatched", null, null, ""],
    [2, null, "unmatched", null, null, ""],
    [3, null, "unmatched", null, null, ""],
    [4, null, "unmatched", null, null, ""],
    [null, 0, "unmatched", null, null, ""],
    [null, 1, "unmatched", null, null, ""],
    [null, 2, "unmatched", null, null, ""],
  ]);
});

// ---------------------------------------------------------------- the page

function hostileReport(): { html: string; bytes: Uint8Array } {
  const bytes = namedModule();
  const { binary, report } = optimize(bytes, { passes: ["fold-functions"], target: "raw" });
  assert.equal(report.mergeMap.length, 1, "function 1 folds into function 0");
  return { html: htmlReport(bytes, binary, report, { input: `in<put>".wasm`, output: "out.wasm" }), bytes };
}

test("escapeHtml escapes the five characters that matter in text and attributes", () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;");
});

test("reportHtml: names from the name section are escaped everywhere; one script, no fetch, no external reference", () => {
  const { html } = hostileReport();
  for (const name of [...HOSTILE, `in<put>".wasm`]) {
    assert.ok(!html.includes(name), `the raw name ${name} is not in the page`);
    assert.ok(html.includes(escapeHtml(name)), `the escaped name ${name} is`);
  }
  assert.equal(html.match(/<script/g)?.length, 1, "only the page's own script");
  assert.equal(html.match(/<\/script/g)?.length, 1);
  assert.doesNotMatch(html, /<img/i, "no element from a name");
  assert.doesNotMatch(html, /<[^>]*\b(src|href)\s*=/i, "no element loads anything");
  assert.doesNotMatch(html, /<link\b|@import|url\(/i);
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
});

test("reportHtml: the size table, passes, functions, treemap, merge map, notes and features", () => {
  const { html, bytes } = hostileReport();
  const table = (id: string): string => {
    const m = new RegExp(`<table id="${id}"[^]*?</table>`).exec(html);
    assert.ok(m, `table ${id}`);
    return m[0];
  };
  const sizes = table("sizes");
  for (const row of ["whole file", "code section", "custom sections", "gzip -9 (whole file)", "brotli q11 (whole file)"]) assert.ok(sizes.includes(`<td>${row}</td>`), row);
  assert.ok(sizes.includes(`data-v="${bytes.length}"`), "the input's size");
  const passes = table("passes");
  assert.ok(passes.includes("<td>fold-functions</td>"));
  assert.ok(passes.includes("all passes"));
  const functions = table("functions");
  assert.equal(functions.match(/<tr id="fn-/g)?.length, 3, "one row per input function");
  assert.ok(functions.includes(`folded into ${escapeHtml(HOSTILE[0]!)} (input #0, output #0)`));
  assert.ok(functions.includes(`<tr id="fn-i1" class="f-folded">`));
  assert.equal(html.match(/<rect /g)?.length, 2, "a tile per output function");
  assert.ok(html.includes(`data-row="fn-i0"`) && html.includes(`data-row="fn-i2"`));
  const mergeMap = table("mergemap");
  assert.equal(mergeMap.split("<tbody>")[1]!.match(/<tr>/g)?.length, 1, "one entry");
  assert.ok(mergeMap.includes("<td>folded</td>"));
  assert.ok(html.includes('data-filter="functions"') && html.includes('data-filter="mergemap"'), "search boxes");
  assert.ok(table("features").includes("the output uses"));
  assert.ok(table("sections").includes("<td>custom:name</td>"));
  assert.match(html, /<h2 id="h-removed">Removed sections<\/h2>\n<p>No section was removed.<\/p>/);
});

test("reportHtml: without compressed sizes or functions the page still says so", () => {
  const { report } = optimize(namedModule(), { passes: [], target: "raw" });
  const html = reportHtml({ report, files: { input: "a", output: "b" }, functions: [] });
  assert.ok(!html.includes("gzip -9"));
  assert.ok(html.includes("The output defines no functions."));
  assert.ok(html.includes("No passes ran."));
  assert.ok(html.includes("No function was folded, merged or extracted."));
});

// ---------------------------------------------------------------- the CLI option

function io(): CliIO & { out: string; err: string; bin: Uint8Array[] } {
  const r = {
    out: "",
    err: "",
    bin: [] as Uint8Array[],
    stdout: (s: string) => void (r.out += s),
    stderr: (s: string) => void (r.err += s),
    stdoutBytes: (b: Uint8Array) => void r.bin.push(b),
    stderrIsTTY: false,
    env: {},
  };
  return r;
}

function scratch(): { dir: string; input: string; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-html-"));
  const input = join(dir, "in.wasm");
  writeFileSync(input, namedModule());
  return { dir, input, output: join(dir, "out.wasm") };
}

const QUICK = ["--passes", "fold-functions", "--target", "raw", "-q"];

test("--html FILE writes the page with the other outputs; --html - prints it", () => {
  const { dir, input, output } = scratch();
  const html = join(dir, "r", "report.html");
  const json = join(dir, "report.json");
  const map = join(dir, "map.json");
  let r = io();
  assert.equal(runSafely([input, "-o", output, "--html", html, "--json", json, "--map", map, ...QUICK], r), 0, r.err);
  const page = readFileSync(html, "utf8");
  assert.match(page, /^<!DOCTYPE html>/);
  assert.ok(page.includes(escapeHtml(input)));
  assert.equal(JSON.parse(readFileSync(map, "utf8")).functions.length, 1);
  assert.deepEqual(readdirSync(dir).sort(), ["in.wasm", "map.json", "out.wasm", "r", "report.json"], "no temp file left");
  // -o - with --html FILE, and --html - with -o FILE
  r = io();
  assert.equal(runSafely([input, "-o", "-", "--html", html, "--json", json, ...QUICK], r), 0, r.err);
  assert.equal(r.bin.length, 1);
  assert.equal(r.out, "");
  r = io();
  assert.equal(runSafely([input, "-o", output, "--html", "-", "--map", map, ...QUICK], r), 0, r.err);
  assert.match(r.out, /^<!DOCTYPE html>[^]*<\/html>\n$/);
  rmSync(dir, { recursive: true });
});

test("--html: a bad path is a usage error before any work, and nothing is written", () => {
  const { dir, input, output } = scratch();
  mkdirSync(join(dir, "sub"));
  const cases: [string[], RegExp][] = [
    [["--html", ""], /the --html file name is empty/],
    [["--html", join(dir, "sub")], /is a directory; --html needs a file name/],
    [["--html", input], /--html .* is the input file/],
    [["--html", output], /--html .* is the same file as -o/],
    [["--html", join(dir, "x"), "--json", join(dir, "x")], /--json and --html name the same file/],
    [["--html", join(dir, "x"), "--map", join(dir, "x")], /--map and --html name the same file/],
    [["--html", "-", "--json", "-"], /--json and --html cannot both write to stdout/],
  ];
  for (const [args, message] of cases) {
    const r = io();
    assert.equal(runSafely([input, "-o", output, ...args, ...QUICK], r), 2, args.join(" "));
    assert.match(r.err, message);
    assert.deepEqual(readdirSync(dir).sort(), ["in.wasm", "sub"], "nothing written");
  }
  const r = io();
  assert.equal(runSafely([input, "-o", "-", "--html", "-", ...QUICK], r), 2);
  assert.match(r.err, /-o - writes the module to stdout; --html cannot write there too/);
  rmSync(dir, { recursive: true });
});

test("the README and --help document --html", () => {
  const r = io();
  assert.equal(runSafely(["--help"], r), 0);
  assert.match(r.out, /--html FILE {5}write a self-contained HTML report/);
  assert.match(readFileSync(join(ROOT, "README.md"), "utf8"), /--html FILE/);
});

test("reportHtml: what a created function holds, and a host's extracted code in one line", () => {
  const { report } = optimize(namedModule(), { passes: [], target: "raw" });
  const mergeMap: MergeMapEntry[] = [
    { function: { origin: 0, name: "p", output: 0 }, became: "thunk", into: { origin: -1, name: "merged[0]", output: 2 } },
    { function: { origin: 1, name: "q" }, became: "folded", into: { origin: -1, name: "merged[0]", output: 2 } },
    { function: { origin: 0, name: "p", output: 0 }, became: "extracted", into: { origin: -2, name: "outlined$1", output: 3 }, sites: 3 },
    { function: { origin: 0, name: "p", output: 0 }, became: "extracted", into: { origin: -3, output: 4 }, sites: 1 },
  ];
  const input = mod([fn(0, 10, { name: "p" }), fn(1, 10, { name: "q" })]);
  const output = mod([fn(0, 4, { name: "p" }), fn(2, 9, { name: "merged[0]" }), fn(3, 5, { name: "outlined$1" }), fn(4, 5)]);
  const html = reportHtml({ report: { ...report, mergeMap }, files: { input: "a", output: "b" }, functions: functionRows(mergeMap, input, output) });
  assert.ok(html.includes("<td>new: merges 2 functions</td>"));
  assert.ok(html.includes("<td>new: holds code extracted from 1 function</td>"));
  assert.ok(html.includes("code from 4 places extracted into 2 new functions: outlined$1 (#3) \u00d73, new (#4)"));
});
