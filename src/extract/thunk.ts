// Thunks, shared by the function-level passes (merge-functions,
// fold-functions): a whole function that is one call site passing its
// parameters on (their sizes: analysis/sizes.ts).

import { idOf } from "../binary/opcodes/index.js";
import { BodyBuilder, originOf, type Body } from "../ir/body.js";
import type { Func, Module } from "../ir/module.js";
import { emitCallSite } from "./call-site.js";
import { emitInstrs, pushParams, type Instr } from "./copy.js";

const END = idOf("end");

/** One extra argument a thunk pushes: an instruction (op id) with its immediate words. */
export type ThunkArg = Instr;

/**
 * Body: push every parameter, then `args`, then `call callee` — or
 * `return_call callee` when `tail` (same size; the thunk's frame is gone
 * from the stack, so deep recursion through thunks needs no more stack).
 */
export function thunkBody(paramCount: number, callee: number, args: readonly ThunkArg[] = [], tail = false, origin = 0): Body {
  // `origin`: the file offset of the code the thunk replaces (every instruction maps there)
  const b = new BodyBuilder(paramCount + args.length + 2, origin !== 0);
  pushParams(b, paramCount, origin);
  emitInstrs(b, args, origin);
  // the function's end returns the call's results; a tail call leaves at once
  emitCallSite(b, { callee, args: [], stores: [], exit: tail ? "return" : "none", origin }, tail);
  b.begin(END, origin);
  return b.finish();
}

/** The file offset of f's first instruction, or 0 if it has none (a function a pass made). */
export function funcOrigin(f: Func): number {
  if (f.body) return originOf(f.body, 0);
  return f.raw ? f.codeOffset : 0;
}

/** Parameter count of a function type. */
export function paramCount(m: Module, typeIndex: number): number {
  const c = m.types[typeIndex]!.composite;
  if (c.kind !== "func") throw new Error(`type ${typeIndex} is not a function type`);
  return c.params.length;
}
