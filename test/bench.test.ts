// The benchmark, end to end in --quick mode on one small corpus module, with a
// small synthetic workload (an MD5 of a fixed input through the module's own
// exports, checked against node:crypto) so the runtime path runs too, under
// two size targets and profile-guided, with an A/A row, under both tiering
// modes of the running node (the tests never fetch another engine); plus the
// statistics, the feature detection, the engine cache and the profile
// recording it relies on.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { BenchResults } from "../bench/results.js";
import { fmtInterval, geomean, median, medianCI, PAIRED_CI_METHOD, ratioOfBestCI, ratioOfMediansCI, rng } from "../bench/stats.js";
import { detectFeatures, parseTargetFeatures } from "../bench/features.js";
import { selectEntries } from "../bench/bench.js";
import { parseTargets, timingOf } from "../bench/targets.js";
import { corpus, corpusEntry } from "./corpus/corpus.js";

/** The running node as an engine name ("node20" on Node 20): the tests never fetch another one. */
const ENGINE = `node${process.versions.node.split(".")[0]}`;
const BENCH = fileURLToPath(new URL("../bench/bench.js", import.meta.url));
const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));
const CORPUS = pathToFileURL(fileURLToPath(new URL("./corpus/corpus.js", import.meta.url))).href;

const WORKLOAD = `
import { createHash } from "node:crypto";
import { corpusEntry } from ${JSON.stringify(CORPUS)};
export const workload = {
  name: "md5-smoke",
  size: "small",
  description: "hash-wasm's MD5 module hashing a fixed buffer through its exports",
  wasm: () => [{ name: "hash-wasm-md5", bytes: corpusEntry("hash-wasm-md5").bytes() }],
  async run(wasm, ctx) {
    const { instance } = await WebAssembly.instantiate(wasm[0], {});
    const e = instance.exports;
    const data = new Uint8Array(4096).map((_, i) => (i * 31 + 7) & 255);
    const buf = e.Hash_GetBuffer();
    e.Hash_Init();
    for (let off = 0; off < data.length; off += 1024) {
      new Uint8Array(e.memory.buffer, buf, 1024).set(data.subarray(off, off + 1024));
      e.Hash_Update(1024);
    }
    e.Hash_Final();
    const hex = Buffer.from(new Uint8Array(e.memory.buffer, e.Hash_GetBuffer(), 16)).toString("hex");
    ctx.check(hex === createHash("md5").update(data).digest("hex"), "md5 matches node:crypto");
    return hex;
  },
};
`;

/** A workloads directory under `dir` holding only the md5-smoke workload (for --workloads). */
function smokeWorkloads(dir: string): string {
  const wdir = join(dir, "workloads");
  mkdirSync(wdir);
  writeFileSync(join(wdir, "md5-smoke.js"), WORKLOAD);
  writeFileSync(join(wdir, "package.json"), '{ "type": "module" }');
  return wdir;
}

test("bench --quick on one small module writes the JSON, the HTML and a markdown table, with runtime rows per target, profile-guided, A/A, engine and tiering mode", () => {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-bench-test-"));
  try {
    const wdir = smokeWorkloads(dir);
    const out = join(dir, "results");
    const r = spawnSync(process.execPath, [BENCH, "--only", "hash-wasm-md5", "--quick", "--targets", "balanced", "--time-targets", "raw,balanced", "--runtime-targets", "raw,balanced", "--profile-guided", "--engines", ENGINE, "--tiering", "no-liftoff,default", "--aa", "--out", out, "--workloads", wdir], {
      encoding: "utf8",
      timeout: 180_000,
    });
    assert.equal(r.status, 0, `bench failed:\n${r.stderr}`);

    // Markdown on stdout.
    assert.match(r.stdout, /^\| hash-wasm-md5 \| [\d,]+ \| [\d,]+ \| \d\.\d{4} \|/m);
    assert.match(r.stdout, /^### Sizes per size target .*targets: balanced, raw\)$/m);
    assert.match(r.stdout, /^\| hash-wasm-md5 \| raw \| \d\.\d{4} \| \d\.\d{4} \| \d\.\d{4} \| \d\.\d{4} \|/m);
    assert.match(r.stdout, /^\| \*\*geomean\*\* \| \*\*balanced\*\* \| \*\*\d\.\d{4}\*\* \|/m);
    assert.match(r.stdout, /^### Time per size target /m);
    assert.match(r.stdout, /^\| module \| raw \| balanced \|$/m);
    // "812 ms (0.123)", or "1.02 s (0.123)" on a loaded machine
    assert.match(r.stdout, /^\| hash-wasm-md5 \| (\d+ ms|\d+\.\d\d s) \(\d\.\d{3}\) \| (\d+ ms|\d+\.\d\d s) \(\d\.\d{3}\) \|$/m);
    assert.match(r.stdout, /^\| \*\*largest ratio\*\* \| \*\*\d\.\d{3}\*\* \(hash-wasm-md5\) \|/m);
    const balancedRow = new RegExp(`^\\| md5-smoke \\| balanced \\| ${ENGINE} no-liftoff \\| ([^|]*) \\|`, "m").exec(r.stdout);
    assert.ok(balancedRow, "a runtime row for the balanced target");
    for (const mode of ["no-liftoff", "default"]) {
      for (const v of ["A/A", "raw", "raw, profile-guided", "balanced", "balanced, profile-guided"]) {
        assert.match(r.stdout, new RegExp(`^\\| md5-smoke \\| ${v} \\| ${ENGINE} ${mode} \\| all[^|]* \\| \\d+\\.\\d{3} \\|`, "m"), `runtime row ${v} ${mode}`);
        // the summary per engine and mode: geomean, and the worst row (no interval from one pair; one quick pair of
        // 1 ms runs on a loaded machine can give any ratio, 24.672 was seen)
        assert.match(r.stdout, new RegExp(`^\\| ${ENGINE} \\| v[\\d.]+, V8 \\d+\\.\\d+ \\| ${mode} \\| ${v} \\| 1 \\| \\d+\\.\\d{3} \\| \\d+\\.\\d{3} \\(n=1, no interval\\) \\| md5-smoke \\|$`, "m"), `engine summary row ${v} ${mode}`);
      }
    }
    for (const v of ["raw", "raw, profile-guided", "balanced", "balanced, profile-guided"]) {
      // listed once, not once per engine and mode
      assert.equal(r.stdout.match(new RegExp(`^\\| md5-smoke \\| ${v} \\| hash-wasm-md5 \\| \\d\\.\\d{4} \\|`, "gm"))?.length, 1, `size row ${v}`);
    }
    assert.match(r.stdout, /^\| md5-smoke \| A\/A \| [^|]* \| all \(a byte-identical copy of the baseline: the A\/A row/m);
    assert.match(r.stdout, /^### Runtime per engine and tiering mode /m);
    assert.match(r.stdout, /^- md5-smoke \(raw, profile-guided\): profile: [1-9]\d* of \d+ blocks hot/m, "the profile saw the hashing loop run");

    const res = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as BenchResults;
    // the A/A label marks exactly the rows whose optimized module is the baseline's bytes
    assert.equal(balancedRow[1]!.includes("an A/A run, the spread is noise"), res.files[0]!.ours!.identicalToBaseline);
    assert.equal(res.schema, 1);
    assert.equal(res.options.quick, true);
    assert.equal(res.files.length, 1);
    const f = res.files[0]!;
    assert.equal(f.name, "hash-wasm-md5");
    assert.deepEqual(f.errors, []);
    const entry = corpusEntry("hash-wasm-md5");
    assert.equal(f.input.bytes, entry.size);
    assert.equal(f.input.sha256, entry.sha256);
    assert.ok(f.features && Array.isArray(f.features.flags));
    // Baseline and ours: all four sizes, consistent ratios.
    assert.ok(f.baseline && f.ours && f.ratio);
    for (const k of ["file", "code", "gzip", "brotli"] as const) {
      assert.ok(f.baseline.sizes[k] > 0 && f.ours.sizes[k] > 0, k);
      assert.ok(Math.abs(f.ratio[k] - f.ours.sizes[k] / f.baseline.sizes[k]) < 1e-12, k);
    }
    assert.ok(f.baseline.sizes.file < entry.size + 1024, "the -Oz baseline is about the input's size");
    assert.ok(f.baseline.sizes.code < f.baseline.sizes.file);
    assert.equal(f.ours.deterministic, true);
    assert.equal(typeof f.ours.identicalToBaseline, "boolean");
    assert.ok(Array.isArray(f.ours.passes));
    // Size targets: balanced is the timed run itself; raw, added by --time-targets, is timed the same way.
    assert.deepEqual(res.options.targets, ["balanced", "raw"]);
    assert.deepEqual(res.options.timeTargets, ["raw", "balanced"]);
    assert.deepEqual(f.targets?.map((t) => t.target), ["balanced", "raw"]);
    for (const t of f.targets!) {
      assert.equal(t.error, null);
      assert.ok(t.sizes && t.ratio && t.wallMs !== null && t.wallMs > 0, t.target);
      for (const k of ["file", "code", "gzip", "brotli"] as const) assert.ok(Math.abs(t.ratio[k] - t.sizes[k] / f.baseline.sizes[k]) < 1e-12, `${t.target} ${k}`);
    }
    assert.deepEqual(f.targets![0]!.sizes, f.ours.sizes, "the balanced entry is the timed run's output");
    const raw = f.targets![1]!;
    assert.ok(raw.sizes!.file <= f.baseline.sizes.file, "never larger than the input");
    const g = res.summary.targetGeomean?.raw;
    assert.ok(g && Math.abs(g.gzip - raw.ratio!.gzip) < 1e-12, "one file: the geomean is its ratio");
    // --time-targets: raw has its own runs of both tools, and the summary per timed target.
    assert.ok(raw.timing, "raw is timed");
    assert.equal(raw.timing.reps, 1);
    assert.equal(raw.timing.ours.wallMs.length, 1);
    assert.equal(raw.timing.wasmOpt.wallMs.length, 1);
    assert.equal(raw.wallMs, raw.timing.ours.medianWallMs);
    assert.ok(Math.abs(raw.timing.wallRatio - raw.timing.ours.medianWallMs / raw.timing.wasmOpt.medianWallMs) < 1e-9);
    assert.equal(timingOf(f, "balanced"), f.timing, "the default target's timing is the timed run's");
    assert.equal(f.targets![0]!.timing, undefined, "and is not stored twice");
    assert.equal(timingOf(f, "raw"), raw.timing);
    const tt = res.summary.targetTiming;
    assert.ok(tt?.raw && tt.balanced);
    assert.equal(tt.raw.files, 1);
    assert.equal(tt.raw.slowest, "hash-wasm-md5");
    assert.ok(Math.abs(tt.raw.geomeanWallRatio - raw.timing.wallRatio) < 1e-12 && tt.raw.maxWallRatio === raw.timing.wallRatio);
    assert.ok(Math.abs(tt.balanced.geomeanWallRatio - f.timing!.wallRatio) < 1e-12);
    // Timing: one run of each tool, measured.
    assert.ok(f.timing);
    assert.equal(f.timing.reps, 1);
    for (const t of [f.timing.wasmOpt, f.timing.ours]) {
      assert.equal(t.wallMs.length, 1);
      assert.ok(t.medianWallMs > 0);
      assert.ok(t.medianPeakRssKiB !== null && t.medianPeakRssKiB > 10_000, "a Node process uses more than 10 MB");
    }
    assert.ok(Math.abs(f.timing.wallRatio - f.timing.ours.medianWallMs / f.timing.wasmOpt.medianWallMs) < 1e-9);
    assert.deepEqual(f.binaryenPasses, [], "--quick skips the Binaryen passes");
    // Runtime: one pair of the synthetic workload per row, no interval; rows per target, each also profile-guided.
    assert.deepEqual(res.options.runtimeTargets, ["raw", "balanced"]);
    assert.equal(res.options.profileGuided, true);
    assert.ok((res.methods.profileGuided ?? "").length > 20);
    // per engine and mode (grouped so), the A/A row and then per target plain and profile-guided
    const variants = [["A/A", false], ["raw", false], ["raw", true], ["balanced", false], ["balanced", true]];
    assert.deepEqual(
      res.runtime.map((x) => [x.tiering, x.aa ? "A/A" : x.target, x.profileGuided]),
      ["no-liftoff", "default"].flatMap((m) => variants.map(([t, p]) => [m, t, p])),
    );
    assert.deepEqual(res.options.engines?.map((e) => [e.name, e.version, e.source]), [[ENGINE, process.version, "running"]]);
    assert.deepEqual(res.options.tiering, ["no-liftoff", "default"]);
    assert.equal(res.options.aa, true);
    for (const x of res.runtime) {
      assert.equal(x.engine, ENGINE);
      assert.equal(x.engineVersion, process.version);
      assert.equal(x.v8, process.versions.v8);
    }
    const aa = res.runtime.filter((x) => x.aa === true);
    assert.equal(aa.length, 2);
    for (const x of aa) {
      assert.equal(x.identicalBytes, true, "the A/A row's optimized side is a byte-identical copy");
      assert.equal(x.error, null);
      assert.equal(x.outputsEqual, true);
    }
    // the per engine x mode x variant summary: one entry each, its worst row is the one row
    const es = res.summary.engineSummary ?? [];
    assert.equal(es.length, 10);
    for (const e of es) {
      assert.equal(e.engine, ENGINE);
      assert.equal(e.workloads, 1);
      const row = res.runtime.find((x) => x.tiering === e.tiering && (x.aa ? "A/A" : `${x.target}${x.profileGuided ? ", profile-guided" : ""}`) === e.variant)!;
      assert.ok(Math.abs(e.geomean / row.slowdown.ratio - 1) < 1e-12, "one row: the geomean is its ratio");
      assert.deepEqual(e.worst, { workload: "md5-smoke", slowdown: row.slowdown });
    }
    for (const x of res.runtime.filter((x) => x.aa !== true)) {
      assert.equal(x.error, null, `${x.target} ${x.profileGuided}`);
      assert.equal(x.outputsEqual, true, "every target's output computes what the baseline does");
      assert.equal(x.moduleSizes?.length, 1);
      const m = x.moduleSizes![0]!;
      assert.equal(m.module, "hash-wasm-md5");
      for (const k of ["file", "code", "gzip", "brotli"] as const) assert.ok(Math.abs(m.ratio[k] - m.sizes[k] / f.baseline.sizes[k]) < 1e-12, k);
      if (x.identicalBytes) assert.deepEqual(m.sizes, f.baseline.sizes, "identical bytes, identical sizes");
      if (x.profileGuided) {
        assert.equal(typeof x.identicalToStatic, "boolean");
        assert.equal(x.profileNotes?.length, 1);
        assert.match(x.profileNotes![0]!, /^profile: [1-9]\d* of \d+ blocks hot/);
      }
    }
    // The static rows measured the size part's outputs (the timed run's for balanced, the --targets run's for raw).
    assert.deepEqual(res.runtime[1]!.moduleSizes![0]!.sizes, raw.sizes);
    assert.deepEqual(res.runtime[3]!.moduleSizes![0]!.sizes, f.ours.sizes);
    assert.deepEqual(
      Object.keys(res.summary.variantSlowdown ?? {}),
      ["no-liftoff", "default"].flatMap((m) => ["A/A", "raw", "raw, profile-guided", "balanced", "balanced, profile-guided"].map((v) => `${v} · ${ENGINE} ${m}`)),
    );
    assert.equal(res.summary.geomeanSlowdown, res.summary.variantSlowdown![`balanced · ${ENGINE} no-liftoff`], "the headline is the default target's, first engine and mode");
    const w = res.runtime[3]!;
    assert.equal(w.workload, "md5-smoke");
    assert.equal(w.error, null);
    assert.deepEqual(w.optimizedModules, ["hash-wasm-md5"]);
    assert.equal(w.baselineMs.length, 1);
    assert.equal(w.optimizedMs.length, 1);
    assert.equal(w.stoppedBy, "quick");
    assert.equal(w.outputsEqual, true);
    assert.ok(w.slowdown.ratio > 0);
    assert.equal(w.slowdown.lo, null, "no interval from one pair");
    assert.equal(w.slowdown.halfWidth, null);
    assert.ok(w.cpuSlowdown.ratio > 0);
    assert.deepEqual(f.workloads, ["md5-smoke"]);
    // Executed work: one row per variant (not per engine and mode), exact and deterministic.
    assert.match(r.stdout, /^### Executed work per workload run /m);
    assert.deepEqual(
      res.work?.map((x) => (x.aa ? "A/A" : `${x.target}${x.profileGuided ? ", profile-guided" : ""}`)),
      ["A/A", "raw", "raw, profile-guided", "balanced", "balanced, profile-guided"],
    );
    for (const x of res.work!) {
      assert.equal(x.error, null);
      assert.equal(x.deterministic, true, "the same run counted twice gives the same counts");
      assert.ok(x.baseline && x.baseline.instructions > 1000 && x.baseline.calls > 0, "Hash_Update's loop ran");
      assert.ok(x.ours && x.instructionRatio !== null && x.callRatio !== null);
      assert.equal(x.addedCalls, x.ours.calls - x.baseline.calls);
      if (x.identicalBytes) assert.deepEqual(x.ours, x.baseline, "identical bytes execute identical work");
      assert.match(r.stdout, new RegExp(`^\\| md5-smoke \\| ${x.aa ? "A/A" : x.target + (x.profileGuided ? ", profile-guided" : "")} \\| [\\d,]+ \\| [\\d,]+ \\| \\d\\.\\d{4} \\| [\\d,]+ \\| [\\d,]+ \\| \\d\\.\\d{4} \\| [+-]?[\\d,]+ \\|`, "m"));
    }
    assert.ok(res.methods.work && res.methods.work.length > 20);
    // A workload that does not run the same way twice: the row says by how much (re-rendered from edited results).
    const edited = structuredClone(res);
    const w0 = edited.work![1]!;
    w0.deterministic = false;
    w0.baselineAgain = { ...w0.baseline!, instructions: Math.round(w0.baseline!.instructions * 1.001), calls: w0.baseline!.calls };
    const editedJson = join(dir, "edited.json");
    writeFileSync(editedJson, JSON.stringify(edited));
    const rendered = spawnSync(process.execPath, [BENCH, "--render", editedJson], { encoding: "utf8", timeout: 60_000 });
    assert.equal(rendered.status, 0, rendered.stderr);
    assert.match(rendered.stdout, /^\| md5-smoke \| raw \| .*\| the workload varies: two -Oz runs differ by 0\.\d{3} % in instructions, 0\.000 % in calls(; our modules are byte-identical to -Oz's)? \|$/m);
    // Summary and methods.
    assert.ok(res.summary.geomeanRatio && Math.abs(res.summary.geomeanRatio.file - f.ratio.file) < 1e-12);
    assert.equal(res.summary.files, 1);
    for (const k of ["sizes", "features", "timing", "runtime", "ci", "binaryenPasses"] as const) assert.ok(res.methods[k].length > 20, k);

    // HTML: produced, with charts, self-contained.
    const html = readFileSync(join(out, "latest.html"), "utf8");
    assert.match(html, /^<!doctype html>/);
    assert.ok((html.match(/<svg /g) ?? []).length >= 3, "has charts");
    assert.match(html, new RegExp(`md5-smoke · raw, profile-guided · ${ENGINE} default`), "the runtime chart labels rows with their variant, engine and mode");
    assert.match(html, new RegExp(`runtime, ${ENGINE} no-liftoff`), "a summary card per engine and mode");
    assert.match(html, /hash-wasm-md5/);
    assert.doesNotMatch(html, /<script|<link|<img|@import|url\(/i, "no external resources");
    const urls = (html.match(/https?:\/\/[^"'\s<)]+/g) ?? []).filter((u) => u !== "http://www.w3.org/2000/svg");
    assert.deepEqual(urls, [], "no URLs besides the SVG namespace");
    assert.deepEqual(readdirSync(out).sort(), ["latest.html", "latest.json"], "no temporary files left behind");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bench --work-only counts the executed work without timing anything or resolving engines", () => {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-bench-test-"));
  try {
    const wdir = smokeWorkloads(dir);
    const out = join(dir, "results");
    // an engine that does not exist: --work-only must not look for it
    const r = spawnSync(process.execPath, [BENCH, "--only", "hash-wasm-md5", "--quick", "--no-timing", "--work-only", "--engines", "node7", "--runtime-targets", "raw", "--out", out, "--workloads", wdir], {
      encoding: "utf8",
      timeout: 180_000,
    });
    assert.equal(r.status, 0, `bench failed:\n${r.stderr}`);
    const res = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as BenchResults;
    assert.deepEqual(res.runtime, [], "no timed rows");
    assert.equal(res.work?.length, 1);
    assert.equal(res.work![0]!.target, "raw");
    assert.equal(res.work![0]!.deterministic, true);
    assert.match(r.stdout, /^\| md5-smoke \| raw \| [\d,]+ \|/m);
    assert.doesNotMatch(r.stdout, /_Not measured/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bench rejects an unknown --only name with a usage error", () => {
  const r = spawnSync(process.execPath, [BENCH, "--only", "no-such-module", "--quick"], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no corpus module of that name/);
});

test("bench rejects an unknown --runtime-targets name with a usage error", () => {
  const r = spawnSync(process.execPath, [BENCH, "--runtime-targets", "gzip,fast", "--quick"], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /--runtime-targets: unknown size target "fast"/);
});

test("recordProfiles: a profile per optimized module, and one-line reasons when the instrumented run cannot give one", async () => {
  const { recordProfiles } = await import("../bench/profile-guided.js");
  const { loadWorkloads } = await import("../bench/runtime.js");
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-pgo-test-"));
  try {
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
    const wl = (name: string, run: string): void =>
      writeFileSync(
        join(dir, `${name}.js`),
        `export const workload = { name: "${name}", size: "small", description: "${name}",
          wasm: () => [{ name: "md5", bytes: new Uint8Array() }, { name: "other", bytes: new Uint8Array() }],
          async run(wasm, ctx) { ${run} } };`,
      );
    // md5 is instantiated and run; "other" is passed through untouched.
    wl("uses", `const { instance } = await WebAssembly.instantiate(wasm[0], {});
      instance.exports.Hash_Init(); instance.exports.Hash_Update(0); instance.exports.Hash_Final(); return wasm[1].length;`);
    // md5 runs only in a helper process that the workload stops with SIGTERM (as esbuild-wasm stops its service).
    wl("service", `const { spawn } = await import("node:child_process");
      const { writeFileSync } = await import("node:fs");
      const file = process.env.PGO_TEST_DIR + "/service-input.wasm";
      writeFileSync(file, wasm[0]);
      const code = "const { instance } = await WebAssembly.instantiate(require('node:fs').readFileSync(process.argv[1]), {});" +
        "instance.exports.Hash_Init(); console.log('ready'); setInterval(() => {}, 1000);";
      const child = spawn(process.execPath, ["--input-type=module", "-e", code.replace("require('node:fs')", "(await import('node:fs'))"), file], { stdio: ["ignore", "pipe", "inherit"] });
      await new Promise((resolve) => child.stdout.once("data", resolve));
      child.kill();
      await new Promise((resolve) => child.once("exit", resolve));
      return 1;`);
    wl("idle", "return 1;");
    wl("picky", `const { instance } = await WebAssembly.instantiate(wasm[0], {});
      ctx.check(!("__wasm_compact_counter" in instance.exports), "no counter export"); return 1;`);
    const { loaded, errors } = await loadWorkloads(dir);
    assert.deepEqual(errors, []);
    const get = (n: string) => loaded.find((l) => l.workload.name === n)!;
    const md5 = join(dir, "md5.wasm");
    writeFileSync(md5, corpusEntry("hash-wasm-md5").bytes());
    const other = join(dir, "other.wasm");
    writeFileSync(other, new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    const work = (n: string): string => mkdtempSync(join(dir, `${n}-`));

    const profiles = await recordProfiles(get("uses"), CLI, [md5, other], [true, false], work("uses"), 60_000);
    assert.equal(profiles.length, 2);
    assert.equal(profiles[1], null, "a module that is not optimized gets no profile");
    const p = JSON.parse(readFileSync(profiles[0]!, "utf8")) as { format: string; instances: number; functions: unknown[] };
    assert.equal(p.format, "wasm-compact-profile");
    assert.equal(p.instances, 1, "one run of the workload, one instance");
    assert.ok(p.functions.length > 0, "the functions the workload called ran");

    process.env.PGO_TEST_DIR = dir;
    const viaService = await recordProfiles(get("service"), CLI, [md5, other], [true, false], work("service"), 60_000);
    const ps = JSON.parse(readFileSync(viaService[0]!, "utf8")) as { instances: number; functions: unknown[] };
    assert.equal(ps.instances, 1, "the counts of a process stopped with SIGTERM are saved");
    assert.ok(ps.functions.length > 0);

    await assert.rejects(recordProfiles(get("idle"), CLI, [md5, other], [true, false], work("idle"), 60_000), /saved no counts/);
    await assert.rejects(recordProfiles(get("picky"), CLI, [md5, other], [true, false], work("picky"), 60_000), /checks failed with the instrumented modules: no counter export/);
  } finally {
    delete process.env.PGO_TEST_DIR;
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bench rejects an unknown --targets name with a usage error", () => {
  const r = spawnSync(process.execPath, [BENCH, "--targets", "raw,small", "--quick"], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown size target "small"/);
});

test("parseTargets keeps the order, drops duplicates and rejects unknown or empty lists", () => {
  assert.deepEqual(parseTargets("gzip, raw,gzip"), ["gzip", "raw"]);
  assert.deepEqual(parseTargets("raw,gzip,brotli,balanced"), ["raw", "gzip", "brotli", "balanced"]);
  assert.throws(() => parseTargets("raw,zip"), /unknown size target "zip"/);
  assert.throws(() => parseTargets(" , "), /at least one/);
});

test("selectEntries matches names, packages and name prefixes", () => {
  const all = corpus();
  assert.deepEqual(selectEntries(all, ["zstd"]).map((e) => e.name), ["zstd"]);
  assert.deepEqual(selectEntries(all, ["sql.js"]).map((e) => e.name).sort(), ["sql-wasm", "sql-wasm-debug"]);
  const hash = selectEntries(all, ["hash-wasm"]);
  assert.ok(hash.length > 5 && hash.every((e) => e.name.startsWith("hash-wasm-")));
  assert.equal(selectEntries(all, []).length, all.length);
  assert.throws(() => selectEntries(all, ["nope"]), /no corpus module/);
});

test("ratioOfMediansCI: covers the true ratio, excludes 1 for a real 10 % slowdown, none below 3 pairs", () => {
  const rand = rng(42);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 40; i++) {
    const drift = 100 * (1 + 0.05 * Math.sin(i)); // the machine slows down and speeds up; both sides feel it
    a.push(drift * (1 + 0.03 * (rand() - 0.5)));
    b.push(1.1 * drift * (1 + 0.03 * (rand() - 0.5)));
  }
  const ci = ratioOfMediansCI(a, b);
  assert.ok(ci.lo !== null && ci.hi !== null && ci.halfWidth !== null);
  assert.ok(ci.lo < 1.1 && 1.1 < ci.hi, `${ci.lo} < 1.1 < ${ci.hi}`);
  assert.ok(ci.lo > 1.0, "a 10 % slowdown is not within the noise here");
  assert.ok(ci.halfWidth > 0 && ci.halfWidth < 0.05);
  assert.equal(ci.n, 40);
  // Deterministic.
  assert.deepEqual(ratioOfMediansCI(a, b), ci);
  // Identical distributions: the interval contains 1.
  const same = ratioOfMediansCI(a, a.map((x, i) => a[(i + 7) % a.length]!));
  assert.ok(same.lo !== null && same.hi !== null && same.lo <= 1 && 1 <= same.hi);
  const few = ratioOfMediansCI([1, 2], [2, 4]);
  assert.equal(few.ratio, 2);
  assert.equal(few.lo, null);
  assert.equal(few.halfWidth, null);
  assert.throws(() => ratioOfMediansCI([1], [1, 2]), /paired/);
});

test("ratioOfBestCI: a bimodal spread of whole processes hides a 10 % slowdown from the medians, not from the best", () => {
  const rand = rng(7);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 16; i++) {
    // About half the processes run slow as a whole (1.6-2x), on either side, independently.
    const slowA = rand() < 0.5 ? 1.6 + 0.4 * rand() : 1;
    const slowB = rand() < 0.5 ? 1.6 + 0.4 * rand() : 1;
    a.push(100 * slowA * (1 + 0.02 * rand()));
    b.push(110 * slowB * (1 + 0.02 * rand()));
  }
  const best = ratioOfBestCI(a, b);
  assert.ok(best.lo !== null && best.hi !== null && best.halfWidth !== null);
  assert.ok(best.lo > 1.0 && best.lo < 1.1 && best.hi > 1.1 - 0.03, `${best.lo} .. ${best.hi}`);
  assert.ok(best.halfWidth < 0.06, `±${best.halfWidth}`);
  const medians = ratioOfMediansCI(a, b);
  assert.ok(medians.halfWidth !== null && medians.halfWidth > best.halfWidth, "the medians' interval is the wider one");
  assert.deepEqual(ratioOfBestCI(a, b), best);
  const aa = ratioOfBestCI(a, a.map((x, i) => a[(i + 5) % a.length]!));
  assert.equal(aa.ratio, 1);
  assert.equal(ratioOfBestCI([1, 2], [2, 4]).lo, null);
  assert.throws(() => ratioOfBestCI([1], [1, 2]), /paired/);
});

test("median and geomean", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
  assert.ok(Number.isNaN(median([])));
  assert.ok(Math.abs(geomean([1, 4, 16]) - 4) < 1e-12);
  assert.ok(Number.isNaN(geomean([1, 0])));
});

test("feature flags: what the module uses beyond binaryen's defaults, or with a target_features section nothing but binaryen's table.fill quirk", () => {
  const sql = detectFeatures(corpusEntry("sql-wasm").bytes());
  assert.equal(sql.targetFeatures, null);
  assert.ok(sql.used.includes("bulk-memory") && sql.used.includes("sat-trunc"));
  assert.deepEqual([...sql.flags].sort(), ["--enable-bulk-memory", "--enable-nontrapping-float-to-int"]);
  const md5 = detectFeatures(corpusEntry("hash-wasm-md5").bytes());
  assert.deepEqual(md5.flags, [], "mutable globals are on by default in binaryen");
  const dbg = detectFeatures(corpusEntry("sql-wasm-debug").bytes());
  assert.ok(dbg.targetFeatures && dbg.targetFeatures.length > 0 && dbg.targetFeatures.every((s) => /^[+\-=]/.test(s)));
  assert.deepEqual(dbg.flags, []);
  // photon declares reference-types but not bulk-memory, which binaryen also wants for its table.fill.
  const photon = detectFeatures(corpusEntry("photon").bytes());
  assert.ok(photon.targetFeatures?.includes("+reference-types") && !photon.targetFeatures.includes("+bulk-memory"));
  assert.deepEqual(photon.flags, ["--enable-bulk-memory"]);
  // A hand-made target_features payload: 2 entries.
  const p = new Uint8Array([2, 0x2b, 8, ...new TextEncoder().encode("sign-ext"), 0x2d, 4, ...new TextEncoder().encode("simd")]);
  assert.deepEqual(parseTargetFeatures(p), ["+sign-ext", "-simd"]);
});

test("medianCI: the median with an interval that covers it, none below 3 samples", () => {
  const few = medianCI([1.1, 0.9], PAIRED_CI_METHOD);
  assert.equal(few.lo, null);
  assert.equal(few.ratio, 1);
  const rand = rng(7);
  const xs = Array.from({ length: 40 }, () => 1.03 + (rand() - 0.5) * 0.02);
  const ci = medianCI(xs, PAIRED_CI_METHOD);
  assert.equal(ci.n, 40);
  assert.ok(ci.lo! < ci.ratio && ci.ratio < ci.hi!);
  assert.ok(ci.lo! > 1.02 && ci.hi! < 1.04, fmtInterval(ci));
});

test("measureRuntime: stops on the interval, on the budget, and reports a failing workload", async () => {
  const { measureRuntime, loadWorkloads } = await import("../bench/runtime.js");
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-runtime-test-"));
  try {
    // A workload that instantiates its module and then busy-waits 2 ms (a duration that does not depend on how
    // V8 happens to compile a loop in that process, so the interval is narrow); "fail" always throws.
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }');
    writeFileSync(
      join(dir, "spin.js"),
      `export const workload = {
        name: "spin", size: "small", description: "instantiate and spin",
        wasm: () => [{ name: "empty", bytes: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) }],
        async run(wasm) {
          await WebAssembly.instantiate(wasm[0]);
          const t = performance.now();
          while (performance.now() - t < 2);
          return "done";
        },
      };`,
    );
    writeFileSync(
      join(dir, "spin2.js"),
      `export const workload = {
        name: "spin2", size: "small", description: "spin 2 ms, or 4 ms with a longer module",
        wasm: () => [{ name: "empty", bytes: new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]) }],
        async run(wasm) {
          const t = performance.now();
          const ms = wasm[0].length > 8 ? 4 : 2;
          while (performance.now() - t < ms);
          return "done";
        },
      };`,
    );
    writeFileSync(
      join(dir, "fail.js"),
      `export const workload = {
        name: "fail", size: "small", description: "always throws",
        wasm: () => [],
        async run() { throw new Error("deliberate failure"); },
      };`,
    );
    writeFileSync(join(dir, "index.js"), "export const WORKLOADS = [];");
    const { loaded, errors } = await loadWorkloads(dir);
    assert.deepEqual(errors, []);
    assert.deepEqual(loaded.map((l) => l.workload.name), ["fail", "spin", "spin2"], "index.js is skipped");
    const spin = loaded.find((l) => l.workload.name === "spin")!;
    const mod = join(dir, "empty.wasm");
    writeFileSync(mod, new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    const meta = { modules: ["empty"], optimizedModules: ["empty"], identicalBytes: true };

    // A target of ±50 % is met once the minimum number of pairs (8) is there,
    // unless load on the machine made samples scatter (then a few more pairs).
    const wide = await measureRuntime(spin, [mod], [mod], meta, { targetHalfWidth: 0.5, budgetSeconds: 120, quick: false });
    assert.equal(wide.error, null);
    assert.equal(wide.stoppedBy, "ci");
    assert.ok(wide.baselineMs.length >= 8, `${wide.baselineMs.length} pairs`);
    assert.equal(wide.optimizedCpuMs.length, wide.baselineMs.length);
    assert.ok(wide.slowdown.lo !== null && wide.slowdown.hi !== null);
    assert.ok(wide.slowdown.lo <= wide.slowdown.ratio && wide.slowdown.ratio <= wide.slowdown.hi);
    // an A/A run: a 95 % interval misses 1 in about one run of twenty, so only the ratio is checked
    assert.ok(wide.slowdown.ratio > 0.5 && wide.slowdown.ratio < 2, `the same module on both sides: ratio ${wide.slowdown.ratio}`);
    assert.ok(wide.baselineMs.every((ms) => ms >= 2 && ms < 50), "each sample is one run of about 2 ms");
    assert.ok(wide.iterations >= 3);
    assert.equal(wide.outputsEqual, true);
    assert.equal(wide.identicalBytes, true, "the same module on both sides is reported as an A/A run");
    assert.equal(wide.loadAverage.end.length, 3);
    // one paired process per pair: both sides in one process, in rounds
    assert.equal(wide.pairedRatios!.length, wide.baselineMs.length);
    assert.ok(wide.pairedRatios!.every((x) => x > 0.2 && x < 5), `paired ratios ${wide.pairedRatios!.join(", ")}`);
    assert.ok(wide.pairedSlowdown!.lo !== null && wide.pairedSlowdown!.lo <= wide.pairedSlowdown!.ratio && wide.pairedSlowdown!.ratio <= wide.pairedSlowdown!.hi!);

    // An unreachable target with a tiny budget: stops after the first pair, says why, no interval.
    const tight = await measureRuntime(spin, [mod], [mod], meta, { targetHalfWidth: 0, budgetSeconds: 0.001, quick: false });
    assert.equal(tight.stoppedBy, "budget");
    assert.equal(tight.baselineMs.length, 1);
    assert.equal(tight.slowdown.lo, null);
    assert.equal(tight.pairedRatios!.length, 1);

    // a real slowdown of 2x: the paired processes see it whichever side they load first
    const long = join(dir, "long.wasm");
    writeFileSync(long, new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 0, 3, 2, 120, 120])); // plus a custom section
    const spin2 = loaded.find((l) => l.workload.name === "spin2")!;
    const twice = await measureRuntime(spin2, [mod], [long], { ...meta, identicalBytes: false }, { targetHalfWidth: 0.3, budgetSeconds: 120, quick: false });
    assert.equal(twice.error, null);
    // (on a loaded machine a longer spin is preempted more often: only the direction and a lower bound are sure)
    assert.ok(twice.pairedSlowdown!.ratio > 1.5 && twice.pairedSlowdown!.lo! > 1.2, `paired ${fmtInterval(twice.pairedSlowdown!)}`);
    assert.ok(twice.pairedRatios!.every((x) => x > 1.2), `every process sees it: ${twice.pairedRatios!.join(", ")}`);

    const fail = loaded.find((l) => l.workload.name === "fail")!;
    const bad = await measureRuntime(fail, [], [], { modules: [], optimizedModules: [], identicalBytes: true }, { targetHalfWidth: 0.02, budgetSeconds: 10, quick: false });
    assert.equal(bad.stoppedBy, "error");
    assert.match(bad.error ?? "", /deliberate failure/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("bench rejects an unknown --engines or --tiering name with a usage error", () => {
  const a = spawnSync(process.execPath, [BENCH, "--engines", "node20,chrome", "--quick"], { encoding: "utf8", timeout: 60_000 });
  assert.equal(a.status, 2);
  assert.match(a.stderr, /--engines: unknown engine "chrome"/);
  const b = spawnSync(process.execPath, [BENCH, "--tiering", "no-liftoff,turbo", "--quick"], { encoding: "utf8", timeout: 60_000 });
  assert.equal(b.status, 2);
  assert.match(b.stderr, /--tiering: unknown tiering mode "turbo"/);
  const c = spawnSync(process.execPath, [BENCH, "--combos", "node20:no-liftoff", "--engines", "node20", "--quick"], { encoding: "utf8", timeout: 60_000 });
  assert.equal(c.status, 2);
  assert.match(c.stderr, /--combos names the engine and mode pairs itself/);
});

test("parseEngines and parseTiering keep the order, drop duplicates, reject unknown names", async () => {
  const { parseEngines, parseTiering, engineMajor, tieringFlags } = await import("../bench/engines.js");
  assert.deepEqual(parseEngines("node24, node20,node24"), ["node24", "node20"]);
  assert.throws(() => parseEngines("node"), /unknown engine "node"/);
  assert.throws(() => parseEngines(","), /at least one/);
  assert.equal(engineMajor("node24"), 24);
  assert.deepEqual(parseTiering("default,no-liftoff,default"), ["default", "no-liftoff"]);
  assert.throws(() => parseTiering("liftoff"), /unknown tiering mode "liftoff"/);
  assert.deepEqual(tieringFlags("no-liftoff"), ["--no-liftoff"]);
  assert.deepEqual(tieringFlags("default"), []);
});

test("parseCombos keeps ENGINE:MODE pairs in order, drops duplicates, rejects malformed ones", async () => {
  const { parseCombos } = await import("../bench/engines.js");
  assert.deepEqual(parseCombos("node20:no-liftoff, node24:default,node20:no-liftoff"), [
    { engine: "node20", tiering: "no-liftoff" },
    { engine: "node24", tiering: "default" },
  ]);
  assert.throws(() => parseCombos("node20"), /"node20" is not ENGINE:MODE/);
  assert.throws(() => parseCombos("node20:turbo"), /unknown tiering mode "turbo"/);
  assert.throws(() => parseCombos("chrome:default"), /unknown engine "chrome"/);
  assert.throws(() => parseCombos(" , "), /at least one/);
});

test("resolveEngine: the running node, an override, an unpacked cache and a (fake, offline) npm pack; clear errors otherwise", async () => {
  const { resolveEngine, cachedBinary, defaultEngineCache } = await import("../bench/engines.js");
  const { chmodSync, existsSync } = await import("node:fs");
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-engines-test-"));
  try {
    // A stand-in for a node binary: answers the version probe with a fixed version.
    const fakeNode = (version: string): string => `#!/bin/sh\necho '["${version}","99.9.1-node.1"]'\n`;
    const cache = join(dir, "cache");
    const put = (path: string, text: string): string => {
      mkdirSync(join(path, ".."), { recursive: true });
      writeFileSync(path, text);
      chmodSync(path, 0o755);
      return path;
    };
    const base = { cacheDir: cache, env: {}, runningMajor: 20, runningExecPath: process.execPath, fetch: false };

    // The running node's major: the running binary, asked for its versions.
    const running = resolveEngine("node20", base);
    assert.deepEqual([running.execPath, running.source, running.version, running.v8], [process.execPath, "running", process.version, process.versions.v8]);

    // An already-unpacked cache is used as it is (nothing fetched).
    const bin = put(cachedBinary(cache, 99), fakeNode("v99.1.0"));
    assert.match(bin, /node-[a-z0-9]+-[a-z0-9]+@99\/package\/bin\/node$/);
    const cached = resolveEngine("node99", base);
    assert.deepEqual([cached.execPath, cached.source, cached.version, cached.v8], [bin, "cache", "v99.1.0", "99.9.1-node.1"]);

    // A cached binary of another major is refused.
    put(cachedBinary(cache, 96), fakeNode("v95.0.0"));
    assert.throws(() => resolveEngine("node96", base), /node96: .* is Node v95\.0\.0, not Node 96/);

    // WASM_COMPACT_NODE<major> names a binary to use instead.
    const other = put(join(dir, "elsewhere", "node"), fakeNode("v98.2.0"));
    const env = resolveEngine("node98", { ...base, env: { WASM_COMPACT_NODE98: other } });
    assert.deepEqual([env.execPath, env.source, env.version], [other, "env", "v98.2.0"]);

    // Nothing cached and fetching off: says where it looked and what to do.
    assert.throws(() => resolveEngine("node97", base), /node97: no Node 97 binary in .*cache.*@97 and fetching is off \(or set WASM_COMPACT_NODE97=/);

    // npm failing (as offline): a clear error, no half-made folder left in the cache.
    assert.throws(() => resolveEngine("node97", { ...base, fetch: true, npm: "/bin/false" }), /could not fetch Node 97: `\/bin\/false pack node-[a-z0-9]+-[a-z0-9]+@97` failed \(exit 1/);
    assert.deepEqual(readdirSync(cache).filter((f) => f.includes("97")), []);

    // A fake npm that packs a tarball like the registry's: unpacked into the cache, then reused.
    const tarRoot = join(dir, "tarball");
    put(join(tarRoot, "package", "bin", "node"), fakeNode("v97.3.0"));
    const npm = put(join(dir, "npm"), `#!/bin/sh\n# npm pack SPEC --pack-destination DIR --silent\ntar -czf "$4/node-fake-97.3.0.tgz" -C ${JSON.stringify(tarRoot)} package\n`);
    const lines: string[] = [];
    const fetched = resolveEngine("node97", { ...base, fetch: true, npm, log: (l) => lines.push(l) });
    assert.deepEqual([fetched.execPath, fetched.source, fetched.version], [cachedBinary(cache, 97), "fetched", "v97.3.0"]);
    assert.match(lines.join("\n"), /fetching Node 97: npm pack node-[a-z0-9]+-[a-z0-9]+@97/);
    assert.deepEqual(readdirSync(cache).filter((f) => f.startsWith(".fetch")), [], "the work folder is gone");
    assert.ok(!readdirSync(join(cache, readdirSync(cache).find((f) => f.endsWith("@97"))!)).some((f) => f.endsWith(".tgz")), "the tarball is not kept");
    const again = resolveEngine("node97", { ...base, fetch: true, npm: "/bin/false" });
    assert.equal(again.source, "cache", "the second time it comes from the cache");
    assert.ok(existsSync(again.execPath));

    // The cache folder: the override, else XDG_CACHE_HOME, else ~/.cache.
    assert.equal(defaultEngineCache({ WASM_COMPACT_ENGINE_CACHE: "/x/y" }), "/x/y");
    assert.equal(defaultEngineCache({ XDG_CACHE_HOME: "/c" }), join("/c", "wasm-compact", "engines"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
