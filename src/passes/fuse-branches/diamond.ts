// Branches without an `if`: the CFG diamonds and SEME triangles clang -Oz
// emits when wasm-opt did not run. Each is rewritten as the `if … else … end`
// it stands for, so that SEME-Fusion (emit.ts) can fuse its arms; the
// rewrite is only a means: index.ts keeps it only where the fused code is
// smaller than that if (the conversion alone is wasm-opt's work).
//
//   diamond:  block block P br_if 0 B… br 1 end A… end   ≡  P if A else B end
//   triangle: block P br_if 0 L… end R…  (L never falls through, R runs to
//             the end of the enclosing construct or arm)   ≡  P if R else L end
//
// E is the block (the branch in P), the arms are A/B or R/L, and the join X
// (E's immediate post-dominator) is the outer end, or the enclosing
// construct's end for a triangle, whose other arm leaves through a branch or
// return. Branches that name the blocks from P, or the inner block from an
// arm (a jump from one arm into the other), have no if form: refused.

import { Eff, idOf } from "../../binary/opcodes/index.js";
import { OP_EFFECTS } from "../../analysis/effects.js";
import { BodyBuilder, type Body } from "../../ir/body.js";
import type { ControlTree } from "../../analysis/control-tree.js";
import type { BodyTyping } from "../../analysis/body-typing.js";
import type { ModuleEnv } from "../../analysis/module-env.js";
import { copyRange } from "../../extract/copy.js";
import { copyShifted } from "./emit.js";

const BLOCK = idOf("block"), IF = idOf("if"), ELSE = idOf("else"), END = idOf("end");
const BR = idOf("br"), BR_IF = idOf("br_if");
/** Ops whose labels this rewrite does not re-count (legacy and new exception handling). */
const HANDLERS = new Set(["try", "try_table", "delegate", "rethrow", "catch", "catch_all"].map(idOf));
const BLOCK_TYPE_EMPTY = 0x40;

export interface Shape {
  kind: "diamond" | "triangle";
  /** The outer block construct (E's block). */
  c: number;
  /** Instructions [from, to) of the body that the shape covers (a triangle: up to the enclosing end or else, excluded). */
  from: number;
  to: number;
  /** The br_if 0 that ends P. */
  brIf: number;
  /** A triangle that is the inner block of a diamond (its other form, tried when the diamond form fails). */
  inDiamond: boolean;
}

/** First br_if 0 directly in construct k, after its opener and before `limit`, or -1. */
function firstBrIf0(body: Body, ct: ControlTree, k: number, limit: number): number {
  const { ops, imm, immStart } = body;
  for (let i = ct.start[k]! + 1; i < limit; i++) if (ops[i] === BR_IF && ct.constructOf[i] === k && imm[immStart[i]!] === 0) return i;
  return -1;
}

/** Where the run of instructions after construct k's end stops: its parent's next else, or its parent's end. */
function restEnd(ct: ControlTree, k: number): number {
  const p = ct.parent[k]!;
  const e = ct.end[k]!;
  for (let a = ct.armStart[p]!; a < ct.armStart[p + 1]!; a++) if (ct.arms[a]! > e) return ct.arms[a]!;
  return ct.end[p]!;
}

/** Diamonds and SEME triangles of the body, by outer block, in order (both arms non-empty; P holds at least the condition). */
export function shapesOf(body: Body, ct: ControlTree): Shape[] {
  const out: Shape[] = [];
  const { ops, imm, immStart } = body;
  let diamondInner = -1;
  for (let c = 1; c < ct.count; c++) {
    const s = ct.start[c]!;
    if (ct.opener[c] !== BLOCK || imm[immStart[s]!] !== BLOCK_TYPE_EMPTY) continue;
    const oe = ct.end[c]!;
    const inner = c + 1;
    if (inner < ct.count && ct.opener[inner] === BLOCK && ct.parent[inner] === c && ct.start[inner] === s + 1 && imm[immStart[s + 1]!] === BLOCK_TYPE_EMPTY) {
      const ie = ct.end[inner]!;
      if (ie + 1 < oe && ops[ie - 1] === BR && imm[immStart[ie - 1]!] === 1 && ct.constructOf[ie - 1] === inner) {
        const brIf = firstBrIf0(body, ct, inner, ie - 1);
        if (brIf > s + 2 && brIf + 1 < ie - 1) {
          out.push({ kind: "diamond", c, from: s, to: oe + 1, brIf, inDiamond: false });
          diamondInner = inner;
          continue;
        }
      }
    }
    // triangle: L ends in an unconditional instruction of its own
    const last = oe - 1;
    if (ct.constructOf[last] !== c || ct.start[c] === last || (OP_EFFECTS[ops[last]!]! & Eff.UNCONDITIONAL) === 0) continue;
    const brIf = firstBrIf0(body, ct, c, last);
    if (brIf <= s + 1 || brIf + 1 > last) continue;
    const p = ct.parent[c]!;
    if (p > 0 && ct.opener[p] !== BLOCK && ct.opener[p] !== IF && !ct.isLoop(p)) continue; // not a handler's arms
    const re = restEnd(ct, c);
    if (re <= oe + 1) continue;
    out.push({ kind: "triangle", c, from: s, to: re, brIf, inDiamond: c === diamondInner });
  }
  return out;
}

/** A shape written as an if: the whole body with it replaced, and where the if opens. */
export interface AsIf {
  body: Body;
  /** Index of the new if in `body`. */
  ifAt: number;
  /** The shape's code runs over [from, from + length) of `body`. */
  length: number;
}

/** Branches in [from, to) name construct k or k2. */
function names(ct: ControlTree, from: number, to: number, k: number, k2: number): boolean {
  for (let i = from; i < to; i++) for (const t of ct.targets(i)) if (t === k || t === k2) return true;
  return false;
}

/** The block type of the if a triangle becomes: the results of the construct it runs to the end of, without params. */
function triangleType(body: Body, ct: ControlTree, env: ModuleEnv, typeIndex: number, p: number): number | null {
  let results: readonly number[];
  let word: number;
  if (p === 0) {
    results = env.ctx.results[typeIndex]!;
    word = -typeIndex - 1;
  } else {
    word = body.imm[body.immStart[ct.start[p]!]!]!;
    if (word >= 0) return word;
    if (env.ctx.params[-word - 1]!.length > 0) return null;
    results = env.ctx.results[-word - 1]!;
  }
  if (results.length === 0) return BLOCK_TYPE_EMPTY;
  if (results.length === 1) return results[0]!;
  return p === 0 && env.ctx.params[typeIndex]!.length > 0 ? null : word;
}

/**
 * The body with shape `x` written as an if, or null when a branch has no
 * if form, the triangle's stack does not start empty (typing `t` of `body`),
 * or the shape holds exception handling.
 */
export function shapeAsIf(body: Body, ct: ControlTree, t: BodyTyping, env: ModuleEnv, typeIndex: number, x: Shape): AsIf | null {
  const { c, from: s, to, brIf } = x;
  if (ct.hasHandlers) for (let i = s; i < to; i++) if (HANDLERS.has(body.ops[i]!)) return null;
  const b = new BodyBuilder(body.count + 4, body.offsets !== null);
  copyRange(b, body, 0, s);
  let ifAt: number;
  if (x.kind === "diamond") {
    const inner = c + 1, ie = ct.end[inner]!, oe = ct.end[c]!;
    if (names(ct, s + 2, brIf, c, inner) || names(ct, brIf + 1, ie - 1, inner, inner)) return null;
    copyShifted(b, body, ct, c, s + 2, brIf, -2); // P: out of both blocks
    ifAt = b.count;
    b.begin(IF);
    b.word(BLOCK_TYPE_EMPTY);
    copyRange(b, body, ie + 1, oe); // A: in the outer block before, in the if now
    b.begin(ELSE);
    copyShifted(b, body, ct, c, brIf + 1, ie - 1, -1); // B without its br 1: one level fewer
    b.begin(END);
  } else {
    const oe = ct.end[c]!, p = ct.parent[c]!;
    if (t.height[s] !== 0 || names(ct, s + 1, brIf, c, c) || names(ct, brIf + 1, oe, c, c)) return null;
    const bt = triangleType(body, ct, env, typeIndex, p);
    if (bt === null) return null;
    copyShifted(b, body, ct, c, s + 1, brIf, -1); // P: out of the block
    ifAt = b.count;
    b.begin(IF);
    b.word(bt);
    copyShifted(b, body, ct, p, oe + 1, to, 1); // R: one level deeper
    b.begin(ELSE);
    copyRange(b, body, brIf + 1, oe); // L: in the block before, in the if now
    b.begin(END);
  }
  const length = b.count - s;
  copyRange(b, body, to, body.count);
  return { body: b.finish(), ifAt, length };
}
