// The function a slice class becomes, and the call site that replaces a
// criterion. Kept thin and in one file on purpose: once the shared extractor
// (outline, fold-blocks, merge-functions) lands, this is what moves into it.

import type { Func, Module } from "../../ir/module.js";
import { ensureFuncType } from "../../ir/func-types.js";
import type { CanonicalSlice } from "./canon.js";

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
