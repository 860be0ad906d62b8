// The fused code of one if: aligned columns become one sequence; runs of
// unmatched pieces go under an `if` on the saved condition (an if/else when
// both arms have a run at the same gap); the condition lives in a local, or
// stays on the stack when its only use comes first. Branch depths are fixed
// for the if that disappears (or the block that replaces it when a branch
// names it) and for the guards that add a level.

import { idOf } from "../../binary/opcodes/index.js";
import { BLOCK_EMPTY, BodyBuilder, originOf, type Body } from "../../ir/body.js";
import { LABEL_WORDS } from "../../ir/imm-layout.js";
import type { ControlTree } from "../../analysis/control-tree.js";
import type { Arm } from "./arms.js";
import { SELECT, type Column, type Item } from "./align.js";

const IF = idOf("if"), ELSE = idOf("else"), END = idOf("end"), BLOCK = idOf("block");
const LOCAL_GET = idOf("local.get"), LOCAL_SET = idOf("local.set"), LOCAL_TEE = idOf("local.tee");
const I32_EQZ = idOf("i32.eqz"), DROP = idOf("drop"), BR_TABLE = idOf("br_table");

/** Where the condition is kept. */
export type CondPlace =
  /** In local x, which the instruction before the if reads and no arm writes: that local.get goes. */
  | { k: "reuse"; local: number }
  /** In a new local of the function. */
  | { k: "fresh"; local: number };

export interface Fused {
  /** Instructions [from, to) of the body that the code replaces. */
  from: number;
  to: number;
  code: Body;
  /** The fresh local is used. */
  usesFresh: boolean;
  selects: number;
  guards: number;
}

export interface EmitInput {
  body: Body;
  ct: ControlTree;
  /** The if construct. */
  c: number;
  A: Arm;
  B: Arm;
  cols: Column[];
  /** Results of the if as value types, and its block-type word. */
  results: readonly number[];
  blockType: number;
  cond: CondPlace;
}

/** Builds the fused code, or null where a run of unmatched pieces cannot be guarded (see guardType). */
export function emitFused(x: EmitInput): Fused | null {
  let guards = 0;
  let selects = 0;
  // the fused code in order: aligned items, and the guards' own instructions
  const seq: (Item | { k: "op"; op: number; words: number[] })[] = [];
  let k = 0;
  while (k < x.cols.length) {
    const col = x.cols[k]!;
    if (col.items) {
      seq.push(...col.items);
      selects += col.selects;
      k++;
      continue;
    }
    const runA: number[] = [], runB: number[] = [];
    while (k < x.cols.length && !x.cols[k]!.items) {
      const g = x.cols[k++]!;
      if (g.a >= 0) runA.push(g.a);
      if (g.b >= 0) runB.push(g.b);
    }
    const bt = guardType(x, runA, runB);
    if (bt === null) return null;
    guards++;
    seq.push({ k: "cond" });
    if (runA.length === 0) seq.push({ k: "op", op: I32_EQZ, words: [] });
    seq.push({ k: "op", op: IF, words: [bt] });
    const copyRun = (arm: Arm, side: 0 | 1, run: number[]) => {
      for (const p of run) {
        const pc = arm.pieces[p]!;
        seq.push({ k: "copy", side, from: arm.nodes[pc.first]!.from, to: arm.nodes[pc.last]!.to, guarded: true });
      }
    };
    if (runA.length > 0) copyRun(x.A, 0, runA);
    if (runA.length > 0 && runB.length > 0) seq.push({ k: "op", op: ELSE, words: [] });
    if (runB.length > 0) copyRun(x.B, 1, runB);
    seq.push({ k: "op", op: END, words: [] });
  }

  const wrap = x.A.branchesToIf || x.B.branchesToIf;
  const uses = seq.filter((s) => s.k === "cond").length;
  const s = x.ct.start[x.c]!;
  const b = new BodyBuilder(64);
  let from = s;
  let condAt = -1; // index in seq of a cond use taken straight from the stack
  let usesFresh = false;
  if (x.cond.k === "reuse") {
    from = s - 1;
  } else if (uses === 0) {
    b.begin(DROP);
  } else if (!wrap && seq[0]!.k === "cond") {
    condAt = 0;
    if (uses > 1) {
      b.begin(LOCAL_TEE);
      b.word(x.cond.local);
      usesFresh = true;
    }
  } else {
    b.begin(LOCAL_SET);
    b.word(x.cond.local);
    usesFresh = true;
  }
  if (wrap) {
    b.begin(BLOCK);
    b.word(x.blockType);
  }
  // without the if, labels past it count one less; a guard counts one more
  const base = wrap ? 0 : -1;
  for (let q = 0; q < seq.length; q++) {
    const it = seq[q]!;
    if (it.k === "cond") {
      if (q === condAt) continue;
      b.begin(LOCAL_GET);
      b.word(x.cond.local);
    } else if (it.k === "select") {
      b.begin(SELECT);
    } else if (it.k === "op") {
      b.begin(it.op);
      for (const w of it.words) b.word(w);
    } else {
      copyShifted(b, x.body, x.ct, x.c, it.from, it.to, base + (it.guarded ? 1 : 0));
    }
  }
  if (wrap) b.begin(END);
  return { from, to: x.ct.end[x.c]! + 1, code: b.finish(), usesFresh, selects, guards };
}

/**
 * The block type of the guard over runs a (then) and b (else) of unmatched
 * pieces: both must leave the same types (a run that never falls through
 * leaves any); a one-armed guard must leave none. More than one value needs
 * the if's own multi-value type (no new type, no feature the input lacks).
 */
function guardType(x: EmitInput, runA: number[], runB: number[]): number | null {
  const leaves = (arm: Arm, run: number[]): number[] | null => {
    const out: number[] = [];
    for (const p of run) {
      const l = arm.pieces[p]!.leaves;
      if (l === null) return null;
      out.push(...l);
    }
    return out;
  };
  const la = leaves(x.A, runA), lb = leaves(x.B, runB);
  let types: number[];
  if (la === null) types = lb ?? [];
  else if (lb === null) types = la;
  else {
    if (la.length !== lb.length || la.some((t, i) => t !== lb[i])) return null;
    types = la;
  }
  if ((runA.length === 0 || runB.length === 0) && types.length > 0) return null;
  if (types.length === 0) return BLOCK_EMPTY;
  if (types.length === 1) return types[0]!;
  const same = types.length === x.results.length && types.every((t, i) => t === x.results[i]);
  return same && x.blockType < 0 ? x.blockType : null;
}

/** Copies [from, to) adding `shift` to every label that names construct c or a construct outside it. */
export function copyShifted(b: BodyBuilder, body: Body, ct: ControlTree, c: number, from: number, to: number, shift: number): void {
  const { ops, imm, immStart } = body;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    b.begin(op, originOf(body, i));
    const w0 = immStart[i]!, w1 = immStart[i + 1]!;
    const words = Array.from(imm.subarray(w0, w1));
    if (shift !== 0) {
      const at = op === BR_TABLE ? Array.from({ length: words[0]! + 1 }, (_, k) => k + 1) : (LABEL_WORDS[op] ?? []);
      for (const off of at) if (ct.target(i, words[off]!) <= c) words[off]! += shift;
    }
    for (const w of words) b.word(w);
  }
}
