// Slice identification (stage a), canonical form and the byte model, on
// hand-written functions: what a slice holds and where it stops, every
// refusal (trapping op, load, mutable global, call, a value from outside the
// loop, a stop value overwritten, a construct's value), what dies with a
// slice, which slices are equal, and when a class pays.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import type { Module } from "../src/ir/module.js";
import { FunctionSlicer, STOP_MU, STOP_OUTER, STOP_PARAM, type Slice } from "../src/passes/slices/identify.js";
import { canonicalSlice } from "../src/passes/slices/canon.js";
import { nth, refusalOf, sliceOf } from "./slicer-probe.js";
import { chooseClasses, classesOf, PAPER_PRESET, removal } from "../src/passes/slices/cost.js";
import { findSlices } from "../src/passes/slices/find.js";

async function moduleOf(wat: string): Promise<Module> {
  const m = readModule(await parse(wat));
  decodeAllBodies(m);
  return m;
}

async function slicerOf(wat: string, func = 0): Promise<FunctionSlicer> {
  return new FunctionSlicer(await moduleOf(wat), func);
}

const names = (fs: FunctionSlicer, is: readonly number[]): string[] => is.map((i) => OPS[fs.body.ops[i]!]!.name);

test("a straight-line slice crosses statements through locals and stops at parameters", async () => {
  const fs = await slicerOf(`(module (func (param i32 i32) (result i32) (local i32)
    (local.set 2 (i32.mul (local.get 0) (i32.const 3)))
    (drop (i32.const 99))
    (i32.add (i32.shl (local.get 2) (i32.const 2)) (local.get 1))))`);
  const s = sliceOf(fs, "i32.add");
  assert.deepEqual(s.stops.map((x) => [x.local, x.kind]), [[0, STOP_PARAM], [1, STOP_PARAM]]);
  assert.deepEqual(names(fs, s.instrs), ["local.get", "i32.const", "i32.mul", "local.set", "local.get", "i32.const", "i32.shl", "local.get", "i32.add"]);
  assert.equal(s.size, 3, "mul, shl, add: constants are not counted");
  // the drop of 99 is not in it
  assert.ok(!names(fs, s.instrs).includes("drop"));
});

test("select, immutable globals, a declared local's zero and a safe constant divisor are idempotent", async () => {
  const fs = await slicerOf(`(module (global $k i32 (i32.const 7))
    (func (param i32) (result i32) (local i32)
    (i32.add
      (select (i32.div_u (local.get 0) (i32.const 4)) (global.get $k) (local.get 0))
      (i32.rem_s (local.get 1) (i32.const -3)))))`);
  const s = sliceOf(fs, "i32.add");
  assert.deepEqual(s.stops.map((x) => x.local), [0], "local 1 is read before any write: its zero is a constant");
  assert.ok(s.nodes.some((n) => n.kind === "zero"));
});

test("refusal: a trapping op (div by a variable, by zero, div_s by -1; non-saturating truncation)", async () => {
  for (const [expr, op] of [
    ["(i32.div_u (local.get 0) (local.get 1))", "i32.div_u"],
    ["(i32.div_u (local.get 0) (i32.const 0))", "i32.div_u"],
    ["(i32.div_s (local.get 0) (i32.const -1))", "i32.div_s"],
    ["(i32.trunc_f32_s (f32.convert_i32_s (local.get 0)))", "i32.trunc_f32_s"],
  ] as const) {
    const fs = await slicerOf(`(module (func (param i32 i32) (result i32) (i32.add ${expr} (i32.const 1))))`);
    const r = refusalOf(fs, "i32.add");
    assert.equal(r.reason, "impure", expr);
    assert.equal(OPS[fs.body.ops[r.instr]!]!.name, op);
  }
  // the same division with a safe constant is sliced
  const ok = await slicerOf(`(module (func (param i32) (result i32) (i32.add (i32.div_s (local.get 0) (i32.const 5)) (i32.const 1))))`);
  sliceOf(ok, "i32.add");
});

test("refusal: a load, a mutable global, a call, memory.size", async () => {
  for (const [expr, op] of [
    ["(i32.load (local.get 0))", "i32.load"],
    ["(global.get $g)", "global.get"],
    ["(call $f (local.get 0))", "call"],
    ["(memory.size)", "memory.size"],
  ] as const) {
    const fs = await slicerOf(`(module (memory 1) (global $g (mut i32) (i32.const 0))
      (func (param i32) (result i32) (i32.add (i32.mul ${expr} (i32.const 3)) (local.get 0)))
      (func $f (param i32) (result i32) (local.get 0)))`);
    const r = refusalOf(fs, "i32.add");
    assert.equal(r.reason, "impure", expr);
    assert.equal(OPS[fs.body.ops[r.instr]!]!.name, op);
  }
});

test("refusal: a value a construct leaves (block result) is stage b", async () => {
  const fs = await slicerOf(`(module (func (param i32) (result i32)
    (i32.add (block (result i32) (local.get 0)) (i32.const 1))))`);
  assert.equal(refusalOf(fs, "i32.add").reason, "construct");
});

test("a slice does not leave its loop: a value from outside is a stop value, a μ of the loop too", async () => {
  const fs = await slicerOf(`(module (func (param i32 i32) (result i32) (local i32 i32)
    (local.set 2 (i32.mul (local.get 0) (i32.const 5)))
    (loop $l
      (local.set 3 (i32.add (i32.xor (local.get 2) (local.get 3)) (i32.const 1)))
      (local.set 1 (i32.sub (local.get 1) (i32.const 1)))
      (br_if $l (local.get 1)))
    (local.get 3)))`);
  const s = sliceOf(fs, "i32.add");
  assert.equal(s.depth, 1);
  const kinds = new Map(s.stops.map((x) => [x.local, x.kind]));
  assert.equal(kinds.get(2), STOP_OUTER, "local 2 is set outside the loop: the mul stays out of the slice");
  assert.equal(kinds.get(3), STOP_MU, "local 3 at the header: the loop's μ");
  assert.ok(!names(fs, s.instrs).includes("i32.mul"));
});

test("a refused criterion's path is not replayed for another, except at its own loop depth", async () => {
  // the add after loop $b1 (depth 1) reaches the load through the xor in $b1 and is refused; the mul in $b2
  // (depth 2) reaches the same xor, but at depth 2 the xor's operand is a stop value (set at depth 1): a slice
  const fs = await slicerOf(`(module (memory 1) (func (param i32) (result i32) (local i32 i32 i32)
    (loop $a
      (local.set 1 (i32.load (local.get 0)))
      (loop $b1
        (local.set 2 (i32.xor (local.get 1) (i32.const 5)))
        (br_if $b1 (local.get 2)))
      (local.set 3 (i32.add (local.get 2) (i32.const 1)))
      (loop $b2
        (local.set 3 (i32.mul (local.get 2) (i32.const 3)))
        (br_if $b2 (local.get 3)))
      (br_if $a (local.get 3)))
    (local.get 3)))`);
  assert.equal(refusalOf(fs, "i32.add").reason, "impure");
  assert.equal(refusalOf(fs, "i32.add").reason, "impure", "asked again: the same answer, from the memo");
  const s = sliceOf(fs, "i32.mul");
  assert.equal(s.depth, 2);
  assert.deepEqual(names(fs, s.instrs).filter((n) => n.startsWith("i32.") && n !== "i32.const"), ["i32.xor", "i32.mul"]);
  assert.ok(s.stops.some((x) => x.local === 1 && x.kind === STOP_OUTER));
  // and in the pass's order (the xor, the add, then the mul) the same
  const found = findSlices(fs.m);
  assert.ok(found.occurrences.some((o) => o.slice.criterion === nth(fs, "i32.mul")), "the mul's slice is found after the add was refused");
});

test("refusal: a stop value whose local is written between the slice's read and the criterion", async () => {
  const fs = await slicerOf(`(module (func (param i32) (result i32) (local i32)
    (local.set 1 (i32.mul (local.get 0) (i32.const 3)))
    (local.set 0 (i32.const 9))
    (i32.add (local.get 1) (i32.const 1))))`);
  assert.equal(refusalOf(fs, "i32.add").reason, "stop-moved");
  // an overwrite on one arm of an if is on a path too
  const fs2 = await slicerOf(`(module (func (param i32 i32) (result i32) (local i32)
    (local.set 2 (i32.mul (local.get 0) (i32.const 3)))
    (if (local.get 1) (then (local.set 0 (i32.const 9))))
    (i32.add (local.get 2) (i32.const 1))))`);
  assert.equal(refusalOf(fs2, "i32.add").reason, "stop-moved");
  // ... but a write before the read is not
  const fs3 = await slicerOf(`(module (func (param i32 i32) (result i32) (local i32)
    (if (local.get 1) (then (local.set 1 (i32.const 9))))
    (local.set 2 (i32.mul (local.get 0) (i32.const 3)))
    (i32.add (local.get 2) (local.get 1))))`);
  const s = sliceOf(fs3, "i32.add");
  assert.ok(s.stops.some((x) => x.local === 1 && x.kind !== STOP_PARAM), "local 1 merges two values at the if's end: a φ stop");
});

test("what dies with a slice: values used only inside it; a tee read elsewhere stays as a set", async () => {
  const fs = await slicerOf(`(module (func (param i32) (result i32) (local i32 i32)
    (local.set 1 (i32.mul (local.get 0) (i32.const 3)))
    (local.set 2 (i32.add (local.tee 1 (i32.shl (local.get 1) (i32.const 1))) (i32.const 1)))
    (i32.add (local.get 2) (local.get 1))))`);
  // criterion: the second add reads local 2 (defined by the first add) and local 1 (the tee)
  const s = sliceOf(fs, "i32.add", 1);
  const r = removal(fs, s)!;
  assert.deepEqual(r.dead, s.instrs, "every value in it is used only inside it");
  // the slice of the first add: the tee's value is read again by the second add, outside
  const s0 = sliceOf(fs, "i32.add", 0);
  const r0 = removal(fs, s0)!;
  assert.deepEqual(names(fs, r0.teeToSet), ["local.tee"]);
  assert.ok(!r0.dead.includes(nth(fs, "local.tee")));
  assert.ok(!r0.dead.includes(nth(fs, "i32.shl")), "the tee's operand stays with it");
  assert.ok(r0.dead.includes(nth(fs, "i32.add", 0)));
});

test("canonical form: equal computations in different shapes are one class; another constant is another", async () => {
  const m = await moduleOf(`(module
    (func (param i32) (result i32) (local i32)
      (local.set 1 (i32.xor (local.get 0) (i32.const 255)))
      (i32.add (i32.mul (local.get 1) (local.get 1)) (i32.const 7)))
    (func (param i64 i32) (result i32) (local i32 i32)
      (i32.add (i32.mul (local.tee 3 (i32.xor (local.get 1) (i32.const 255))) (local.get 3)) (i32.const 7)))
    (func (param i32) (result i32) (local i32)
      (i32.add (i32.mul (local.tee 1 (i32.xor (local.get 0) (i32.const 254))) (local.get 1)) (i32.const 7))))`);
  const keys: string[] = [];
  for (let f = 0; f < 3; f++) {
    const fs = new FunctionSlicer(m, f);
    const s = sliceOf(fs, "i32.add");
    keys.push(canonicalSlice(fs.body, s).key);
  }
  assert.equal(keys[0], keys[1]);
  assert.notEqual(keys[0], keys[2]);
  const c = canonicalSlice(new FunctionSlicer(m, 0).body, sliceOf(new FunctionSlicer(m, 0), "i32.add"));
  assert.deepEqual(c.locals.length, 1, "the xor is used twice: kept in a local");
  // x = f(x): the parameter the slice starts from is gone at the criterion
  const over = await slicerOf(`(module (func (param i32) (result i32)
    (i32.add (i32.mul (local.tee 0 (i32.xor (local.get 0) (i32.const 255))) (local.get 0)) (i32.const 7))))`);
  assert.equal(refusalOf(over, "i32.add").reason, "stop-moved");
});

test("cost: a slice that occurs once does not pay; many copies of a large one do; the paper's preset counts", async () => {
  const fn = (k: number) => `(func (param i32) (result i32)
      (i32.add (i32.mul (i32.xor (i32.shr_u (local.get 0) (i32.const 3)) (i32.const 1234567)) (i32.const 99991)) (i32.const ${k})))`;
  const one = await moduleOf(`(module ${fn(1)})`);
  const found1 = findSlices(one);
  assert.equal(chooseClasses(one, classesOf(found1.occurrences)).length, 0);
  const many = await moduleOf(`(module ${Array.from({ length: 12 }, () => fn(1)).join("\n")})`);
  const found = findSlices(many);
  const chosen = chooseClasses(many, classesOf(found.occurrences));
  assert.equal(chosen.length, 1);
  assert.equal(chosen[0]!.occs.length, 12);
  assert.ok(chosen[0]!.benefit > 0);
  // nested criteria (shr, xor, mul) overlap the add's slice: only the best class is taken
  const preset = chooseClasses(many, classesOf(found.occurrences), PAPER_PRESET);
  assert.equal(preset.length, 1, "I = 4 for the add only (shr, xor, mul, add), P = 1, C = 12");
  assert.equal(preset[0]!.cls.canon.params.length, 1);
});
