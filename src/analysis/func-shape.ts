// Structural hashing and comparison of function bodies, with some immediates
// left out: function-index immediates (compared later through a partition,
// for identical folding) and, for similar-function merging, the constants and
// direct-call targets that can become parameters.

import { idOf } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";
import { FUNC_WORDS } from "../ir/imm-layout.js";
import type { Func } from "../ir/module.js";

const I32_CONST = idOf("i32.const");
const I64_CONST = idOf("i64.const");
const F32_CONST = idOf("f32.const");
const F64_CONST = idOf("f64.const");
export const CALL = idOf("call");

export interface ShapeMode {
  /** Leave every function-index immediate out (fold-functions compares them through classes). */
  skipFuncs: boolean;
  /** Leave numeric constants out (merge-functions parameterizes them). */
  skipConsts: boolean;
  /** Leave direct `call` targets out, hashing the callee's type index instead. */
  callType?: (funcIndex: number) => number;
}

/** Is instruction `op` a parameterizable location under `mode`? */
export function isParamOp(op: number, mode: ShapeMode): boolean {
  if (mode.skipConsts && (op === I32_CONST || op === I64_CONST || op === F32_CONST || op === F64_CONST)) return true;
  return mode.callType !== undefined && op === CALL;
}

function mix(h: number, v: number): number {
  h = Math.imul(h ^ v, 0x9e3779b1);
  return (h ^ (h >>> 15)) | 0;
}

/** Hash of the function's type, locals and body under `mode`. */
export function shapeHash(f: Func, body: Body, mode: ShapeMode): number {
  let h = mix(0x12345, f.typeIndex);
  for (const g of f.locals) {
    if (g.count === 0) continue;
    h = mix(mix(h, g.count), g.type);
  }
  const { ops, immStart, imm } = body;
  h = mix(h, body.count);
  for (let i = 0; i < body.count; i++) {
    const op = ops[i]!;
    h = mix(h, op);
    const s = immStart[i]!;
    const e = immStart[i + 1]!;
    if (s === e) continue;
    if (isParamOp(op, mode)) {
      if (op === CALL && mode.callType) h = mix(h, mode.callType(imm[s]!));
      continue;
    }
    const skip = mode.skipFuncs ? FUNC_WORDS[op] : null;
    for (let p = s; p < e; p++) {
      if (skip && skip.includes(p - s)) continue;
      h = mix(h, imm[p]!);
    }
  }
  return h;
}

function sameLocals(a: Func, b: Func): boolean {
  const la = a.locals.filter((g) => g.count > 0);
  const lb = b.locals.filter((g) => g.count > 0);
  // normalize adjacent runs of the same type
  const norm = (l: { count: number; type: number }[]) => {
    const out: number[] = [];
    for (const g of l) {
      if (out.length && out[out.length - 1] === g.type) out[out.length - 2]! += g.count;
      else out.push(g.count, g.type);
    }
    return out;
  };
  const na = norm(la);
  const nb = norm(lb);
  return na.length === nb.length && na.every((v, i) => v === nb[i]);
}

/** Exact structural equality under `mode` (what shapeHash approximates). */
export function shapeEqual(fa: Func, a: Body, fb: Func, b: Body, mode: ShapeMode): boolean {
  if (fa.typeIndex !== fb.typeIndex || a.count !== b.count || a.imm.length !== b.imm.length) return false;
  if (!sameLocals(fa, fb)) return false;
  for (let i = 0; i < a.count; i++) {
    const op = a.ops[i]!;
    if (op !== b.ops[i]) return false;
    const s = a.immStart[i]!;
    const e = a.immStart[i + 1]!;
    if (s !== b.immStart[i] || e !== b.immStart[i + 1]) return false;
    if (s === e) continue;
    if (isParamOp(op, mode)) {
      if (op === CALL && mode.callType && mode.callType(a.imm[s]!) !== mode.callType(b.imm[s]!)) return false;
      continue;
    }
    const skip = mode.skipFuncs ? FUNC_WORDS[op] : null;
    for (let p = s; p < e; p++) {
      if (skip && skip.includes(p - s)) continue;
      if (a.imm[p] !== b.imm[p]) return false;
    }
  }
  return true;
}

/** Function indices referenced by the body, in order (calls, return_calls, ref.func), appended to `out`. */
export function funcRefs(body: Body, out: number[] = []): number[] {
  for (let i = 0; i < body.count; i++) {
    const at = FUNC_WORDS[body.ops[i]!];
    if (!at) continue;
    for (const off of at) out.push(body.imm[body.immStart[i]! + off]!);
  }
  return out;
}

/**
 * Splits `items` into groups of equal elements: first by hash, then by exact
 * comparison within a bucket. Deterministic: groups come in order of their
 * first member, members in input order.
 */
export function groupBy<T>(items: readonly T[], hash: (t: T) => number | string, equal: (a: T, b: T) => boolean): T[][] {
  const buckets = new Map<number | string, T[][]>();
  const groups: T[][] = [];
  for (const it of items) {
    const h = hash(it);
    let list = buckets.get(h);
    if (!list) buckets.set(h, (list = []));
    let placed = false;
    for (const g of list) {
      if (equal(g[0]!, it)) {
        g.push(it);
        placed = true;
        break;
      }
    }
    if (!placed) {
      const g = [it];
      list.push(g);
      groups.push(g);
    }
  }
  return groups;
}
