// Finds the structured regions of one function body that could become a
// function of their own: whole block/loop/if constructs and the two arms of
// an if. One linear scan over the body's control tree (analysis/control-tree.ts:
// nesting, label targets, enclosing loops), with a frame per open construct;
// what a region contains (branch targets, returns, hot code) flows up when a
// construct ends.

import { Eff, Imm, OPS, idOf } from "../../binary/opcodes/index.js";
import { OP_EFFECTS } from "../../analysis/effects.js";
import type { Body } from "../../ir/body.js";
import { controlTree, type ControlTree } from "../../analysis/control-tree.js";
import { exceptionLandings } from "../../analysis/cfg.js";

export const BLOCK = idOf("block");
export const LOOP = idOf("loop");
export const IF = idOf("if");
export const ELSE = idOf("else");
export const END = idOf("end");
const BR_TABLE = idOf("br_table");
/**
 * Effect bits of instructions that leave the function (return, return_call*,
 * throw*, unreachable): the end of the enclosing code is never reached by
 * falling through. (rethrow is among them but never in a region: see HANDLER.)
 */
const EXITS = Eff.RETURN | Eff.THROW | Eff.TRAP_UNREACHABLE;

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

/** What the scan does with each op (one table lookup per instruction). */
const PLAIN = 0, OPEN = 1, ELSE_ = 2, END_ = 3, RETURNS = 4, BRANCH_TABLE = 5, BRANCH = 6;
const CLASS = new Uint8Array(OPS.length);
for (let op = 0; op < OPS.length; op++) if (LABEL_WORD[op]! >= 0) CLASS[op] = BRANCH;
CLASS[BLOCK] = CLASS[LOOP] = CLASS[IF] = OPEN;
CLASS[ELSE] = ELSE_;
CLASS[END] = END_;
CLASS[BR_TABLE] = BRANCH_TABLE;
for (let op = 0; op < OPS.length; op++) if (OP_EFFECTS[op]! & Eff.RETURN) CLASS[op] = RETURNS;
// try and try_table open a construct, catch and catch_all start an arm, delegate ends one
CLASS[idOf("try")] = CLASS[idOf("try_table")] = OPEN;
CLASS[idOf("catch")] = CLASS[idOf("catch_all")] = ELSE_;
CLASS[idOf("delegate")] = END_;
/**
 * Per op: 1 for the handler constructs and what names them (try, try_table,
 * catch, catch_all, delegate, rethrow): no region holds one. A region in a
 * try body could write a local a handler reads before it throws (in the new
 * function the write lands in its own local), so regions inside a handler's
 * scope are left out too (findRegions); outside every scope an exception
 * leaves the function, and its locals die with it.
 */
const HANDLER = new Uint8Array(OPS.length);
OPS.forEach((d, op) => {
  if (d.imms.includes(Imm.Catches) || d.feature === "exceptions-legacy") HANDLER[op] = 1;
});

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
  /** Encoded size in bytes, -1 until find.ts measures it. */
  bytes: number;
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

/**
 * The self-contained regions of `body`: no branch leaves them, one that
 * returns never falls through, none holds a handler construct or lies in a
 * handler's scope (see HANDLER). `isHot(i)` marks instructions to keep out
 * of any region. Regions shorter than `minCount` instructions are not listed.
 */
export function findRegions(body: Body, minCount: number, isHot: ((i: number) => boolean) | null): Region[] {
  const { ops, imm, immStart } = body;
  const tree = controlTree(body);
  const { constructOf, depth: depthOf } = tree;
  const out: Region[] = [];
  // the frame of open construct c is stack[depth(c) - 1]; frames are reused, not reallocated
  const stack: Frame[] = [];
  const n = body.count - 1; // the function's final end is not part of any region
  for (let i = 0; i < n; i++) {
    const op = ops[i]!;
    const cls = CLASS[op]!;
    const c = constructOf[i]!;
    // open constructs around i: an opening instruction runs in its parent
    const depth = cls === OPEN ? depthOf[c]! - 1 : depthOf[c]!;
    const top = depth > 0 ? stack[depth - 1]! : null;
    if (top && isHot && isHot(i)) top.hot = top.armHot = true;
    if (cls === PLAIN) continue;
    if (cls === OPEN) {
      let f = stack[depth];
      if (!f) stack.push((f = newFrame()));
      f.start = f.min = f.armMin = f.thenMin = i;
      f.op = op;
      f.elseAt = -1;
      f.returns = f.armReturns = f.thenReturns = false;
      f.hot = f.armHot = f.thenHot = false;
      f.targeted = f.thenTargeted = false;
      f.loops = tree.loopDepth[c]! - (op === LOOP ? 1 : 0);
      if (HANDLER[op] === 1) f.hot = f.armHot = true;
      continue;
    }
    if (!top) continue; // code at function level belongs to no region
    if (HANDLER[op] === 1) top.hot = top.armHot = true;
    switch (cls) {
      case ELSE_:
        top.elseAt = i;
        top.thenMin = top.armMin;
        top.thenReturns = top.armReturns;
        top.thenHot = top.armHot;
        top.armMin = top.start;
        top.armReturns = false;
        top.armHot = HANDLER[op] === 1;
        break;
      case END_: {
        closeFrame(body, top, i, minCount, out);
        const parent = depth > 1 ? stack[depth - 2]! : null;
        if (parent) {
          if (top.min < parent.min) parent.min = top.min;
          if (top.min < parent.armMin) parent.armMin = top.min;
          if (top.returns) parent.returns = parent.armReturns = true;
          if (top.hot) parent.hot = parent.armHot = true;
        }
        break;
      }
      case RETURNS:
        top.returns = top.armReturns = true;
        break;
      case BRANCH_TABLE: {
        const s = immStart[i]!;
        const k = imm[s]!;
        for (let j = 0; j <= k; j++) branchTo(tree, stack, top, tree.target(i, imm[s + 1 + j]!));
        break;
      }
      default:
        branchTo(tree, stack, top, tree.target(i, imm[immStart[i]! + LABEL_WORD[op]!]!));
    }
  }
  return tree.hasHandlers ? out.filter((r) => exceptionLandings(body, r.start).to.length === 0) : out;
}

function newFrame(): Frame {
  return {
    start: 0, op: 0, elseAt: -1, min: 0, armMin: 0, returns: false, armReturns: false, hot: false, armHot: false,
    targeted: false, thenTargeted: false, thenMin: 0, thenReturns: false, thenHot: false, loops: 0,
  };
}

/** Records, in the innermost open construct `top`, a branch to construct t (the control tree's; <= 0: the function label). */
function branchTo(tree: ControlTree, stack: Frame[], top: Frame, t: number): void {
  const target = t <= 0 ? -1 : tree.start[t]!;
  if (t > 0) {
    const f = stack[tree.depth[t]! - 1]!;
    if (f.op === LOOP) {
      // a branch to a loop goes back to its start: the end stays unreached
    } else if (f.op === IF && f.elseAt < 0) f.thenTargeted = true;
    else f.targeted = true;
  }
  if (target < top.min) top.min = target;
  if (target < top.armMin) top.armMin = target;
}

/** True if instruction `i`, inside the construct opened at `start`, never falls through. */
function exitsAt(ops: Uint16Array, start: number, i: number): boolean {
  return i > start && (OP_EFFECTS[ops[i]!]! & EXITS) !== 0;
}

function pushRegion(out: Region[], minCount: number, kind: RegionKind, start: number, end: number, blockType: number,
  tail: boolean, returns: boolean, inLoop: boolean): void {
  if (end - start < minCount) return;
  if (returns && !tail) return;
  out.push({ kind, start, end, blockType, tail, returns, inLoop, bytes: -1 });
}

function closeFrame(body: Body, f: Frame, endAt: number, minCount: number, out: Region[]): void {
  const { ops, imm, immStart } = body;
  const blockType = imm[immStart[f.start]!]!;
  const inLoop = f.loops > 0;
  // the whole construct
  if (f.min >= f.start && !f.hot) {
    let tail: boolean;
    if (f.op === IF) {
      tail = f.elseAt > 0 && !f.targeted && !f.thenTargeted && exitsAt(ops, f.start, f.elseAt - 1) && exitsAt(ops, f.start, endAt - 1);
    } else tail = !f.targeted && exitsAt(ops, f.start, endAt - 1);
    pushRegion(out, minCount, "construct", f.start, endAt + 1, blockType, tail, f.returns, inLoop);
  }
  if (f.op !== IF) return;
  // the arms: a branch to the if's own label stays inside the arm's copy
  const thenEnd = f.elseAt >= 0 ? f.elseAt : endAt;
  const thenMin = f.elseAt >= 0 ? f.thenMin : f.armMin;
  const thenReturns = f.elseAt >= 0 ? f.thenReturns : f.armReturns;
  const thenHot = f.elseAt >= 0 ? f.thenHot : f.armHot;
  if (thenMin >= f.start && !thenHot) {
    pushRegion(out, minCount, "arm", f.start + 1, thenEnd, blockType, !f.thenTargeted && exitsAt(ops, f.start, thenEnd - 1), thenReturns, inLoop);
  }
  if (f.elseAt >= 0 && f.armMin >= f.start && !f.armHot) {
    pushRegion(out, minCount, "arm", f.elseAt + 1, endAt, blockType, !f.targeted && exitsAt(ops, f.start, endAt - 1), f.armReturns, inLoop);
  }
}
