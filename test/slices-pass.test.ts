// The slices pass (stages a and b): criteria replaced by calls to one
// function per class, what only the slice used removed, the module valid and
// computing the same results (run in V8); hot code left alone; a class that
// does not pay left alone; the saving equal to the byte model's projection.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { idOf } from "../src/binary/opcodes/index.js";
import { writeModule } from "../src/binary/writer.js";
import { validateModule } from "../src/analysis/validate.js";
import { optimize } from "../src/index.js";
import type { Func, Module } from "../src/ir/module.js";
import type { HotCode } from "../src/passes/pass.js";
import type { SizeJudge } from "../src/size-target.js";
import { slices } from "../src/passes/slices/index.js";
import { PAPER_PRESET } from "../src/passes/slices/cost.js";
import { sameBehaviour } from "./behaviour.js";
import { checkFixture, describeFailures, listFixtures } from "./oracle/c-programs.js";

/** A function whose result is a 7-operation slice of its parameter, computed across statements around a store and a call. */
const FN = (name: string, k: number) => `(func (export "${name}") (param i32 i32) (result i32) (local i32 i32)
    (local.set 2 (i32.xor (i32.shr_u (local.get 0) (i32.const 3)) (i32.const ${k})))
    (i32.store (i32.const 16) (local.get 1))
    (local.set 3 (call $g (local.get 1)))
    (i32.add
      (i32.add (i32.mul (i32.rotl (local.get 2) (i32.const 13)) (i32.const 99991)) (i32.const 77))
      (local.get 3)))`;
const MODULE = (n: number, k = (_: number) => 1234567) =>
  `(module (memory 1) (func $g (param i32) (result i32) (i32.add (local.get 0) (i32.load (i32.const 16))))
    ${Array.from({ length: n }, (_, i) => FN(`f${i}`, k(i))).join("\n")})`;
const CALLS = (n: number): [string, unknown[]][] =>
  Array.from({ length: n }, (_, i) => [-7, 0, 1, 123456789, 2 ** 31 - 1].map((a) => [`f${i}`, [a, i]] as [string, unknown[]])).flat();

test("slices: twelve copies become calls to one function; valid, same results, the projected bytes saved", async () => {
  const input = await parse(MODULE(12));
  const m = readModule(input, { decodeBodies: true });
  const s = slices(m);
  assert.equal(s.functions, 1);
  assert.equal(s.callSites, 12);
  validateModule(m);
  const out = writeModule(m);
  assert.equal(input.length - out.length, s.projected, "the byte model is exact");
  sameBehaviour(input, out, CALLS(12));
  // through the pipeline (checked: validated, behaviour of exports compared where it can)
  const { binary } = optimize(input, { passes: ["slices"], checked: true, outlineHot: true });
  assert.ok(binary.length < input.length);
  sameBehaviour(input, binary, CALLS(12));
});

/** Functions whose criterion (the xor) is reached through an if: a γ of local 2 or the if's own value, with small or large sides. */
const FN_IF = (name: string, form: "phi" | "value", large: boolean) => {
  const side = (e: string) => (large ? `(i32.add (i32.rotl (i32.mul (i32.xor ${e} (i32.const 5)) (i32.const 77)) (i32.const 5)) (i32.const 9))` : e);
  const t = side("(i32.mul (local.get 0) (i32.const 99991))");
  const f = side("(i32.rotl (local.get 0) (i32.const 13))");
  const value = form === "phi" ? "(local.get 2)" : `(if (result i32) (i32.eqz (local.get 1)) (then ${t}) (else ${f}))`;
  return `(func (export "${name}") (param i32 i32) (result i32) (local i32 i32)
    ${form === "phi" ? `(if (local.get 1) (then (local.set 2 ${t})) (else (local.set 2 ${f})))` : ""}
    (i32.store (i32.const 16) (local.get 1))
    (local.set 3 (call $g (local.get 1)))
    (i32.add (i32.xor ${value} (i32.const 1234567)) (local.get 3)))`;
};

test("slices (stage b): twelve copies through an if become calls, as a select or an if with a result; valid, same results, the projected bytes saved", async () => {
  for (const form of ["phi", "value"] as const) {
    for (const large of [false, true]) {
      const input = await parse(`(module (memory 1) (func $g (param i32) (result i32) (i32.add (local.get 0) (i32.load (i32.const 16))))
        ${Array.from({ length: 12 }, (_, i) => FN_IF(`f${i}`, form, large)).join("\n")})`);
      const m = readModule(input, { decodeBodies: true });
      const s = slices(m);
      assert.equal(s.functions, 1, `${form} ${large}`);
      assert.equal(s.callSites, 12);
      validateModule(m);
      const callee = m.functions[m.functions.length - 1]!.body!;
      assert.ok(Array.from(callee.ops).includes(idOf(large ? "if" : "select")), `${form} ${large}: the γ's form`);
      const out = writeModule(m);
      assert.equal(input.length - out.length, s.projected, "the byte model is exact");
      sameBehaviour(input, out, CALLS(12));
    }
  }
});

test("slices: a class that does not pay is left alone (one copy)", async () => {
  const input = await parse(MODULE(1));
  const m = readModule(input, { decodeBodies: true });
  const s = slices(m);
  assert.ok(s.slices > 0);
  assert.equal(s.functions, 0);
  assert.ok(m.functions.every((f) => !f.dirty));
});

test("slices: hot criteria are left alone", async () => {
  const input = await parse(MODULE(12));
  const run = (hotFuncs: Set<number>): Module => {
    const m = readModule(input, { decodeBodies: true });
    const idx = (f: Func) => m.functions.indexOf(f);
    const hot: HotCode = { isHotFunction: (f) => hotFuncs.has(idx(f)), isHotInstruction: (f) => hotFuncs.has(idx(f)) };
    slices(m, { hot });
    validateModule(m);
    return m;
  };
  const some = run(new Set([1, 2]));
  assert.equal(some.functions.length, 14, "one slice function");
  assert.ok(!some.functions[1]!.dirty && !some.functions[2]!.dirty, "the hot functions are untouched");
  assert.ok(some.functions[3]!.dirty);
  sameBehaviour(input, writeModule(some), CALLS(12));
  const all = run(new Set(Array.from({ length: 13 }, (_, i) => i)));
  assert.equal(all.functions.length, 13, "nothing when all is hot");
});

test("slices: the paper's preset takes a class of ten or more one-parameter slices, paying or not", async () => {
  const input = await parse(MODULE(10));
  const m = readModule(input, { decodeBodies: true });
  const s = slices(m, undefined, PAPER_PRESET);
  assert.equal(s.functions, 1, "P = 1, C = 10, I = 7");
  validateModule(m);
  sameBehaviour(input, writeModule(m), CALLS(10));
  // different constants: ten classes of one, none admitted
  const m2 = readModule(await parse(MODULE(10, (i) => i)), { decodeBodies: true });
  assert.equal(slices(m2, undefined, PAPER_PRESET).functions, 0);
});

test("slices on C fixtures (hot code included): the programs' outputs are unchanged and the files smaller", async () => {
  for (const f of listFixtures().filter((x) => x.name === "interp-Oz" || x.name === "hashtable-Oz-wasmopt")) {
    let stats: Record<string, number> | undefined;
    const r = await checkFixture(f, (bytes) => {
      const out = optimize(bytes, { passes: ["slices"], checked: true, target: "raw", outlineHot: true });
      stats = out.report.passes[0]!.stats;
      validateModule(readModule(out.binary, { decodeBodies: true }));
      return out.binary;
    });
    assert.equal(describeFailures(r), null);
    assert.ok((stats?.functions ?? 0) > 0 && r.bytesAfter < r.bytesBefore, `${f.name}: ${r.bytesBefore} -> ${r.bytesAfter}`);
  }
});

test("slices under a compressed target: the judge decides on the whole module, in halves; what it refuses stays as it was", async () => {
  // two classes (different constants), each paying in raw bytes
  const input = await parse(`(module (memory 1) (func $g (param i32) (result i32) (i32.add (local.get 0) (i32.load (i32.const 16))))
    ${Array.from({ length: 24 }, (_, i) => FN(`f${i}`, i < 12 ? 1234567 : 7654321)).join("\n")})`);
  const calls: [string, unknown[]][] = Array.from({ length: 24 }, (_, i) => [-7, 0, 123456789].map((a) => [`f${i}`, [a, i]] as [string, unknown[]])).flat();
  // the judge's answers in turn: both classes, then the first alone, then the second alone
  for (const [answers, functions] of [[[true], 2], [[false, false, true], 1], [[false, false, false], 0]] as const) {
    const m = readModule(input, { decodeBodies: true });
    let k = 0;
    const judge = { compressed: true, prefetch: () => {}, better: () => answers[k++] ?? false } as unknown as SizeJudge;
    const s = slices(m, { judge });
    assert.equal(s.judgements, answers.length);
    assert.equal(s.functions, functions);
    validateModule(m);
    sameBehaviour(input, writeModule(m), calls);
  }
});
