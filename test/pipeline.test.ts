// The library entry and the pipeline: pass resolution, byte accounting,
// undoing passes that grow the module, the identity rule, validation of the
// output, error classes, progress; and the CLI's in-process paths that a child
// process cannot reach (internal errors, the progress bar).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DEFAULT_PIPELINE,
  InternalError,
  RAW_PIPELINE,
  UnknownPassError,
  WasmDecodeError,
  WasmValidationError,
  defaultPipeline,
  formatSizeTable,
  listPasses,
  optimize,
  percentChange,
  registerPass,
  scanSections,
  unregisterPass,
  type Pass,
} from "../src/index.js";
import { runSafely, type CliIO } from "../src/cli/run.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { contentKey, estimateView, SizeJudge } from "../src/size-target.js";
import { reorderFunctions } from "../src/ir/renumber.js";
import { tooLittleToVerify } from "../src/pipeline/verify.js";
import { uleb } from "./leb.js";

declare const WebAssembly: { validate(bytes: Uint8Array): boolean };

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EXAMPLE = new Uint8Array(readFileSync(join(ROOT, "examples/hello.wasm")));

const shrink: Pass = {
  name: "test-drop-names",
  description: "drops the name section",
  run(m) {
    const before = m.customs.length;
    m.customs = m.customs.filter((c) => c.name !== "name");
    m.names = null;
    return { changed: m.customs.length !== before, stats: { dropped: before - m.customs.length } };
  },
};
const grow = (mayGrow: boolean): Pass => ({
  name: mayGrow ? "test-grow-enabling" : "test-grow",
  description: "adds a custom section",
  mayGrow,
  run(m, ctx) {
    m.customs.push({ name: "padding", bytes: new Uint8Array(100), after: 0 });
    ctx.progress(0.5);
    ctx.note("added 100 bytes");
    return { changed: true };
  },
});
const corrupt: Pass = {
  name: "test-corrupt",
  description: "points a function at a type that does not exist (same size)",
  run(m) {
    m.functions[0]!.typeIndex = 120;
    return { changed: true };
  },
};
const boom: Pass = {
  name: "test-boom",
  description: "throws",
  run() {
    throw new TypeError("boom");
  },
};

test("the example module is valid", () => {
  assert.ok(WebAssembly.validate(EXAMPLE));
});

test("identity: [] and ['none'] read, validate and rewrite; output valid and not larger", () => {
  for (const passes of [[], ["none"], ["identity"]]) {
    const { binary, report } = optimize(EXAMPLE, { passes });
    assert.ok(WebAssembly.validate(binary));
    assert.ok(binary.length <= EXAMPLE.length);
    assert.equal(report.sizes.file.before, EXAMPLE.length);
    assert.equal(report.sizes.file.after, binary.length);
    assert.ok(report.sizes.code.before > 0 && report.sizes.code.after > 0);
    assert.ok(report.sizes.custom.before > 0, "the example has a name section");
    assert.equal(report.passes.length, passes[0] === "identity" ? 1 : 0);
    assert.deepEqual(report.validated, { input: true, output: true });
    assert.equal(report.keptInput, false);
  }
});

test("deterministic: same input and options give identical bytes", () => {
  const a = optimize(EXAMPLE, { passes: [shrink] }).binary;
  const b = optimize(EXAMPLE, { passes: [shrink] }).binary;
  assert.deepEqual(a, b);
});

test("unknown pass names throw UnknownPassError listing the known passes", () => {
  assert.throws(
    () => optimize(EXAMPLE, { passes: ["identity", "nope", "nada"] }),
    (e: unknown) =>
      e instanceof UnknownPassError &&
      e.names.join() === "nope,nada" &&
      e.known.includes("identity") &&
      /unknown passes "nope", "nada"; known passes: .*identity/.test(e.message),
  );
  assert.throws(() => optimize(EXAMPLE, { passes: ["none", "identity"] }), UnknownPassError);
});

test("a pass that shrinks the module is kept and accounted", () => {
  const { binary, report } = optimize(EXAMPLE, { passes: [shrink] });
  const p = report.passes[0]!;
  assert.equal(p.name, "test-drop-names");
  assert.equal(p.changed, true);
  assert.equal(p.kept, true);
  assert.ok(p.bytesAfter < p.bytesBefore);
  assert.equal(p.bytesAfter, binary.length);
  assert.deepEqual(p.stats, { dropped: 1 });
  assert.equal(report.sizes.custom.after, 0);
  assert.equal(percentChange(report.sizes.custom), "-100.00%");
  assert.ok(!scanSections(binary).some((s) => s.id === 0));
});

test("a pass that grows the module is undone; later passes still run", () => {
  const { binary, report } = optimize(EXAMPLE, { passes: [grow(false), shrink] });
  const [g, s] = report.passes;
  assert.equal(g!.kept, false);
  assert.equal(g!.bytesAfter, g!.bytesBefore);
  assert.ok(g!.notes.some((n) => /undone: the module grew/.test(n)));
  assert.ok(g!.notes.includes("added 100 bytes"));
  assert.equal(s!.kept, true);
  assert.ok(!scanSections(binary).some((x) => x.name === "custom:padding"));
  assert.ok(WebAssembly.validate(binary));
});

test("identity rule: if the result is larger than the input, the input is returned unchanged", () => {
  const { binary, report } = optimize(EXAMPLE, { passes: [grow(true)] });
  assert.equal(report.passes[0]!.kept, true, "an enabling pass is not undone");
  assert.ok(report.passes[0]!.bytesAfter > EXAMPLE.length);
  assert.deepEqual(binary, EXAMPLE);
  assert.notEqual(binary, EXAMPLE, "a copy, not the caller's array");
  assert.equal(report.keptInput, true);
  assert.deepEqual(report.sizes.file, { before: EXAMPLE.length, after: EXAMPLE.length });
  assert.match(report.notes.join("\n"), /larger than the input .*returned the input unchanged/);
});

test("malformed input throws WasmDecodeError, invalid input WasmValidationError", () => {
  assert.throws(() => optimize(new Uint8Array([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0])), WasmDecodeError);
  // (func (result i32) i64.const 0)
  const bad = new Uint8Array([
    0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 0x60, 0, 1, 0x7f, 3, 2, 1, 0, 10, 6, 1, 4, 0, 0x42, 0, 0x0b,
  ]);
  assert.throws(() => optimize(bad), (e: unknown) => e instanceof WasmValidationError && /function 0/.test(e.message));
  // without validation, the identity pipeline copies the body as it is
  const { binary, report } = optimize(bad, { validate: false, passes: [] });
  assert.deepEqual(binary, bad);
  assert.deepEqual(report.validated, { input: false, output: false });
});

test("a pass that throws becomes an InternalError naming the pass", () => {
  assert.throws(
    () => optimize(EXAMPLE, { passes: [boom] }),
    (e: unknown) => e instanceof InternalError && e.pass === "test-boom" && /pass "test-boom" failed: boom/.test(e.message) && e.cause instanceof TypeError,
  );
});

test("an invalid output is an InternalError, never returned; checked mode names the pass", () => {
  assert.throws(() => optimize(EXAMPLE, { passes: [corrupt] }), (e: unknown) => e instanceof InternalError && /does not validate.*test-corrupt/.test(e.message));
  assert.throws(
    () => optimize(EXAMPLE, { passes: [corrupt, shrink], checked: true }),
    (e: unknown) => e instanceof InternalError && e.pass === "test-corrupt" && /produced an invalid module/.test(e.message),
  );
});

test("the merge map survives an undone pass (origins are restored after the re-read)", () => {
  const { report } = optimize(EXAMPLE, { passes: ["fold-functions", grow(false), "cleanup"], keepExportIdentity: false });
  assert.equal(report.passes[1]!.kept, false);
  assert.deepEqual(report.mergeMap, [
    { function: { origin: 5, name: "max_b" }, became: "folded", into: { origin: 4, name: "max_a", output: 4 } },
  ]);
  const kept = optimize(EXAMPLE, { passes: ["fold-functions"], keepExportIdentity: true }).report.mergeMap;
  assert.deepEqual(kept.map((e) => [e.function.name, e.became, e.into.name]), [["max_b", "thunk", "max_a"]]);
  assert.deepEqual(optimize(EXAMPLE, { passes: [] }).report.mergeMap, []);
});

test("onProgress: phases in order, done never decreases, ends at total", () => {
  const seen: [number, number, string][] = [];
  optimize(EXAMPLE, { passes: [grow(false), shrink], onProgress: (d, t, p) => seen.push([d, t, p]) });
  const total = seen[0]![1];
  assert.equal(total, 2 + 2 + 2);
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i]![0] >= seen[i - 1]![0], "monotonic");
  assert.deepEqual(seen.at(-1), [total, total, "done"]);
  const phases = [...new Set(seen.map((s) => s[2]))];
  assert.deepEqual(phases, ["read", "validate input", "write", "pass test-grow", "pass test-drop-names", "validate output", "done"]);
  assert.ok(seen.some(([d, , p]) => p === "pass test-grow" && d % 1 === 0.5), "fraction reported inside a pass");
});

test("the registry: names are checked, duplicates refused, identity is built in", () => {
  assert.ok(listPasses().some((p) => p.name === "identity"));
  assert.throws(() => registerPass({ ...shrink, name: "Bad Name" }), /invalid pass name/);
  assert.throws(() => registerPass({ ...shrink, name: "none" }), /reserved/);
  assert.throws(() => registerPass({ ...shrink, name: "identity" }), /already registered/);
});

test("the default pipeline depends on the target: under raw outline runs before fold-blocks", () => {
  assert.deepEqual(defaultPipeline("raw"), RAW_PIPELINE);
  for (const t of ["balanced", "gzip", "brotli"] as const) assert.deepEqual(defaultPipeline(t), DEFAULT_PIPELINE);
  assert.deepEqual([...RAW_PIPELINE].sort(), [...DEFAULT_PIPELINE].sort(), "the same passes, another order");
  const names = (target: "raw" | "balanced") =>
    optimize(EXAMPLE, { target, measures: { gzip: (b) => b.length, brotli: (b) => b.length } }).report.passes.map((p) => p.name);
  assert.deepEqual(names("raw"), RAW_PIPELINE);
  assert.deepEqual(names("balanced"), DEFAULT_PIPELINE);
  // without measures the target is raw, and so is the order
  assert.deepEqual(optimize(EXAMPLE).report.passes.map((p) => p.name), RAW_PIPELINE);
});

test("size table format", () => {
  const { report } = optimize(EXAMPLE, { passes: [shrink] });
  const lines = formatSizeTable(report).split("\n");
  assert.equal(lines.length, 4);
  assert.match(lines[0]!, /^\s+before\s+after\s+change$/);
  assert.match(lines[3]!, /^custom sections\s+\d+\s+0\s+-100\.00%$/);
  assert.equal(percentChange({ before: 0, after: 0 }), "-");
  assert.equal(percentChange({ before: 1000, after: 1000 }), "0.00%");
  assert.equal(percentChange({ before: 1000, after: 1234 }), "+23.40%");
});

test("no Node APIs in the core: only src/cli and src/plugin (the bundler plugin) import node: modules", () => {
  const src = join(ROOT, "src");
  const NODE_DIRS = ["cli", "plugin"];
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (!NODE_DIRS.includes(relative(src, p))) walk(p);
      } else if (e.name.endsWith(".ts")) {
        const text = readFileSync(p, "utf8");
        const nodeImport = /^\s*(import|export)\b[^;]*?from\s+["'](node:|(fs|path|os|crypto|child_process|util|url|worker_threads)["'])/m;
        const nodeGlobal = /\brequire\(|\bimport\(\s*["']node:|\bprocess\.(env|argv|exit|stdout|stderr|cwd|platform|hrtime)\b|\bBuffer\.(from|alloc|concat)\b/;
        if (nodeImport.test(text) || nodeGlobal.test(text)) {
          offenders.push(relative(ROOT, p));
        }
      }
    }
  };
  walk(src);
  assert.deepEqual(offenders, []);
});

// ---------------------------------------------------------------- CLI paths tested in-process

function io(opts: { tty?: boolean; now?: () => number; debug?: boolean } = {}): CliIO & { out: string; err: string } {
  const r = {
    out: "",
    err: "",
    stdout: (s: string) => void (r.out += s),
    stderr: (s: string) => void (r.err += s),
    stderrIsTTY: opts.tty ?? false,
    env: { WASM_COMPACT_DEBUG: opts.debug ? "1" : undefined },
    now: opts.now,
  };
  return r;
}

function scratch(): { dir: string; input: string; output: string } {
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-pipe-"));
  const input = join(dir, "in.wasm");
  writeFileSync(input, EXAMPLE);
  return { dir, input, output: join(dir, "out.wasm") };
}

test("CLI: an internal error exits 3 with 'internal error' and a hint, no stack, nothing written", () => {
  registerPass(boom);
  try {
    const { dir, input, output } = scratch();
    const r = io();
    assert.equal(runSafely([input, "-o", output, "--passes", "test-boom"], r), 3);
    const lines = r.err.trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.equal(lines[0], 'internal error: pass "test-boom" failed: boom');
    assert.match(lines[1]!, /bug.*report.*WASM_COMPACT_DEBUG=1/);
    assert.deepEqual(readdirSync(dir), ["in.wasm"]);

    const d = io({ debug: true });
    assert.equal(runSafely([input, "-o", output, "--passes", "test-boom"], d), 3);
    assert.match(d.err, /\n\s+at /, "stack with WASM_COMPACT_DEBUG=1");
    assert.match(d.err, /caused by: TypeError: boom/);
    assert.deepEqual(readdirSync(dir), ["in.wasm"]);
    rmSync(dir, { recursive: true });
  } finally {
    unregisterPass("test-boom");
  }
});

test("CLI: an output that does not validate exits 3 and is not written", () => {
  registerPass(corrupt);
  try {
    const { dir, input, output } = scratch();
    const r = io();
    // raw target: the corrupted module is the same size, so no size judgement undoes it
    assert.equal(runSafely([input, "-o", output, "--passes", "test-corrupt", "--target", "raw"], r), 3);
    assert.match(r.err, /^internal error: the optimized module does not validate/);
    assert.deepEqual(readdirSync(dir), ["in.wasm"]);
    rmSync(dir, { recursive: true });
  } finally {
    unregisterPass("test-corrupt");
  }
});

test("CLI: the progress bar appears only on a TTY and only after a second", () => {
  registerPass(grow(false));
  try {
    const { dir, input, output } = scratch();
    const args = [input, "-o", output, "--passes", "test-grow"];
    let t = 0;
    const slow = io({ tty: true, now: () => (t += 400) }); // every clock read is 0.4 s later
    assert.equal(runSafely(args, slow), 0, slow.err);
    assert.match(slow.err, /\r\[[#-]{30}\]\s+\d+%  /, "bar drawn");
    assert.match(slow.err, /\r\x1b\[K(?!.*\r\[)/s, "and erased before the summary");
    assert.match(slow.err, /^whole file/m);

    let u = 0;
    const fast = io({ tty: true, now: () => (u += 1) });
    assert.equal(runSafely(args, fast), 0);
    assert.doesNotMatch(fast.err, /\r/, "no bar for a short run");

    let v = 0;
    const pipe = io({ tty: false, now: () => (v += 400) });
    assert.equal(runSafely(args, pipe), 0);
    assert.doesNotMatch(pipe.err, /\r/, "no bar when stderr is not a terminal");

    let w = 0;
    const quiet = io({ tty: true, now: () => (w += 400) });
    assert.equal(runSafely([...args, "--quiet"], quiet), 0);
    assert.equal(quiet.err, "");
    rmSync(dir, { recursive: true });
  } finally {
    unregisterPass("test-grow");
  }
});

test("a pass may record hundreds of thousands of merge-map entries (outline on esbuild records 213,283)", () => {
  registerPass({
    name: "test-many-entries",
    description: "records many merge-map entries and changes nothing",
    run(_m, ctx) {
      for (let i = 0; i < 300_000; i++) ctx.record?.({ function: { origin: 0 }, became: "extracted", into: { origin: -1 }, sites: 1 });
      return { changed: false };
    },
  });
  try {
    const { report } = optimize(EXAMPLE, { passes: ["test-many-entries"] });
    assert.equal(report.mergeMap.length, 300_000);
  } finally {
    unregisterPass("test-many-entries");
  }
});

// A module above the pipeline's exact-judging size (64 KiB): under balanced
// its passes decide on the brotli estimate and the result is verified.
const GRAPH = new Uint8Array(readFileSync(join(ROOT, "fixtures/wasm/graph-Oz-wasmopt.wasm")));

test("balanced on a large module: passes decide on the estimate; two real brotli runs verify the result", () => {
  const real: number[] = [];
  const measures = { gzip: (b: Uint8Array) => b.length, brotli: (b: Uint8Array) => (real.push(b.length), b.length), brotliEstimate: (b: Uint8Array) => b.length };
  const { binary, report } = optimize(GRAPH, { passes: ["fold-blocks", "outline"], measures, target: "balanced" });
  assert.ok(binary.length < GRAPH.length, "the passes paid");
  assert.equal(real.length, 2, "the baseline and the result, nothing per decision");
  assert.equal(real[1], binary.length);
  assert.match(report.notes.join("\n"), /judged on a fast brotli estimate .* it held/);
});

test("an orders-only pass is checked on the judge's forOrders (the fast screen), not on the estimate", () => {
  for (const ordersOnly of [false, true]) {
    const swap: Pass = {
      name: "test-swap-last-two",
      description: "swaps the last two functions (their indices take as many bytes)",
      ...(ordersOnly ? { ordersOnly } : {}),
      run(m) {
        const nImp = m.numImportedFuncs;
        const n = m.functions.length;
        reorderFunctions(m, m.functions.map((_, k) => nImp + (k < n - 2 ? k : k === n - 2 ? n - 1 : n - 2)));
        return { changed: true };
      },
    };
    // the estimate says every module but the first it sees (the module before the pass) grew; the screen sees no growth
    let first: string | null = null;
    let estimates = 0;
    const brotliEstimate = (b: Uint8Array): number => {
      estimates++;
      first ??= contentKey(b);
      return contentKey(b) === first ? 1000 : 2000;
    };
    const { report } = optimize(GRAPH, { passes: [swap], measures: { gzip: () => 1, brotli: () => 1, brotliFast: () => 1, brotliEstimate }, target: "balanced" });
    const p = report.passes[0]!;
    const undone = /undone: the module grew \(brotli 1000 -> 2000\).*\(estimated\)/;
    if (!ordersOnly) {
      assert.equal(p.kept, false);
      assert.match(p.notes.join("\n"), undone);
    } else {
      // kept by the pass check; verification then weighs the estimate (too little gain: the input comes back)
      assert.doesNotMatch(p.notes.join("\n"), undone);
      assert.match(report.notes.join("\n"), /not worth two brotli quality-11 runs to verify/);
    }
    assert.ok(estimates > 0);
  }
});

// A producers section, which the rewrite extends (processed-by gains
// wasm-compact): the module as read then differs from the input.
function withProducers(wasm: Uint8Array): Uint8Array {
  const str = (t: string): number[] => [...uleb(t.length), ...new TextEncoder().encode(t)];
  const payload = [...str("producers"), ...uleb(1), ...str("processed-by"), ...uleb(1), ...str("clang"), ...str("19")];
  return new Uint8Array([...wasm, 0, ...uleb(payload.length), ...payload]);
}

test("balanced on a large module: where the rewrite changed bytes but set nothing aside, the result is verified against the input itself (two real brotli runs, not three)", () => {
  const input = withProducers(GRAPH);
  const real: number[] = [];
  const measures = { gzip: (b: Uint8Array) => b.length, brotli: (b: Uint8Array) => (real.push(b.length), b.length), brotliEstimate: (b: Uint8Array) => b.length };
  const { binary, report } = optimize(input, { passes: ["fold-blocks", "outline"], measures, target: "balanced" });
  assert.ok(binary.length < input.length, "the passes paid");
  assert.equal(report.keptInput, false);
  assert.deepEqual(real, [input.length, binary.length], "the input and the result: the module as read is never measured");
  assert.match(report.notes.join("\n"), /judged on a fast brotli estimate .* it held/);
});

test("balanced on a large module: a result that fails verification goes back to the module as read, never grows, and nothing runs again", () => {
  let baseline = -1;
  let runs = 0;
  // the real brotli: anything but the module as read grows; the estimate says every raw saving pays
  const brotli = (b: Uint8Array): number => {
    runs++;
    if (baseline < 0) baseline = b.length;
    return b.length === baseline ? 1000 : 2000;
  };
  const measures = { gzip: (b: Uint8Array) => b.length, brotli, brotliEstimate: (b: Uint8Array) => b.length };
  const { binary, report } = optimize(GRAPH, { passes: ["fold-blocks", "outline"], measures, target: "balanced", outlineHot: true });
  assert.equal(binary.length, baseline, "nothing the real measure refuses is kept");
  assert.equal(brotli(binary), 1000);
  assert.ok(runs <= 4, `the real measure ran ${runs - 1} times: the baseline and the checkpoints, nothing per decision`);
  const names = report.passes.map((p) => `${p.name}:${p.changed && p.kept ? "kept" : "not kept"}`);
  assert.deepEqual(names, ["fold-blocks:not kept", "outline:not kept"], "no pass runs again");
  assert.match(report.passes.find((p) => p.changed)!.notes.join("\n"), /undone: on the real measures the result grew \(brotli 1000 -> 2000\)/);
  assert.match(report.notes.join("\n"), /failed .* so the result is the last state that holds \(the module as read\)/);
  assert.deepEqual(report.mergeMap, [], "no merge-map entry from an undone pass");
});

test("balanced on a large module: a failed verification goes back to the last checkpoint that holds and keeps its merge map", () => {
  const len = (b: Uint8Array): number => b.length;
  // the module after fold-blocks alone, on the estimate (which is the raw size here)
  const folded = optimize(GRAPH, { passes: ["fold-blocks"], measures: { gzip: len, brotli: len, brotliEstimate: len }, target: "balanced", outlineHot: true }).binary.length;
  assert.ok(folded < GRAPH.length, "fold-blocks pays on the fixture");
  // the real brotli: anything smaller than that grows tenfold
  const brotli = (b: Uint8Array): number => (b.length < folded ? 10 * b.length : b.length);
  const steps: number[] = [];
  const { binary, report } = optimize(GRAPH, {
    passes: ["fold-blocks", "cleanup", "outline", "layout"],
    measures: { gzip: len, brotli, brotliEstimate: len },
    target: "balanced",
    outlineHot: true, // the verification machinery, on a module where hot code pays
    onProgress: (done, total) => steps.push(done, total),
  });
  assert.equal(binary.length, folded, "back to the fold-blocks checkpoint");
  const rows = report.passes.map((p) => `${p.name}:${p.changed && p.kept ? "kept" : "not kept"}`);
  assert.equal(rows[0], "fold-blocks:kept");
  assert.equal(rows.length, 4, "no pass runs again");
  assert.match(report.passes[2]!.notes.join("\n"), /undone: on the real measures the result grew/);
  assert.match(report.notes.join("\n"), /the last state that holds \(after fold-blocks\)/);
  // the merge map is fold-blocks' and resolves against the output
  assert.ok(report.mergeMap.length > 0);
  const fresh = new Map<number, number>();
  for (const e of report.mergeMap) {
    assert.equal(e.became, "extracted");
    assert.ok(e.function.output !== undefined && e.into.output !== undefined, "every entry resolves");
    const seen = fresh.get(e.into.origin);
    assert.ok(seen === undefined || seen === e.into.output, "one output per new origin");
    fresh.set(e.into.origin, e.into.output!);
  }
  assert.equal(new Set(fresh.values()).size, fresh.size, "new origins are distinct functions");
  // progress never goes back and ends at its total (which grew for the verification)
  for (let i = 2; i < steps.length; i += 2) assert.ok(steps[i]! >= steps[i - 2]!);
  assert.equal(steps.at(-2), steps.at(-1));
});

// A module above 4 MiB (the size where the CLI's brotli estimate becomes
// quality 5 and the brotli target stops running the other targets'
// searches): the fixture with a 4 MiB custom section. The measures are fakes,
// so the large-file path runs without a 13 MB module or seconds of brotli.
function padded(input: Uint8Array, extra: number): Uint8Array {
  // a custom section "pad" of `extra` zero bytes, its size in a five-byte
  // LEB128 (valid, not minimal: the writer writes it shorter)
  const payload = 4 + extra;
  const out = new Uint8Array(input.length + 6 + payload);
  out.set(input);
  let o = input.length;
  out[o++] = 0;
  for (let k = 0; k < 5; k++) out[o++] = ((payload >>> (7 * k)) & 0x7f) | (k < 4 ? 0x80 : 0);
  out.set([3, 0x70, 0x61, 0x64], o);
  return out;
}

test("the last word is the real brotli at every size: on a module above 4 MiB an estimate-judged result that grows is never returned", () => {
  const big = padded(GRAPH, 4 << 20);
  assert.ok(big.length > 4 << 20);
  const len = (b: Uint8Array): number => b.length;
  for (const target of ["balanced", "brotli"] as const) {
    // the estimate says every raw saving pays; the real measure says every
    // change grows (the input and the module as rewritten, 3 bytes shorter, tie)
    let real = 0;
    const brotli = (b: Uint8Array): number => (real++, b.length >= big.length - 8 ? 1000 : 1001);
    // (outlineHot: the passes must save 0.1 % of the file for balanced to verify at all)
    const { binary, report } = optimize(big, { passes: ["fold-blocks", "outline"], measures: { gzip: len, brotli, brotliEstimate: len }, target, outlineHot: true });
    assert.equal(brotli(binary), 1000, `${target}: the real brotli size did not grow`);
    assert.ok(real <= 5, `${target}: ${real - 1} real brotli runs, none per decision`);
    assert.ok(report.passes.some((p) => p.notes.some((n) => /undone: on the real measures the result grew/.test(n))), `${target}: a change paid on the estimate`);
  }
  // where the real measure agrees, the result is kept
  const { binary } = optimize(big, { passes: ["fold-blocks", "outline"], measures: { gzip: len, brotli: len, brotliEstimate: len }, target: "brotli" });
  assert.ok(binary.length < big.length);
});

test("balanced does not verify a gain under 0.1 % of the file: no quality-11 run, the input comes back", () => {
  const big = padded(GRAPH, 1 << 20);
  const len = (b: Uint8Array): number => b.length;
  let real = 0;
  const brotli = (b: Uint8Array): number => (real++, b.length);
  const { binary, report } = optimize(big, { passes: ["fold-blocks", "outline"], measures: { gzip: len, brotli, brotliEstimate: len } });
  const saved = report.passes.reduce((n, p) => n + (p.changed ? 1 : 0), 0);
  assert.ok(saved > 0, "a pass paid on the estimate");
  assert.equal(real, 0, "no real brotli run");
  assert.deepEqual(binary, big);
  assert.ok(report.keptInput);
  assert.match(report.notes.join("\n"), /under 0\.1 % of the file and of its estimated gzip and brotli sizes: not worth two brotli quality-11 runs to verify/);
  assert.ok(report.passes.every((p) => !p.changed || !p.kept));
  // the same raw gain with a compressed gain of 1 % on the estimate is verified
  real = 0;
  const v0 = estimateView(big).length; // the estimates see the module without its pad section
  const r1 = optimize(big, { passes: ["fold-blocks", "outline"], measures: { gzip: len, brotli, brotliEstimate: (b) => (b.length < v0 - 8 ? b.length - 5000 : b.length) } });
  assert.ok(real > 0 && !r1.report.keptInput, "verified and kept");
  // the same gain on a file a thousandth the size is verified and kept
  real = 0;
  const small = padded(GRAPH, 1 << 10);
  const r2 = optimize(small, { passes: ["fold-blocks", "outline"], measures: { gzip: len, brotli, brotliEstimate: len } });
  assert.ok(r2.binary.length < small.length && real > 0);
});

test("tooLittleToVerify: 0.1 % of the raw bytes, of the estimated gzip or of the estimated brotli size is worth verifying", () => {
  // not a module: the estimates see all of it (whole = 1)
  const before = new Uint8Array(100_000);
  const after = new Uint8Array(99_990);
  const judge = (gzipGain: number, brotliGain: number): SizeJudge =>
    new SizeJudge("balanced", { gzip: (b) => (b === after ? 50_000 - gzipGain : 50_000), brotli: (b) => (b === after ? 40_000 - brotliGain : 40_000) });
  assert.equal(tooLittleToVerify(judge(0, 0), before, after), true, "10 raw bytes and nothing else");
  assert.equal(tooLittleToVerify(judge(100, 0), before, after), false, "0.2 % of gzip");
  assert.equal(tooLittleToVerify(judge(0, 80), before, after), false, "0.2 % of brotli");
  assert.equal(tooLittleToVerify(judge(40, 30), before, after), true, "under 0.1 % of both");
  assert.equal(tooLittleToVerify(judge(0, 0), before, new Uint8Array(99_900)), false, "0.1 % of the raw bytes");
});

test("balanced: after a failed verification, an earlier checkpoint too small to be worth verifying is passed over unmeasured", () => {
  const big = padded(GRAPH, 4 << 20); // fold-blocks saves under 0.1 % of it
  const len = (b: Uint8Array): number => b.length;
  // fold-blocks alone, as the estimate sees it
  const folded = estimateView(optimize(big, { passes: ["fold-blocks"], target: "raw", outlineHot: true }).binary).length;
  assert.ok(folded < estimateView(big).length, "fold-blocks pays on the fixture");
  // on the estimate only outline's further savings pay a lot; the real brotli says anything but the input grows
  const real: number[] = [];
  const brotli = (b: Uint8Array): number => (real.push(b.length), b.length === big.length ? 1000 : 2000);
  const brotliEstimate = (b: Uint8Array): number => (b.length < folded ? b.length - 5000 : b.length);
  const { binary, report } = optimize(big, { passes: ["fold-blocks", "outline"], measures: { gzip: len, brotli, brotliEstimate }, target: "balanced", outlineHot: true });
  assert.deepEqual(binary, big);
  assert.ok(report.passes.every((p) => p.changed), "both passes paid on the estimate");
  assert.equal(real.length, 2, `the input and the last checkpoint, not the fold-blocks one (${real.join(", ")})`);
  assert.match(report.notes.join("\n"), /failed .* so the result is the last state that holds \(the module as read\)/);
});

test("balanced on a large module with DWARF: verification compares the result with its debug info put back against the input, so the last word needs no other brotli run", () => {
  // a .debug_info section (set aside while the passes run) twice the module's size
  const name = new TextEncoder().encode(".debug_info");
  const payload = Uint8Array.from({ length: 2 * GRAPH.length }, (_, i) => (i * 31 + 7) & 0xff);
  const body = [...uleb(name.length), ...name, ...payload];
  const input = new Uint8Array([...GRAPH, 0, ...uleb(body.length), ...body]);
  assert.ok(input.length > 64 << 10, "estimate-judged");
  const len = (b: Uint8Array): number => b.length;
  const real: number[] = [];
  const brotli = (b: Uint8Array): number => (real.push(b.length), b.length);
  const { binary, report } = optimize(input, { passes: ["fold-blocks", "outline"], measures: { gzip: len, brotli, brotliEstimate: len }, target: "balanced", outlineHot: true });
  assert.ok(binary.length < input.length && !report.keptInput, "the passes paid and were kept");
  assert.deepEqual(real, [input.length, binary.length], "two real brotli runs: the input and the result as shipped");
  assert.match(report.notes.join("\n"), /judged on a fast brotli estimate .* it held/);
});

test("the last word compares with the input itself: a result that holds against the rewritten module but grows against the input is not returned", () => {
  const len = (b: Uint8Array): number => b.length;
  const input = padded(EXAMPLE, 10);
  const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
  assert.ok(!same(optimize(input, { passes: [] }).binary, input), "the module as rewritten is not the input");
  // on this brotli every module but the input itself is larger, the rewritten one too
  const brotli = (b: Uint8Array): number => (same(b, input) ? 1 : 100 + b.length);
  for (const target of ["balanced", "brotli"] as const) {
    const { binary, report } = optimize(input, { passes: ["fold-blocks"], measures: { gzip: len, brotli }, target });
    assert.ok(same(binary, input), `${target}: the input is returned`);
    assert.ok(report.keptInput);
    assert.match(report.notes.join("\n"), /larger than the input on the real measures \(brotli 1 -> /);
  }
});

test("target brotli: the searches judged under the other targets run too, and the lowest brotli result is returned", async () => {
  const { gzipSync } = await import("node:zlib");
  const input = new Uint8Array(readFileSync(join(ROOT, "fixtures/wasm/interp-Oz-wasmopt.wasm")));
  const gzip = (b: Uint8Array): number => gzipSync(b, { level: 9 }).length;
  const same = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
  // the raw search under the brotli target leaves hot code alone, as every target does by default
  const rawHot = optimize(input, { target: "raw" }).binary;
  const rawAll = optimize(input, { target: "raw", outlineHot: true }).binary;
  assert.ok(!same(rawHot, rawAll), "the fixture has hot code worth outlining");
  for (const winner of ["gzip", "raw"] as const) {
    const wanted = winner === "raw" ? rawHot : optimize(input, { target: "gzip", measures: { gzip } }).binary;
    // a brotli measure under which exactly that output is the smallest
    const brotli = (b: Uint8Array): number => (same(b, wanted) ? 1 : 1000 + b.length);
    const steps: [number, number][] = [];
    const r = optimize(input, { target: "brotli", measures: { gzip, brotli }, onProgress: (d, t) => steps.push([d, t]) });
    assert.ok(same(r.binary, wanted), `the ${winner}-judged result is returned`);
    // (the balanced-judged search may end at the same module as the gzip one; the earlier search wins a tie)
    const by = winner === "raw" ? "raw" : "(balanced|gzip)";
    assert.match(r.report.notes.join("\n"), new RegExp(`target brotli: the search judged under target ${by} ended lower \\(brotli 1 bytes\\)`));
    assert.deepEqual(steps.at(-1), [4, 4], "progress covers the four searches");
    assert.ok(steps.every(([d], i) => i === 0 || d >= steps[i - 1]![0]));
  }
});

test("an estimate-judged run of a module that is mostly debug info or data starts the input's real measure before anything else; others do not", () => {
  const events = (file: string): string[] => {
    const input = new Uint8Array(readFileSync(join(ROOT, "fixtures/wasm", file)));
    const log: string[] = [];
    const name = (b: Uint8Array): string => (contentKey(b) === contentKey(input) ? "input" : "other");
    const measures = {
      gzip: (b: Uint8Array) => (log.push(`gzip ${name(b)}`), nodeMeasures.gzip!(b)),
      brotli: (b: Uint8Array) => (log.push(`brotli ${name(b)}`), nodeMeasures.brotli!(b)),
      brotliFast: (b: Uint8Array) => (log.push("fast"), nodeMeasures.brotliFast!(b)),
      brotliEstimate: (b: Uint8Array) => (log.push("estimate"), nodeMeasures.brotliEstimate!(b)),
      prefetch: (list: readonly Uint8Array[], early?: boolean) => void log.push(`prefetch ${list.map(name).join(",")}${early ? " early" : ""}`),
    };
    let phase = "";
    const onProgress = (_done: number, _total: number, p: string): void => {
      if (p !== phase) log.push(`phase ${(phase = p)}`);
    };
    optimize(input, { target: "balanced", measures, onProgress });
    return log;
  };
  // interp-Oz-g: 268 KB, six times what the estimates see (DWARF)
  const debug = events("interp-Oz-g.wasm");
  assert.deepEqual(debug.slice(0, 2), ["prefetch input early", "phase read"], "before it is even read");
  // graph: 100 KB, nearly all code: the input is measured only once a pass pays
  const code = events("graph-Oz-wasmopt.wasm");
  assert.ok(!code.includes("prefetch input early"), code.slice(0, 5).join("; "));
  assert.equal(code[0], "phase read");
});
