// Call sites: the instructions that replace extracted code in its host.
// The stack operands the code consumed are already on the stack; the site
// pushes the locals the new function takes, calls it, stores the locals it
// hands back, and leaves the way the code did (a tail). Bytes are counted
// from the same description, so estimate and rewrite cannot disagree.

import { u32Size } from "../binary/bytes.js";
import { idOf } from "../binary/opcodes/index.js";
import type { BodyBuilder } from "../ir/body.js";
import { pushLocals } from "./copy.js";

const LOCAL_SET = idOf("local.set");
const DROP = idOf("drop");
const CALL = idOf("call");
const RETURN_CALL = idOf("return_call");
const RETURN = idOf("return");
const UNREACHABLE = idOf("unreachable");

/**
 * How the extracted code left: it fell through ("none"), returned from the
 * host ("return": `return_call` where tail calls may be used, else `call`
 * and `return`), or ended in a trap ("trap": `call` and `unreachable`).
 */
export type Exit = "none" | "return" | "trap";

export interface CallSite {
  callee: number;
  /** Host locals pushed after the stack operands, in parameter order. */
  args: ArrayLike<number>;
  /**
   * For each result handed back in a local (the callee's last results, in
   * order): the host local it is stored to, or -1 to drop it. Only a site
   * that falls through has any.
   */
  stores: ArrayLike<number>;
  exit: Exit;
  /** The file offset of the code the site replaces: its instructions map there (source maps); 0 or absent: none. */
  origin?: number;
}

/** Bytes of `local.get x` or `local.set x`. */
export function localOpBytes(x: number): number {
  return 1 + u32Size(x);
}

/** Bytes after the call for the way the site leaves: `return` where a returning site cannot be a return_call, `unreachable` after a trap. */
export function exitBytes(exit: Exit, tailCalls: boolean): number {
  return exit === "trap" || (exit === "return" && !tailCalls) ? 1 : 0;
}

/** Bytes of a site without the callee index (which depends on where the new function lands). */
export function marshalBytes(args: ArrayLike<number>, stores: ArrayLike<number>, exit: Exit, tailCalls: boolean): number {
  let n = 1; // call or return_call
  for (let k = 0; k < args.length; k++) n += localOpBytes(args[k]!);
  for (let k = 0; k < stores.length; k++) n += stores[k]! >= 0 ? localOpBytes(stores[k]!) : 1;
  return n + exitBytes(exit, tailCalls);
}

/** Exact bytes of the site as emitCallSite writes it. */
export function callSiteBytes(s: CallSite, tailCalls: boolean): number {
  return marshalBytes(s.args, s.stores, s.exit, tailCalls) + u32Size(s.callee);
}

/** Whether the site's call is a `return_call`. */
export function isTailCall(s: CallSite, tailCalls: boolean): boolean {
  return s.exit === "return" && tailCalls;
}

/** Appends the site to `b`. */
export function emitCallSite(b: BodyBuilder, s: CallSite, tailCalls: boolean): void {
  if (s.exit !== "none" && s.stores.length > 0) throw new Error("a call site that leaves the function cannot store results in locals");
  const o = s.origin ?? 0;
  pushLocals(b, s.args, o);
  b.begin(isTailCall(s, tailCalls) ? RETURN_CALL : CALL, o);
  b.word(s.callee);
  for (let k = s.stores.length - 1; k >= 0; k--) {
    const x = s.stores[k]!;
    if (x >= 0) {
      b.begin(LOCAL_SET, o);
      b.word(x);
    } else b.begin(DROP, o);
  }
  if (s.exit === "return" && !tailCalls) b.begin(RETURN, o);
  else if (s.exit === "trap") b.begin(UNREACHABLE, o);
}
