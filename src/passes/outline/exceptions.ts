// Exception handlers of the host: which sites outline must leave alone so
// that every handler still sees what it saw.
//
// Moving a sequence into a new function changes two things an exception can
// observe. (1) The host locals the sequence writes become the new
// function's locals and come back only when it returns: if the sequence
// writes local L and then throws (a call, throw, throw_ref or rethrow whose
// exception leaves the sequence), a host handler that reads L before writing
// it saw the new value and would now see the old one. (2) A returning
// sequence's site leaves with `return_call` (tail calls) or `call; return`:
// a return_call drops the host's frame, so an exception the sequence lets
// out would skip the host's handlers; a plain call catches, in the host, the
// exception of a return_call inside the sequence, which the host never saw
// (its frame was gone). Traps are not exceptions: no wasm handler sees them.
//
// A site outside every handler of its host is always safe: an exception
// leaves the host there, and its locals die with it. Where the exception
// goes is the CFG's answer (analysis/cfg.ts exceptionLandings: legacy try
// bodies, delegate chains, try_table catches), and whether a handler reads L
// liveness's (liveBefore at the handler's first instruction).

import { Eff, idOf } from "../../binary/opcodes/index.js";
import { OP_EFFECTS } from "../../analysis/effects.js";
import { controlTree } from "../../analysis/control-tree.js";
import { exceptionLandings } from "../../analysis/cfg.js";
import { liveness, type FuncInfo } from "./corpus.js";

const LOCAL_SET = idOf("local.set");
const LOCAL_TEE = idOf("local.tee");

/** Per op: 1 if it may throw to a handler of the function running it (calls, throws; not the tail calls, whose frame is gone). */
const THROWS = Uint8Array.from(OP_EFFECTS, (e) => (e & (Eff.CALL | Eff.THROW) && !(e & Eff.RETURN) ? 1 : 0));
/** Per op: 1 for the tail calls. */
const TAIL = Uint8Array.from(OP_EFFECTS, (e) => (e & Eff.CALL && e & Eff.RETURN ? 1 : 0));

/**
 * True if the sequence at instructions [i0, i0 + len) of `info`'s body may
 * be replaced by a call (a returning one when `returns`, as a `return_call`
 * when `tailCalls`) without a handler of the host seeing a difference.
 */
export function siteKeepsHandlers(info: FuncInfo, i0: number, len: number, returns: boolean, tailCalls: boolean): boolean {
  const body = info.body;
  const tree = controlTree(body);
  if (!tree.hasHandlers) return true;
  // no handler around the site: whatever the sequence lets out leaves the host
  if (exceptionLandings(body, i0).to.length === 0) return true;
  const end = i0 + len;
  const ops = body.ops;
  if (returns) {
    for (let t = i0; t < end; t++) {
      const op = ops[t]!;
      if (tailCalls ? THROWS[op] === 1 && leavesRange(body, t, i0, end) : TAIL[op] === 1) return false;
    }
  }
  const lv = liveness(info);
  for (let t = i0; t < end; t++) {
    if (THROWS[ops[t]!] !== 1) continue;
    let handlers: number[] | null = null;
    for (const h of exceptionLandings(body, t).to) if (h >= 0 && (h < i0 || h >= end)) (handlers ??= []).push(h);
    if (handlers === null) continue;
    // writes that may run before t in one run of the sequence: those before
    // it, and all of the outermost loop inside the sequence that holds t
    let last = t;
    for (let c = tree.loopOf(t); c >= 0 && tree.start[c]! >= i0; c = tree.loopParent(c)) last = Math.max(last, tree.end[c]!);
    for (let w = i0; w < last; w++) {
      const op = ops[w]!;
      if (op !== LOCAL_SET && op !== LOCAL_TEE) continue;
      const x = body.imm[body.immStart[w]!]!;
      for (const h of handlers) if (!lv || lv.liveBefore(h, x)) return false;
    }
  }
  return true;
}

/** True if an exception thrown at t may get out of [from, to) (to a handler outside it, or out of the function). */
function leavesRange(body: FuncInfo["body"], t: number, from: number, to: number): boolean {
  const l = exceptionLandings(body, t);
  return l.escapes || l.to.some((h) => h < from || h >= to);
}
