// The behaviour oracle over the npm corpus (test/oracle): the small workloads
// pass with the identity pipeline, and a deliberately broken pass (one that
// keeps the module valid and the same size but swaps two constants) is caught.

import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { validateModule } from "../src/analysis/validate.js";
import { optimize } from "../src/index.js";
import { corpusEntry } from "./corpus/corpus.js";
import { brokenPass, findSwapSite, swapConstants } from "./oracle/broken-pass.js";
import { firstDifference, formatResult, runWorkload, runWorkloadOnEngines, selectWorkloads, summarize, type WorkloadResult } from "./oracle/run-corpus.js";
import { findWorkload } from "./oracle/workloads/index.js";
import { pythonWords } from "./oracle/workloads/ruff-fmt.js";

test("firstDifference finds the first differing place, and only real differences", () => {
  assert.equal(firstDifference({ a: [1, "x", { b: null }] }, { a: [1, "x", { b: null }] }), null);
  assert.equal(firstDifference({ a: [1, 2, 3] }, { a: [1, 5, 3] }), "$.a[1]: 2 vs 5");
  assert.equal(firstDifference({ a: [1, 2] }, { a: [1, 2, 3] }), "$.a: length 2 vs 3");
  assert.equal(firstDifference({ a: 1 }, { a: 1, b: 2 }), "$.b: (missing) vs 2");
  assert.equal(firstDifference({ "x y": "1" }, { "x y": 1 }), '$["x y"]: "1" vs 1');
  assert.equal(firstDifference(null, false), "$: null vs false");
  const long = "a".repeat(500);
  assert.match(firstDifference(long + "b", long + "c")!, /^\$ \(at character 500\): /);
});

test("pythonWords (ruff-fmt's check) keeps names and keywords, and skips strings, prefixes, comments and numbers", () => {
  const src = [
    "def f(a, b=0x1F, *c):  # comment with words",
    "    '''doc with def and \\''' quotes'''",
    "    x = r'raw \\'' + u\"uni\" + b'\\x00' + f\"{a}\" + 1.5e-3 + 2j",
    "    return not x is None and naïve_λ",
  ].join("\n");
  assert.deepEqual(pythonWords(src), ["def", "f", "a", "b", "c", "x", "return", "not", "x", "is", "None", "and", "naïve_λ"]);
  // what a formatter may change (quotes, a u prefix, comments, spacing) leaves the words as they were
  const formatted = [
    "def f(a, b=0x1F, *c):  # Comment With Words",
    '    """doc with def and \\""" quotes"""',
    "    x = r\"raw '\" + \"uni\" + b\"\\x00\" + f\"{a}\" + 1.5e-3 + 2j",
    "    return not x is None and naïve_λ",
    "",
  ].join("\n");
  assert.deepEqual(pythonWords(formatted), pythonWords(src));
  // a changed name does not
  assert.notDeepEqual(pythonWords(src.replace("return not x", "return not y")), pythonWords(src));
});

test("the small workloads give identical outputs with the identity pipeline", async (t) => {
  const workloads = selectWorkloads({});
  assert.ok(workloads.length >= 6, "all small workloads are selected");
  assert.ok(!workloads.some((w) => w.size === "big"), "big workloads are left to npm run corpus -- --all");
  const results: WorkloadResult[] = [];
  for (const w of workloads) {
    await t.test(w.name, async () => {
      const r = await runWorkload(w, { passes: [] });
      results.push(r);
      assert.equal(r.status, "ok", `${w.name}: ${r.status}: ${r.detail}`);
      assert.ok(r.modules.length > 0 && r.modules.every((m) => m.after > 0));
    });
  }
  assert.equal(summarize(results).exitCode, 0);
});

test("the broken test pass keeps hash-wasm's md5 module valid and the same size, but changes its code", () => {
  const original = corpusEntry("hash-wasm-md5").bytes();
  const m = readModule(original);
  const site = findSwapSite(m);
  assert.ok(site, "md5 has a function with two distinct i32.const");
  assert.notEqual(site.values[0], site.values[1]);
  swapConstants(m);
  const broken = writeModule(m);
  assert.equal(broken.length, original.length, "swapping two constants keeps the size (so the pipeline keeps the pass)");
  assert.notDeepEqual(broken, original);
  const reread = readModule(broken);
  decodeAllBodies(reread);
  validateModule(reread); // throws if invalid

  // Through the pipeline, as the oracle runs it: kept, and reported as a change.
  const { binary, report } = optimize(original, { passes: [brokenPass] });
  assert.deepEqual(binary, broken);
  assert.equal(report.passes[0]?.kept, true);
  assert.equal(report.passes[0]?.changed, true);
});

test("the oracle reports DIFFERENT when one module computes something else", async () => {
  // Only md5 is broken: every run completes, and the first difference is an md5 digest.
  const r = await runWorkload(findWorkload("hash-wasm"), { passes: [brokenPass], modules: ["hash-wasm-md5"] });
  assert.deepEqual(
    r.modules.filter((m) => !m.unchanged).map((m) => m.name),
    ["hash-wasm-md5"],
    "only the md5 module was changed",
  );
  assert.equal(r.status, "DIFFERENT", `expected DIFFERENT, got ${r.status}: ${r.detail}`);
  assert.match(r.detail ?? "", /^\$\.digests\.md5\.\w+: "[0-9a-f]{32}" vs "[0-9a-f]{32}"$/);
  assert.ok(r.originalMs! > 0 && r.optimizedMs! > 0, "both runs completed");
  assert.equal(summarize([r]).exitCode, 1);
});

test("with engines, the modules are optimized once and compared under each engine (here the running node twice: tests never fetch)", async () => {
  const engines = [
    { name: "first", execPath: process.execPath },
    { name: "second", execPath: process.execPath },
  ];
  const rs = await runWorkloadOnEngines(findWorkload("hash-wasm"), { passes: [brokenPass], modules: ["hash-wasm-md5"], engines });
  assert.deepEqual(rs.map((r) => [r.engine, r.status]), [["first", "DIFFERENT"], ["second", "DIFFERENT"]]);
  for (const r of rs) assert.match(r.detail ?? "", /^\$\.digests\.md5\.\w+: /);
  assert.equal(rs[0]!.modules, rs[1]!.modules, "one optimization for both engines");
  assert.match(formatResult(rs[1]!), /^DIFFERENT hash-wasm \[second\] /);
  assert.match(summarize(rs).line, /^2 runs: 0 ok, 2 DIFFERENT, 0 error$/);
  // runWorkload takes the first engine only
  const one = await runWorkload(findWorkload("hash-wasm"), { modules: ["hash-wasm-md5"], engines });
  assert.deepEqual([one.engine, one.status], ["first", "ok"]);
});

test("the oracle reports DIFFERENT when the optimized modules crash", async () => {
  // Broken everywhere: some modules now compute out-of-bounds addresses and trap.
  const r = await runWorkload(findWorkload("hash-wasm"), { passes: [brokenPass] });
  assert.ok(r.modules.filter((m) => !m.unchanged).length > 10, "the broken pass changed most modules");
  assert.equal(r.status, "DIFFERENT", `expected DIFFERENT, got ${r.status}: ${r.detail}`);
  assert.ok(r.detail && r.detail.length > 0, "the report says what differed");
});

test("coverage mode: instrumented modules behave the same and report which functions ran", async () => {
  const r = await runWorkload(findWorkload("hash-wasm"), { coverage: true });
  assert.equal(r.status, "ok", `${r.status}: ${r.detail}`);
  const md5 = r.coverage?.find((c) => c.name === "hash-wasm-md5");
  assert.ok(md5, "coverage is reported per module");
  assert.equal(md5.functions, 7);
  assert.ok(md5.executed !== null && md5.executed >= 5 && md5.executed <= md5.functions, `md5 functions run: ${md5.executed}`);
  assert.ok(md5.executedCodeBytes !== null && md5.executedCodeBytes > 0.9 * md5.codeBytes);
});
