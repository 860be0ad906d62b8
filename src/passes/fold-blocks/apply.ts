// Applies a set of chosen foldings: appends the new functions and rebuilds
// every function that has a site, from its body as it was when the regions
// were found. Works on the real module or on a trial copy (for the judge).

import { BodyBuilder, originOf, type Body } from "../../ir/body.js";
import type { Module } from "../../ir/module.js";
import { emitCallSite, isTailCall } from "../../extract/call-site.js";
import { addFunction, groupLocals } from "../../extract/new-function.js";
import { copyRange } from "../../extract/copy.js";
import { replaceBody } from "../../extract/trial.js";
import type { ExtractedCall } from "../merge-map.js";
import { callSiteOf, type FoldOptions, type Shape, type Site } from "./plan.js";

export interface Fold {
  sites: Site[];
  shape: Shape;
  /** Body of the new function (its calls do not depend on where it lands). */
  body: Body;
  /** Exact raw bytes saved, as estimated when chosen. */
  benefit: number;
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
    const { params, results } = fold.shape;
    const nf = { params, results, locals: groupLocals(fold.shape.internal), body: fold.body };
    const callee = addFunction(m, nf, { trial, name: `folded_block$${counter++}` });
    indices.push(callee);
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
      const call = { ...callSiteOf(site, shape, callee), origin: originOf(body, site.region.start) };
      emitCallSite(b, call, o.tailCall);
      calls?.push({ host: nImp + pos, callee, tail: isTailCall(call, o.tailCall) });
      i = site.region.end;
    }
    copyRange(b, body, i, body.count);
    replaceBody(m, pos, b.finish(), trial);
  }
  return indices;
}
