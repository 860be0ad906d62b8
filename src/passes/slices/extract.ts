// The function a slice class becomes, and the call site that replaces a
// criterion. Kept thin and in one file on purpose: once the shared extractor
// (outline, fold-blocks, merge-functions) lands, this is what moves into it.

import { idOf } from "../../binary/opcodes/index.js";
import { BodyBuilder, type Body } from "../../ir/body.js";
import type { Func, Module } from "../../ir/module.js";
import { ensureFuncType } from "../../ir/func-types.js";
import type { CanonicalSlice } from "./canon.js";

const LOCAL_GET = idOf("local.get");
const LOCAL_SET = idOf("local.set");
const CALL = idOf("call");

/** Appends the function of canonical slice `c` to `m` and returns its function index. */
export function addSliceFunction(m: Module, c: CanonicalSlice, origin: number): number {
  const f: Func = {
    typeIndex: ensureFuncType(m, c.params, [c.result]),
    locals: c.locals.map((type) => ({ count: 1, type })),
    localCount: c.locals.length,
    raw: null,
    rawOffset: 0,
    codeOffset: 0,
    body: c.body,
    dirty: true,
    origin,
  };
  m.functions.push(f);
  return m.numImportedFuncs + m.functions.length - 1;
}

/** One criterion to replace: its slice's dead instructions, the tees that become sets, and the call. */
export interface CallSite {
  criterion: number;
  dead: readonly number[];
  teeToSet: readonly number[];
  /** The locals to read, in the new function's parameter order. */
  args: readonly number[];
  callee: number;
}

/** `body` with every site's criterion replaced by its call and its dead instructions left out. */
export function rewriteParent(body: Body, sites: readonly CallSite[]): Body {
  const skip = new Uint8Array(body.count);
  const toSet = new Uint8Array(body.count);
  const callAt = new Map<number, CallSite>();
  for (const s of sites) {
    for (const i of s.dead) skip[i] = 1;
    for (const i of s.teeToSet) toSet[i] = 1;
    callAt.set(s.criterion, s);
  }
  const out = new BodyBuilder(body.count);
  for (let i = 0; i < body.count; i++) {
    const site = callAt.get(i);
    if (site) {
      for (const x of site.args) {
        out.begin(LOCAL_GET);
        out.word(x);
      }
      out.begin(CALL);
      out.word(site.callee);
      continue;
    }
    if (skip[i]) continue;
    out.begin(toSet[i] ? LOCAL_SET : body.ops[i]!);
    for (let q = body.immStart[i]!; q < body.immStart[i + 1]!; q++) out.word(body.imm[q]!);
  }
  return out.finish();
}
