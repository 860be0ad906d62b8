// The body of a new function made of code moved out of a host function.
// outline and fold-blocks build theirs here; what differs between them is
// which instructions are copied and what frames them (`before`, `after`),
// not how the body is put together:
//
//   local.get 0 … local.get S-1   the stack operands the code consumed,
//                                 which arrive as the first S parameters
//   before                        (fold-blocks: a `block` around an arm)
//   the code, locals renamed
//   after                         (fold-blocks: that block's `end`, an
//                                 `unreachable` under a tail)
//   local.get r …                 locals handed back after the code's own
//                                 stack results
//   end
//
// merge-functions does not move a range (it turns a whole function into the
// merged one, constants and callees becoming parameter reads): it shares
// copyRenamed only.

import { idOf } from "../binary/opcodes/index.js";
import { BodyBuilder, originOf, type Body } from "../ir/body.js";
import { copyRenamed, emitInstrs, pushLocals, pushParams, type Instr } from "./copy.js";

const END = idOf("end");

export interface MovedCode {
  /** The host body, and the instructions [from, to) of it that are copied. */
  body: Body;
  from: number;
  to: number;
  /**
   * The code the call site replaces, when more than the copy (outline's
   * stripped final return, fold-blocks' block opener and end): the glue
   * before the copy maps to its first instruction, the glue after to its
   * last (source maps). Default [from, to).
   */
  span?: { start: number; end: number };
  /** Stack operands the code consumes: the new function's first parameters. */
  stackParams: number;
  /** Host local -> local of the new function (see siteRename). */
  rename: (local: number) => number;
  /** Locals of the new function pushed after the code, in result order. */
  outLocals: ArrayLike<number>;
  before?: readonly Instr[];
  after?: readonly Instr[];
}

/** The new function's body (see the top of this file). */
export function movedBody(c: MovedCode): Body {
  const { body, from, to } = c;
  const start = c.span?.start ?? from;
  const end = c.span?.end ?? to;
  const head = originOf(body, start);
  const tail = originOf(body, end - 1);
  const extra = (c.before?.length ?? 0) + (c.after?.length ?? 0);
  const b = new BodyBuilder(to - from + c.stackParams + c.outLocals.length + extra + 2, body.offsets !== null);
  pushParams(b, c.stackParams, head);
  if (c.before) emitInstrs(b, c.before, head);
  copyRenamed(b, body, from, to, c.rename);
  if (c.after) emitInstrs(b, c.after, tail);
  pushLocals(b, c.outLocals, tail);
  b.begin(END, tail);
  return b.finish();
}

/**
 * The renaming of a site whose locals were matched up canonically:
 * `siteLocals[c]` is the host local of canonical local c, `newIndex[c]` its
 * local in the new function.
 */
export function siteRename(siteLocals: ArrayLike<number>, newIndex: ArrayLike<number>): (local: number) => number {
  const canonOf = new Map<number, number>();
  for (let c = 0; c < siteLocals.length; c++) canonOf.set(siteLocals[c]!, c);
  return (x) => newIndex[canonOf.get(x)!]!;
}
