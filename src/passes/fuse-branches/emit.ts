// The fused code of one if: aligned columns become one sequence
// (sequence.ts: unmatched runs guarded by the condition); the condition lives
// in a local, or stays on the stack when its only use comes first. Branch
// depths are fixed for the if that disappears (or the block that replaces it
// when a branch names it) and for the guards that add a level.

import { idOf } from "../../binary/opcodes/index.js";
import { BodyBuilder, originOf, type Body } from "../../ir/body.js";
import { LABEL_WORDS } from "../../ir/imm-layout.js";
import type { ControlTree } from "../../analysis/control-tree.js";
import type { Arm } from "./arms.js";
import { SELECT, type Column } from "./align.js";
import { sequenceOf } from "./sequence.js";

const END = idOf("end"), BLOCK = idOf("block");
const LOCAL_GET = idOf("local.get"), LOCAL_SET = idOf("local.set"), LOCAL_TEE = idOf("local.tee");
const DROP = idOf("drop"), BR_TABLE = idOf("br_table");

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
  /** Region pairs melded (CFM-CS), regions replicated around straight-line code. */
  melds: number;
  replicas: number;
  /** Calls of differing callees made one call_indirect. */
  indirect: number;
  /** Slots the code uses that are to be appended: function index -> slot. */
  newSlots: Map<number, number>;
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

/** Builds the fused code, or null where a run of unmatched pieces cannot be guarded (see sequence.ts). */
export function emitFused(x: EmitInput): Fused | null {
  const sq = sequenceOf(x);
  if (!sq) return null;
  const { items: seq, selects, guards, melds, replicas, indirect } = sq;
  const wrap = x.A.branchesToIf || x.B.branchesToIf;
  const uses = seq.filter((s) => s.k === "cond").length;
  const s = x.ct.start[x.c]!;
  const b = new BodyBuilder(64);
  const newSlots = new Map<number, number>();
  for (const it of seq) if (it.k === "op" && it.newSlotOf !== undefined) newSlots.set(it.newSlotOf, it.words[0]!);
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
      copyItem(b, x.body, x.ct, x.c, it.from, it.to, base, it.guarded ? 1 : 0);
    }
  }
  if (wrap) b.begin(END);
  return { from, to: x.ct.end[x.c]! + 1, code: b.finish(), usesFresh, selects, guards, melds, replicas, indirect, newSlots };
}

/**
 * Copies an item's instructions [from, to) of arm code inside if construct c:
 * a label that names c or a construct outside it gets `base` (-1: the if is
 * gone, 0: a block replaces it) plus `guard` (1 under a guard); one that
 * names a melded construct around the copy gets `guard`.
 */
function copyItem(b: BodyBuilder, body: Body, ct: ControlTree, c: number, from: number, to: number, base: number, guard: number): void {
  const { ops, imm, immStart } = body;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    b.begin(op, originOf(body, i));
    const w0 = immStart[i]!, w1 = immStart[i + 1]!;
    const words = Array.from(imm.subarray(w0, w1));
    if (base + guard !== 0 || guard !== 0) {
      const at = op === BR_TABLE ? Array.from({ length: words[0]! + 1 }, (_, k) => k + 1) : (LABEL_WORDS[op] ?? []);
      for (const off of at) {
        const t = ct.target(i, words[off]!);
        if (t <= c) words[off]! += base + guard;
        else if (ct.start[t]! < from) words[off]! += guard;
      }
    }
    for (const w of words) b.word(w);
  }
}

/** Copies [from, to) adding `shift` to every label that names construct c or a construct outside it (copyItem without a guard). */
export function copyShifted(b: BodyBuilder, body: Body, ct: ControlTree, c: number, from: number, to: number, shift: number): void {
  copyItem(b, body, ct, c, from, to, shift, 0);
}
