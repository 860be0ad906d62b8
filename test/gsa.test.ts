// Gated SSA on hand-written functions: γ's predicates (if, br_if, nested
// ifs, a br_table index), the two-way γ one branch decides and which operand
// arrives on which side, μ at loop headers, η's exit predicates. (That the
// deciding branch really picks the operand is checked on runs by
// slices-random.test, whose slices go through γs.)

import { test } from "node:test";
import assert from "node:assert/strict";
import { OPS } from "../src/binary/opcodes/index.js";
import type { Body } from "../src/ir/body.js";
import { firstFunction } from "./first-function.js";
import { GAMMA, gsaOf, MU, type Gsa } from "../src/analysis/gsa.js";
import { DEF, PARAM, PHI } from "../src/analysis/ssa.js";

async function gsaOfWat(wat: string): Promise<{ body: Body; g: Gsa }> {
  const { body, nParams, nLocals } = await firstFunction(wat);
  return { body, g: gsaOf(body, nParams, nLocals) };
}

const names = (body: Body, is: readonly number[]): string[] => is.map((i) => OPS[body.ops[i]!]!.name);

/** The φ value the n-th (from 0) local.get reads. */
function phiRead(body: Body, g: Gsa, n: number): number {
  for (let i = 0; i < body.count; i++) {
    if (OPS[body.ops[i]!]!.name !== "local.get" || n-- > 0) continue;
    const v = g.ssa.readOf(i);
    assert.equal(g.ssa.kind[v], PHI, "expected a φ");
    return v;
  }
  throw new Error("no such local.get");
}

/** The instruction of a φ operand that is a DEF, or "param". */
function operandAt(g: Gsa, v: number, k: number): number | "param" {
  const o = g.ssa.operands[v]![k]!;
  if (g.ssa.kind[o] === PARAM) return "param";
  assert.equal(g.ssa.kind[o], DEF);
  return g.ssa.at[o]!;
}

test("γ of an if/else: its predicate is the if, which decides: then's value when true, else's when false", async () => {
  const { body, g } = await gsaOfWat(`(module (func (param i32 i32) (result i32) (local i32)
    (if (local.get 0) (then (local.set 2 (i32.const 7))) (else (local.set 2 (i32.const 9))))
    (local.get 2)))`);
  const v = phiRead(body, g, 1);
  assert.equal(g.gateKind(v), GAMMA);
  assert.deepEqual(names(body, g.predicates(v)), ["if"]);
  const w = g.twoWay(v)!;
  assert.equal(OPS[body.ops[w.branch]!]!.name, "if");
  const set7 = body.ops.findIndex((_, i) => OPS[body.ops[i]!]!.name === "local.set");
  assert.equal(operandAt(g, v, w.whenTrue), set7);
  assert.equal(operandAt(g, v, w.whenFalse), set7 + 3);
});

test("γ of an if without else and of a br_if out of a block: the value from before arrives on the untaken side", async () => {
  const a = await gsaOfWat(`(module (func (param i32 i32) (result i32)
    (if (local.get 0) (then (local.set 1 (i32.const 7))))
    (local.get 1)))`);
  const v = phiRead(a.body, a.g, 1);
  const w = a.g.twoWay(v)!;
  assert.equal(operandAt(a.g, v, w.whenFalse), "param");
  assert.notEqual(operandAt(a.g, v, w.whenTrue), "param");
  const b = await gsaOfWat(`(module (func (param i32 i32) (result i32)
    (block (br_if 0 (local.get 0)) (local.set 1 (i32.const 7)))
    (local.get 1)))`);
  const u = phiRead(b.body, b.g, 1);
  assert.deepEqual(names(b.body, b.g.predicates(u)), ["br_if"]);
  const x = b.g.twoWay(u)!;
  assert.equal(OPS[b.body.ops[x.branch]!]!.name, "br_if");
  assert.equal(operandAt(b.g, u, x.whenTrue), "param", "taken: the block is left before the set");
  assert.notEqual(operandAt(b.g, u, x.whenFalse), "param");
});

test("nested ifs: the outer merge's predicates hold the inner if too, and its γ is still two-way", async () => {
  const { body, g } = await gsaOfWat(`(module (func (param i32 i32 i32) (result i32)
    (if (local.get 0)
      (then (if (local.get 1) (then (local.set 2 (i32.const 1))) (else (local.set 2 (i32.const 2)))))
      (else (local.set 2 (i32.const 3))))
    (local.get 2)))`);
  const v = phiRead(body, g, 2);
  assert.deepEqual(names(body, g.predicates(v)), ["if", "if"]);
  const w = g.twoWay(v)!;
  assert.equal(w.branch, body.ops.findIndex((_, i) => OPS[body.ops[i]!]!.name === "if"));
  assert.equal(g.ssa.kind[g.ssa.operands[v]![w.whenTrue]!], PHI, "the then side is the inner γ");
});

test("a br_table index is a predicate; a three-way merge is no two-way γ", async () => {
  const { body, g } = await gsaOfWat(`(module (func (param i32 i32) (result i32)
    (block (block (block (br_table 0 1 2 (local.get 0))) (local.set 1 (i32.const 5)) (br 1)) (local.set 1 (i32.const 6)))
    (local.get 1)))`);
  const v = phiRead(body, g, 1);
  assert.ok(names(body, g.predicates(v)).includes("br_table"));
  assert.equal(g.twoWay(v), null);
});

test("μ at a loop header; η: the loop's exit predicates", async () => {
  const { body, g } = await gsaOfWat(`(module (func (param i32) (result i32) (local i32)
    (block (loop
      (br_if 1 (i32.eqz (local.get 0)))
      (local.set 1 (i32.add (local.get 1) (local.get 0)))
      (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
      (br 0)))
    (local.get 1)))`);
  const mu = phiRead(body, g, 0);
  assert.equal(g.gateKind(mu), MU);
  assert.equal(g.twoWay(mu), null);
  const l = g.loops.loopOf[g.ssa.at[mu]!]!;
  assert.ok(l >= 0);
  assert.deepEqual(names(body, g.exitPredicates(l)), ["br_if"], "the br_if leaves; the back edge is no exit");
  assert.equal(g.gateKind(g.ssa.kind.indexOf(PARAM)), -1, "a parameter's value is no φ");
});
