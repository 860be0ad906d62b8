// Finds the structured regions of one function body that could become a
// function of their own: whole block/loop/if constructs and the two arms of
// an if. One linear scan with a stack of open constructs; what a region
// contains (branch targets, returns, hot code) flows up when a construct ends.

import { Imm, OPS, idOf } from "../../binary/opcodes/index.js";
import type { Body } from "../../ir/body.js";

export const BLOCK = idOf("block");
export const LOOP = idOf("loop");
export const IF = idOf("if");
export const ELSE = idOf("else");
export const END = idOf("end");
const RETURN = idOf("return");
const BR_TABLE = idOf("br_table");
const RETURN_CALLS = new Set(["return_call", "return_call_indirect", "return_call_ref"].map(idOf));
/** Instructions after which the end of the enclosing code is never reached by falling through. */
const EXITS = new Set([RETURN, idOf("unreachable"), idOf("throw"), idOf("throw_ref"), ...RETURN_CALLS]);
/** Exception handlers see locals written before a throw: functions with them are left alone. */
const HANDLER_OPS = new Set(OPS.filter((d) => d.imms.includes(Imm.Catches) || d.feature === "exceptions-legacy").map((d) => d.id!));

/** Per op: word offset of its single Label immediate, or -1. */
const LABEL_WORD: Int32Array = (() => {
  const out = new Int32Array(OPS.length).fill(-1);
  OPS.forEach((d, id) => {
    let off = 0;
    for (const k of d.imms) {
      if (k === Imm.Label) {
        out[id] = off;
        break;
      }
      // every immediate before a label is one word (CastFlags)
      off += 1;
    }
  });
  return out;
})();

export type RegionKind = "construct" | "arm";

export interface Region {
  kind: RegionKind;
  /** Instructions [start, end) of the body: a whole construct, or an arm without its if/else/end. */
  start: number;
  end: number;
  /** Block type word of the construct, or of the if that owns the arm. */
  blockType: number;
  /** The end of the region is never reached: every way out leaves the function (return, trap, throw). */
  tail: boolean;
  /** Contains return or a return_call (so it may only be folded as a tail). */
  returns: boolean;
  /** Some enclosing construct of the caller is a loop (the region may run again with its own writes). */
  inLoop: boolean;
}

interface Frame {
  start: number;
  op: number;
  elseAt: number;
  /** Lowest start of a construct a branch inside targets (-1: the function label). */
  min: number;
  armMin: number;
  returns: boolean;
  armReturns: boolean;
  hot: boolean;
  armHot: boolean;
  /** A branch targets this construct's label (then-arm / else-arm for an if). */
  targeted: boolean;
  thenTargeted: boolean;
  thenMin: number;
  thenReturns: boolean;
  thenHot: boolean;
  loops: number;
}

/** True if the function uses exception handlers (it is then skipped). */
export function hasHandlers(body: Body): boolean {
  for (let i = 0; i < body.count; i++) if (HANDLER_OPS.has(body.ops[i]!)) return true;
  return false;
}

/**
 * The self-contained regions of `body`: no branch leaves them, and one that
 * returns never falls through. `isHot(i)` marks instructions to keep out of
 * any region. Regions shorter than `minCount` instructions are not listed.
 */
export function findRegions(body: Body, minCount: number, isHot: ((i: number) => boolean) | null): Region[] {
  const { ops, imm, immStart } = body;
  const out: Region[] = [];
  const stack: Frame[] = [];
  let loops = 0;
  const branchTo = (depth: number): void => {
    const t = stack.length - 1 - depth;
    const target = t < 0 ? -1 : stack[t]!.start;
    if (t >= 0) {
      const f = stack[t]!;
      if (f.op === LOOP) {
        // a branch to a loop goes back to its start: the end stays unreached
      } else if (f.op === IF && f.elseAt < 0) f.thenTargeted = true;
      else f.targeted = true;
    }
    const top = stack[stack.length - 1];
    if (top) {
      if (target < top.min) top.min = target;
      if (target < top.armMin) top.armMin = target;
    }
  };
  const n = body.count - 1; // the function's final end is not part of any region
  for (let i = 0; i < n; i++) {
    const op = ops[i]!;
    const top = stack[stack.length - 1];
    if (top && isHot && isHot(i)) top.hot = top.armHot = true;
    if (op === BLOCK || op === LOOP || op === IF) {
      stack.push({
        start: i, op, elseAt: -1, min: i, armMin: i, returns: false, armReturns: false, hot: false, armHot: false,
        targeted: false, thenTargeted: false, thenMin: i, thenReturns: false, thenHot: false, loops,
      });
      if (op === LOOP) loops++;
      continue;
    }
    if (!top) continue; // code at function level belongs to no region
    if (op === ELSE) {
      top.elseAt = i;
      top.thenMin = top.armMin;
      top.thenReturns = top.armReturns;
      top.thenHot = top.armHot;
      top.armMin = top.start;
      top.armReturns = false;
      top.armHot = false;
      continue;
    }
    if (op === END) {
      stack.pop();
      if (top.op === LOOP) loops--;
      closeFrame(body, top, i, minCount, out);
      const parent = stack[stack.length - 1];
      if (parent) {
        if (top.min < parent.min) parent.min = top.min;
        if (top.min < parent.armMin) parent.armMin = top.min;
        if (top.returns) parent.returns = parent.armReturns = true;
        if (top.hot) parent.hot = parent.armHot = true;
      }
      continue;
    }
    if (op === RETURN || RETURN_CALLS.has(op)) top.returns = top.armReturns = true;
    if (op === BR_TABLE) {
      const s = immStart[i]!;
      const k = imm[s]!;
      for (let j = 0; j <= k; j++) branchTo(imm[s + 1 + j]!);
    } else if (LABEL_WORD[op]! >= 0) branchTo(imm[immStart[i]! + LABEL_WORD[op]!]!);
  }
  return out;
}

function closeFrame(body: Body, f: Frame, endAt: number, minCount: number, out: Region[]): void {
  const { ops, imm, immStart } = body;
  const blockType = imm[immStart[f.start]!]!;
  const inLoop = f.loops > 0;
  const exitsAt = (i: number) => i > f.start && EXITS.has(ops[i]!);
  const push = (kind: RegionKind, start: number, end: number, tail: boolean, returns: boolean) => {
    if (end - start < minCount) return;
    if (returns && !tail) return;
    out.push({ kind, start, end, blockType, tail, returns, inLoop });
  };
  // the whole construct
  if (f.min >= f.start && !f.hot) {
    let tail: boolean;
    if (f.op === IF) tail = f.elseAt > 0 && !f.targeted && !f.thenTargeted && exitsAt(f.elseAt - 1) && exitsAt(endAt - 1);
    else tail = !f.targeted && exitsAt(endAt - 1);
    push("construct", f.start, endAt + 1, tail, f.returns);
  }
  if (f.op !== IF) return;
  // the arms: a branch to the if's own label stays inside the arm's copy
  const thenEnd = f.elseAt >= 0 ? f.elseAt : endAt;
  const thenMin = f.elseAt >= 0 ? f.thenMin : f.armMin;
  const thenReturns = f.elseAt >= 0 ? f.thenReturns : f.armReturns;
  const thenHot = f.elseAt >= 0 ? f.thenHot : f.armHot;
  if (thenMin >= f.start && !thenHot) {
    push("arm", f.start + 1, thenEnd, !f.thenTargeted && exitsAt(thenEnd - 1), thenReturns);
  }
  if (f.elseAt >= 0 && f.armMin >= f.start && !f.armHot) {
    push("arm", f.elseAt + 1, endAt, !f.targeted && exitsAt(endAt - 1), f.armReturns);
  }
}
