// The function a slice class becomes, and the call site that replaces a
// criterion, through the shared extractor (src/extract/): the new function
// is added as every call-adding pass adds one, and the site is an ordinary
// call site (its arguments are the stop values' locals). Only what is
// particular to slices is here: the parent loses the slice's dead
// instructions, and tees whose value only the slice used become sets.

import { idOf } from "../../binary/opcodes/index.js";
import { BodyBuilder, originOf, type Body } from "../../ir/body.js";
import type { Module } from "../../ir/module.js";
import { emitCallSite } from "../../extract/call-site.js";
import { addFunction } from "../../extract/new-function.js";
import type { CanonicalSlice } from "./canon.js";

const LOCAL_SET = idOf("local.set");

/** Appends the function of canonical slice `c` to `m` and returns its function index (`trial`: on a trial copy). */
export function addSliceFunction(m: Module, c: CanonicalSlice, trial: boolean): number {
  return addFunction(m, { params: c.params, results: [c.result], locals: c.locals.map((type) => ({ count: 1, type })), body: c.body }, { trial });
}

/** One criterion to replace: its slice's dead instructions, the tees that become sets, and the call. */
export interface SliceSite {
  criterion: number;
  dead: readonly number[];
  teeToSet: readonly number[];
  /** The locals to read, in the new function's parameter order. */
  args: readonly number[];
  callee: number;
}

/** `body` with every site's criterion replaced by its call and its dead instructions left out. */
export function rewriteParent(body: Body, sites: readonly SliceSite[]): Body {
  const skip = new Uint8Array(body.count);
  const toSet = new Uint8Array(body.count);
  const callAt = new Map<number, SliceSite>();
  for (const s of sites) {
    for (const i of s.dead) skip[i] = 1;
    for (const i of s.teeToSet) toSet[i] = 1;
    callAt.set(s.criterion, s);
  }
  const out = new BodyBuilder(body.count, body.offsets !== null);
  for (let i = 0; i < body.count; i++) {
    const site = callAt.get(i);
    if (site) {
      emitCallSite(out, { callee: site.callee, args: site.args, stores: [], exit: "none", origin: originOf(body, i) }, false);
      continue;
    }
    if (skip[i]) continue;
    out.begin(toSet[i] ? LOCAL_SET : body.ops[i]!, originOf(body, i));
    for (let q = body.immStart[i]!; q < body.immStart[i + 1]!; q++) out.word(body.imm[q]!);
  }
  return out.finish();
}
