// Applies a set of chosen foldings: appends the new functions and rebuilds
// every function that has a site, from its body as it was when the regions
// were found. Works on the real module or on a trial copy (for the judge).

import { BodyBuilder, originOf, type Body } from "../../ir/body.js";
import { ensureFuncType } from "../../ir/func-types.js";
import type { Module } from "../../ir/module.js";
import type { ValType } from "../../ir/types.js";
import { newOrigin, type ExtractedCall } from "../merge-map.js";
import { emitCall, newFunc, type FoldOptions, type Shape, type Site } from "./plan.js";

export interface Fold {
  sites: Site[];
  shape: Shape;
  /** Body of the new function (its calls do not depend on where it lands). */
  body: Body;
  /** Exact raw bytes saved, as estimated when chosen. */
  benefit: number;
}

/** A copy of `m` that a trial may change without touching `m` (functions are replaced, not mutated). */
export function cloneForTrial(m: Module): Module {
  return { ...m, functions: m.functions.slice(), types: m.types.slice(), recGroups: m.recGroups.slice(), names: null };
}

/**
 * Adds one function per fold and rewrites the callers. `counter` numbers
 * new functions for their names; `calls`, if given, receives every call site
 * made (for the merge map). Returns the new functions' indices.
 */
export function applyFolds(m: Module, folds: readonly Fold[], o: FoldOptions, trial: boolean, counter = 0,
  calls?: ExtractedCall[]): number[] {
  const nImp = m.numImportedFuncs;
  const indices: number[] = [];
  const bySite = new Map<number, { site: Site; shape: Shape; callee: number }[]>();
  for (const fold of folds) {
    const callee = nImp + m.functions.length;
    const typeIndex = ensureFuncType(m, fold.shape.params, fold.shape.results);
    const f = newFunc(typeIndex, fold.body, fold.shape);
    if (!trial) f.origin = newOrigin(m);
    m.functions.push(f);
    indices.push(callee);
    if (!trial && m.names) {
      m.names.functions.set(callee, `folded_block$${counter++}`);
      m.names.dirty = true;
    }
    for (const site of fold.sites) {
      let list = bySite.get(site.info.pos);
      if (!list) bySite.set(site.info.pos, (list = []));
      list.push({ site, shape: fold.shape, callee });
    }
  }
  for (const [pos, list] of bySite) {
    list.sort((a, b) => a.site.region.start - b.site.region.start);
    const body = list[0]!.site.info.body;
    const b = new BodyBuilder(body.count + 16, body.offsets !== null);
    let i = 0;
    for (const { site, shape, callee } of list) {
      copyRange(b, body, i, site.region.start);
      emitCall(b, site, shape, callee, o, originOf(body, site.region.start));
      calls?.push({ host: nImp + pos, callee, tail: shape.tail === "return" && o.tailCall });
      i = site.region.end;
    }
    copyRange(b, body, i, body.count);
    const f = m.functions[pos]!;
    if (trial) m.functions[pos] = { ...f, body: b.finish(), dirty: true };
    else {
      f.body = b.finish();
      f.dirty = true;
    }
  }
  return indices;
}

/**
 * Appends instructions [from, to) of `body` to `b`. A rebuilt function is
 * mostly unchanged code: it is copied in bulk while `b` has room for it, else
 * one instruction at a time (which grows `b`).
 */
export function copyRange(b: BodyBuilder, body: Body, from: number, to: number): void {
  const n = to - from;
  if (n <= 0) return;
  if ((b.offsets !== null && body.offsets === null) || b.count + n + 1 >= b.ops.length) {
    for (let i = from; i < to; i++) {
      b.begin(body.ops[i]!, originOf(body, i));
      for (let p = body.immStart[i]!; p < body.immStart[i + 1]!; p++) b.word(body.imm[p]!);
    }
    return;
  }
  const s = body.immStart[from]!;
  const at = b.reserve(body.immStart[to]! - s);
  b.imm.set(body.imm.subarray(s, body.immStart[to]!), at);
  b.ops.set(body.ops.subarray(from, to), b.count);
  if (b.offsets !== null) b.offsets.set(body.offsets!.subarray(from, to), b.count);
  const shift = at - s;
  for (let k = 0; k < n; k++) b.immStart[b.count + k] = body.immStart[from + k]! + shift;
  b.count += n;
}

/** Signature key of a function type, for counting types a set of folds would add. */
export function sigKey(params: readonly ValType[], results: readonly ValType[]): string {
  return `${params.join(",")}>${results.join(",")}`;
}
