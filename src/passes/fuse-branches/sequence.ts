// The aligned columns of two arms as one sequence of items: matched columns
// give their fused items, runs of unmatched pieces go under an `if` on the
// saved condition (an if/else when both arms have a run at the same gap).
// Used for the arms of the fused if (emit.ts) and for the contents of two
// melded regions (CFM-CS, align.ts), each with its own result types.

import { idOf } from "../../binary/opcodes/index.js";
import { BLOCK_EMPTY } from "../../ir/body.js";
import type { Arm } from "./arms.js";
import type { Column, Item } from "./align.js";

const IF = idOf("if"), ELSE = idOf("else"), END = idOf("end"), I32_EQZ = idOf("i32.eqz");

/** The two arms and the results they leave (value types, and the block-type word of their construct). */
export interface SequenceInput {
  A: Arm;
  B: Arm;
  cols: Column[];
  results: readonly number[];
  blockType: number;
}

export interface Sequence {
  items: Item[];
  selects: number;
  guards: number;
  /** Region pairs melded (CFM-CS), and regions replicated around straight-line code, nested ones included. */
  melds: number;
  replicas: number;
  /** Calls of differing callees made one call_indirect. */
  indirect: number;
}

/** The sequence, or null where a run of unmatched pieces cannot be guarded (see guardType). */
export function sequenceOf(x: SequenceInput): Sequence | null {
  let guards = 0, selects = 0, melds = 0, replicas = 0, indirect = 0;
  const items: Item[] = [];
  let k = 0;
  while (k < x.cols.length) {
    const col = x.cols[k]!;
    if (col.items) {
      items.push(...col.items);
      selects += col.selects;
      guards += col.guards;
      melds += col.melds;
      replicas += col.replicas;
      indirect += col.indirect;
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
    items.push({ k: "cond" });
    if (runA.length === 0) items.push({ k: "op", op: I32_EQZ, words: [] });
    items.push({ k: "op", op: IF, words: [bt] });
    const copyRun = (arm: Arm, side: 0 | 1, run: number[]) => {
      for (const p of run) {
        const pc = arm.pieces[p]!;
        items.push({ k: "copy", side, from: arm.nodes[pc.first]!.from, to: arm.nodes[pc.last]!.to, guarded: true });
      }
    };
    if (runA.length > 0) copyRun(x.A, 0, runA);
    if (runA.length > 0 && runB.length > 0) items.push({ k: "op", op: ELSE, words: [] });
    if (runB.length > 0) copyRun(x.B, 1, runB);
    items.push({ k: "op", op: END, words: [] });
  }
  return { items, selects, guards, melds, replicas, indirect };
}

/**
 * The block type of the guard over runs a (then) and b (else) of unmatched
 * pieces: both must leave the same types (a run that never falls through
 * leaves any); a one-armed guard must leave none. More than one value needs
 * the construct's own multi-value type (no new type, no feature the input lacks).
 */
function guardType(x: SequenceInput, runA: number[], runB: number[]): number | null {
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
