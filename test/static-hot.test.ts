// The static frequency estimate (analysis/frequency.ts) and the hot code it
// gives without a profile (profile/static-hot.ts): loops run more often than
// their surroundings, code called from a loop is as hot as the loop, trap
// paths are cold, recursion stays bounded, indirect calls reach every candidate, and the passes
// that add calls keep out of hot code under every target unless told not to.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import { DEFAULT_MODEL, localFrequency, moduleFrequency, stronglyConnected } from "../src/analysis/frequency.js";
import { hotCutoff, staticHotCode } from "../src/profile/static-hot.js";
import { optimize } from "../src/index.js";

const wasm = async (wat: string): Promise<Uint8Array> => parse(wat);

/** "op:freq" per instruction of defined function `k`. */
function freqs(bytes: Uint8Array, k: number): string[] {
  const m = readModule(bytes, { decodeBodies: true });
  const b = m.functions[k]!.body!;
  const l = localFrequency(b);
  return Array.from({ length: b.count }, (_, i) => `${OPS[b.ops[i]!]!.name}:${l.freq[i]}`);
}

test("local frequencies: loops multiply, if arms split, what arrives at a construct's end adds up", async () => {
  const t = DEFAULT_MODEL.loopTrips;
  const bytes = await wasm(`(module (func (param i32)
    (loop $l (br_if $l (local.get 0)))
    (if (local.get 0) (then nop) (else nop))
    nop))`);
  assert.deepEqual(freqs(bytes, 0), [
    "loop:1", `local.get:${t}`, `br_if:${t}`, `end:${t}`,
    "local.get:1", "if:1", "nop:0.5", "else:0.5", "nop:0.5", "end:0.5",
    "nop:1", "end:1",
  ]);
});

test("local frequencies: a path that can only trap is cold, code after an unconditional branch is dead", async () => {
  const bytes = await wasm(`(module (func (param i32)
    (if (local.get 0) (then nop unreachable))
    (block (br_if 0 (local.get 0)) nop unreachable)
    (block (br 0) nop)
    nop))`);
  // the way around a cold path takes the rest: 99 % (coldShare 1 %)
  assert.equal(DEFAULT_MODEL.coldShare, 0.01);
  assert.deepEqual(freqs(bytes, 0), [
    "local.get:1", "if:1", "nop:0.01", "unreachable:0.01", "end:0",
    "block:0.99", "local.get:0.99", "br_if:0.99", "nop:0.0099", "unreachable:0.0099", "end:0",
    "block:0.9801", "br:0.9801", "nop:0", "end:0",
    "nop:0.9801", "end:0.9801",
  ]);
});

test("local frequencies: a br_table's cases are as hot as the dispatch; a br_if passes on half", async () => {
  const bytes = await wasm(`(module (func (param i32)
    (block (block (block (br_table 0 1 2 (local.get 0))) nop (br 1)) nop (br 0))
    (block (br_if 0 (local.get 0)) (return))
    nop))`);
  const f = freqs(bytes, 0);
  assert.deepEqual(f.slice(0, 15), [
    "block:1", "block:1", "block:1", "local.get:1", "br_table:1", "end:0",
    "nop:1", "br:1", "end:0", "nop:1", "br:1", "end:0",
    "block:1", "local.get:1", "br_if:1",
  ]);
  assert.deepEqual(f.slice(15), ["return:1", "end:0", "nop:0.5", "end:0.5"]);
});

test("entry frequencies follow calls: a callee of a loop is as hot as the loop, recursion stays bounded, indirect calls reach every candidate", async () => {
  const bytes = await wasm(`(module
    (type $t (func))
    (table 2 funcref) (elem (i32.const 0) $i1 $i2)
    (func $leaf)
    (func $once)
    (func $rec (param i32) (if (local.get 0) (then (call $rec (i32.const 0)))))
    (func $i1) (func $i2)
    (func (export "run") (param i32)
      (call $once)
      (loop $l
        (call $leaf)
        (call $rec (local.get 0))
        (call_indirect (type $t) (local.get 0))
        (br_if $l (local.get 0)))))`);
  const m = readModule(bytes, { decodeBodies: true });
  const { entry } = moduleFrequency(m);
  const t = DEFAULT_MODEL.loopTrips;
  const [leaf, once, rec, i1, i2, run] = [0, 1, 2, 3, 4, 5].map((i) => entry[i]!);
  assert.equal(run, 1);
  assert.equal(once, 1);
  assert.equal(leaf, t);
  assert.equal(rec, t * DEFAULT_MODEL.recursionTrips, "a recursive function runs recursionTrips times per entry");
  assert.equal(i1, t, "an indirect call may reach each function of its type in the table, as often as the call runs");
  assert.equal(i2, t);
  const shared = moduleFrequency(m, { ...DEFAULT_MODEL, indirect: "share" }).entry;
  assert.equal(shared[3], t / 2, "shared among them, each gets half");

  const { hot, summary } = staticHotCode(m, { coverage: 0.9 });
  assert.ok(hot.isHotFunction(m.functions[0]!), "the loop's callee is hot");
  assert.ok(!hot.isHotFunction(m.functions[1]!), "a function called once outside the loop is not");
  assert.ok(hot.isHotInstruction(m.functions[5]!, 3), "the loop body is hot");
  assert.ok(!hot.isHotInstruction(m.functions[5]!, 0), "the call before the loop is not");
  assert.ok(summary.hotInstructions > 0 && summary.hotInstructions < summary.instructions);
});

test("hotCutoff takes the most frequent code that covers the share, ties included", () => {
  const f = [Float64Array.from([1, 1, 8, 8]), Float64Array.from([64])];
  // weights: entry 1 and 1; executed: 1+1+8+8 = 18 and 64, total 82
  assert.ok(hotCutoff(f, [1, 1], 0.5) > 8, "64 alone covers half");
  const c = hotCutoff(f, [1, 1], 0.9);
  assert.ok(c <= 8 && c > 1, "the 8s are needed for 90 %");
  assert.equal(hotCutoff(f, [1, 1], 0), Infinity, "coverage 0: nothing is hot");
  assert.equal(hotCutoff(f, [0, 0], 0.9), Infinity, "nothing runs: nothing is hot");
});

test("strongly connected components come callees first", () => {
  // 0 -> 1 -> 2 -> 1, 2 -> 3
  const edges = [[1], [2], [1, 3], []];
  const c = stronglyConnected(4, (v) => edges[v]!);
  assert.deepEqual(c.map((x) => [...x].sort()), [[3], [1, 2], [0]]);
});

test("outline keeps out of a hot loop's callee under every target unless outlineHot", async () => {
  // the same 8-instruction sequence, three times in a callee of a loop and three times in a cold function
  const seq = "(i32.store (i32.add (local.get 0) (i32.const 64)) (i32.mul (i32.load offset=8 (local.get 0)) (i32.const 1234567)))";
  const bytes = await wasm(`(module (memory 1)
    (func $hot (param i32) ${seq} ${seq} ${seq})
    (func $cold (param i32) ${seq} ${seq} ${seq})
    (func (export "run") (param i32)
      (call $cold (local.get 0))
      (loop $l (call $hot (local.get 0)) (br_if $l (local.get 0)))))`);
  const outlinedFrom = (r: ReturnType<typeof optimize>): number[] =>
    r.report.mergeMap.filter((e) => e.became === "extracted").map((e) => e.function.origin).sort();
  for (const target of ["raw", "gzip"] as const) {
    const measures = { gzip: (b: Uint8Array) => b.length };
    const safe = optimize(bytes, { passes: ["outline"], target, measures });
    assert.ok(!outlinedFrom(safe).includes(0), `${target}: the loop's callee is left alone`);
    assert.match(safe.report.notes.join("\n"), /static estimate calls \d+ of 3 functions hot/);
    const all = optimize(bytes, { passes: ["outline"], target, measures, outlineHot: true });
    assert.ok(outlinedFrom(all).includes(0), `${target} with outlineHot: the callee is outlined too`);
  }
});

test("code deep in if arms inside a loop is hot by the default rule, not by frequency alone", async () => {
  const bytes = await wasm(`(module (func (export "run") (param i32)
    (loop $l
      (if (local.get 0) (then (if (local.get 0) (then (if (local.get 0) (then (if (local.get 0) (then nop))))))))
      (br_if $l (local.get 0)))))`);
  const m = readModule(bytes, { decodeBodies: true });
  const f = m.functions[0]!;
  const nop = Array.from({ length: f.body!.count }, (_, i) => i).find((i) => OPS[f.body!.ops[i]!]!.name === "nop")!;
  assert.equal(localFrequency(f.body!).freq[nop], DEFAULT_MODEL.loopTrips / 16, "four arms deep: 8 / 16");
  assert.ok(staticHotCode(m).hot.isHotInstruction(f, nop), "hot: inside a loop");
  assert.ok(!staticHotCode(m, { minFrequency: 1.01 }).hot.isHotInstruction(f, nop), "frequency alone calls it cold");
});

test("an export's own body is hot as if called in a loop (the host may loop over it); its callees and trap paths are not raised", async () => {
  const bytes = await wasm(`(module (memory 1)
    (func $helper (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
    (func (export "api") (param i32) (result i32)
      (if (i32.eqz (local.get 0)) (then unreachable))
      (i32.add (call $helper (local.get 0)) (i32.const 1)))
    (func $internal (param i32) (result i32) (i32.add (local.get 0) (i32.const 1))))`);
  const m = readModule(bytes, { decodeBodies: true });
  const [helper, api, internal] = m.functions as [typeof m.functions[0], typeof m.functions[0], typeof m.functions[0]];
  const at = (f: typeof api, name: string): number => Array.from({ length: f.body!.count }, (_, i) => i).find((i) => OPS[f.body!.ops[i]!]!.name === name)!;
  const { hot } = staticHotCode(m);
  assert.ok(hot.isHotInstruction(api, at(api, "i32.add")), "the export's straight-line code is hot");
  assert.ok(!hot.isHotInstruction(api, at(api, "unreachable")), "its trap path stays cold");
  assert.ok(!hot.isHotInstruction(helper, at(helper, "i32.mul")), "its callee is not raised with it");
  assert.ok(!hot.isHotInstruction(internal, at(internal, "i32.add")), "an unreached function stays cold");
  const without = staticHotCode(m, { minFrequency: 1.01, loops: true }).hot;
  assert.ok(!without.isHotInstruction(api, at(api, "i32.add")), "without the exports rule the export runs once per entry: cold");
});
