// Stage b of slices on hand-written functions: a slice goes through a γ one
// branch decides (if/else, if without else, br_if out of a block) and
// through the value of an if with a result; its function re-emits a γ as
// `select` when both sides are small, else as an `if` with one result; what
// dies in the parent (the arms' definitions, a whole if nest). Refusals and
// fall-backs: an impure or trapping side or predicate, a predicate's local
// overwritten, a br_table merge, a reference-typed γ (the slice stops at the
// γ instead); an if nest with something else in it, a multi-value if, an if
// whose arm's value is read elsewhere (no slice). Stage a stops at every γ.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import type { Module } from "../src/ir/module.js";
import { FunctionSlicer, STAGE_A, STOP_GAMMA, type Slice } from "../src/passes/slices/identify.js";
import { canonicalSlice } from "../src/passes/slices/canon.js";
import { nth, refusalOf, sliceOf } from "./slicer-probe.js";
import { removal } from "../src/passes/slices/cost.js";
import { findSlices } from "../src/passes/slices/find.js";

async function slicerOf(wat: string, stageA = false): Promise<FunctionSlicer> {
  const m: Module = readModule(await parse(wat));
  decodeAllBodies(m);
  return new FunctionSlicer(m, 0, undefined, undefined, stageA ? STAGE_A : undefined);
}

const names = (ops: ArrayLike<number>, is?: readonly number[]): string[] => (is ?? Array.from(ops, (_, i) => i)).map((i) => OPS[ops[i]!]!.name);
const bodyNames = (s: Slice, fs: FunctionSlicer): string[] => names(canonicalSlice(fs.body, s).body.ops);

/** x = p ? a * 3 : a + 5 (through an if/else on local 2), then the criterion xor. */
const IF_ELSE = (arm = (e: string) => e) => `(module (func (param i32 i32) (result i32) (local i32)
    (if (local.get 0)
      (then (local.set 2 ${arm("(i32.mul (local.get 1) (i32.const 3))")}))
      (else (local.set 2 ${arm("(i32.add (local.get 1) (i32.const 5))")})))
    (i32.xor (local.get 2) (i32.const 7))))`;

test("stage b: a γ of an if/else with small sides becomes a select; the arms' sets die, the if stays", async () => {
  const fs = await slicerOf(IF_ELSE());
  const s = sliceOf(fs, "i32.xor");
  assert.equal(s.phis.length, 1);
  assert.deepEqual(s.stops.map((x) => x.local).sort(), [0, 1], "the predicate's local and the sides' input");
  const body = bodyNames(s, fs);
  assert.ok(body.includes("select") && !body.includes("if"), body.join(" "));
  assert.equal(s.size, 4, "mul, add, the γ, xor");
  const r = removal(fs, s)!;
  assert.deepEqual(names(fs.body.ops, r.dead), ["local.get", "i32.const", "i32.mul", "local.set", "local.get", "i32.const", "i32.add", "local.set", "local.get", "i32.const", "i32.xor"]);
  assert.ok(!r.dead.includes(nth(fs, "if")) && !r.dead.includes(nth(fs, "local.get", 0)), "the if and its predicate stay");
  // stage a stops at the γ
  const a = sliceOf(await slicerOf(IF_ELSE(), true), "i32.xor");
  assert.deepEqual(a.stops.map((x) => x.kind), [STOP_GAMMA]);
});

test("stage b: a γ with a large side becomes an if with one result; a value both sides use is computed before it", async () => {
  const big = (e: string) => `(i32.add (i32.rotl (i32.mul (i32.xor ${e} (local.get 3)) (i32.const 77)) (i32.const 5)) (i32.const 9))`;
  const fs = await slicerOf(`(module (func (param i32 i32) (result i32) (local i32 i32)
    (local.set 3 (i32.shl (local.get 1) (i32.const 2)))
    (if (local.get 0)
      (then (local.set 2 ${big("(i32.mul (local.get 1) (i32.const 3))")}))
      (else (local.set 2 ${big("(i32.add (local.get 1) (i32.const 5))")})))
    (i32.xor (local.get 2) (i32.const 7))))`);
  const s = sliceOf(fs, "i32.xor", 2);
  const c = canonicalSlice(fs.body, s);
  const body = names(c.body.ops);
  assert.ok(body.includes("if") && body.includes("else") && !body.includes("select"), body.join(" "));
  // the shl both sides need is set before the if; inside, the arms read it
  assert.ok(body.indexOf("i32.shl") < body.indexOf("if") && body[body.indexOf("i32.shl") + 1] === "local.set", body.join(" "));
  assert.deepEqual(c.params.length, 2);
  // with a larger select threshold the same slice is a select
  assert.ok(names(canonicalSlice(fs.body, s, 20).body.ops).includes("select"));
});

test("stage b: an if without else and a br_if out of a block: the value from before arrives on the untaken side", async () => {
  for (const wat of [
    `(module (func (param i32 i32) (result i32) (local i32)
      (local.set 2 (i32.shl (local.get 1) (i32.const 3)))
      (if (local.get 0) (then (local.set 2 (i32.sub (local.get 2) (i32.const 1)))))
      (i32.xor (local.get 2) (i32.const 7))))`,
    `(module (func (param i32 i32) (result i32) (local i32)
      (local.set 2 (i32.shl (local.get 1) (i32.const 3)))
      (block (br_if 0 (local.get 0)) (local.set 2 (i32.sub (local.get 2) (i32.const 1))))
      (i32.xor (local.get 2) (i32.const 7))))`,
  ]) {
    const fs = await slicerOf(wat);
    const s = sliceOf(fs, "i32.xor");
    assert.equal(s.phis.length, 1);
    assert.ok(names(fs.body.ops, s.instrs).includes("i32.shl") && names(fs.body.ops, s.instrs).includes("i32.sub"));
  }
});

test("stage b: the value of an if with a result; the whole nest dies with the slice", async () => {
  const fs = await slicerOf(`(module (func (param i32 i32) (result i32)
    (i32.mul
      (if (result i32) (i32.eqz (local.get 0)) (then (i32.add (local.get 1) (i32.const 1))) (else (i32.const 9)))
      (i32.const 3))))`);
  const s = sliceOf(fs, "i32.mul");
  assert.deepEqual(s.constructs, [nth(fs, "if")]);
  const r = removal(fs, s)!;
  assert.deepEqual(r.dead, s.instrs, "everything, the if/else/end and the predicate included");
  assert.equal(fs.body.count - 1, r.dead.length, "all but the function's end");
});

test("fall-back to a γ stop: an impure or trapping side, an impure predicate, a predicate's local overwritten, a br_table merge, a reference γ", async () => {
  const gammaStop = async (wat: string): Promise<void> => {
    const fs = await slicerOf(wat);
    const s = sliceOf(fs, "i32.xor");
    assert.equal(s.phis.length, 0, wat);
    assert.ok(s.stops.some((x) => x.kind === STOP_GAMMA), wat);
  };
  await gammaStop(IF_ELSE((e) => `(i32.load ${e})`).replace("(module", "(module (memory 1)"));
  await gammaStop(IF_ELSE((e) => `(i32.div_u ${e} (local.get 0))`));
  await gammaStop(IF_ELSE().replace("(if (local.get 0)", "(if (i32.load (local.get 0))").replace("(module", "(module (memory 1)"));
  await gammaStop(`(module (func (param i32 i32) (result i32)
    (if (local.get 0) (then (local.set 0 (i32.const 9))) (else (local.set 0 (local.get 1))))
    (i32.xor (local.get 0) (i32.const 7))))`);
  await gammaStop(`(module (func (param i32 i32) (result i32)
    (block (block (block (br_table 0 1 2 (local.get 0))) (local.set 1 (i32.const 5)) (br 1)) (local.set 1 (i32.const 6)))
    (i32.xor (local.get 1) (i32.const 7))))`);
  // a γ of funcrefs: the slice of ref.is_null stops at it
  const fs = await slicerOf(`(module (table 1 funcref) (func (param i32 funcref) (result i32) (local funcref)
    (if (local.get 0) (then (local.set 2 (local.get 1))) (else (local.set 2 (ref.null func))))
    (i32.xor (ref.is_null (local.get 2)) (i32.const 7))))`);
  const s = sliceOf(fs, "i32.xor");
  assert.equal(s.phis.length, 0);
  assert.ok(s.stops.some((x) => x.kind === STOP_GAMMA));
});

test("refusal: an if nest with other code in it, an impure arm, a multi-value if, an arm's value read elsewhere", async () => {
  const other = await slicerOf(`(module (func (param i32 i32) (result i32)
    (i32.mul (if (result i32) (local.get 0) (then (drop (local.get 1)) (i32.const 1)) (else (i32.const 9))) (i32.const 3))))`);
  assert.equal(refusalOf(other, "i32.mul").reason, "construct");
  const impure = await slicerOf(`(module (memory 1) (func (param i32 i32) (result i32)
    (i32.mul (if (result i32) (local.get 0) (then (i32.load (local.get 1))) (else (i32.const 9))) (i32.const 3))))`);
  assert.equal(refusalOf(impure, "i32.mul").reason, "impure");
  const multi = await slicerOf(`(module (func (param i32 i32) (result i32)
    (i32.mul (if (result i32 i32) (local.get 0) (then (i32.const 1) (i32.const 2)) (else (i32.const 9) (i32.const 8))) (i32.const 3))
    (i32.add)))`);
  assert.equal(refusalOf(multi, "i32.mul").reason, "construct");
  // the tee in the arm is read after the if: the nest cannot go, so no slice
  const m = readModule(await parse(`(module (func (param i32 i32) (result i32) (local i32)
    (i32.mul (if (result i32) (local.get 0) (then (local.tee 2 (i32.add (local.get 1) (i32.const 1)))) (else (i32.const 9))) (i32.const 3))
    (local.get 2)
    (i32.add)))`));
  decodeAllBodies(m);
  const fs = new FunctionSlicer(m, 0);
  const s = sliceOf(fs, "i32.mul");
  assert.equal(removal(fs, s), null);
  const found = findSlices(m);
  assert.ok(found.refused.construct >= 1 && !found.occurrences.some((o) => o.slice.criterion === s.criterion));
});
