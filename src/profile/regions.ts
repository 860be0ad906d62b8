// Where the counters of profile-guided mode go. A body is cut into regions:
// straight-line runs of instructions that start where the number of times
// control arrives can differ from the instruction before. Every region gets
// one counter. Region starts (original instruction indices):
//
//   - 0, the function entry;
//   - after `loop` (the loop header: once per iteration);
//   - after `if`, `else`, `catch`, `catch_all` (the start of an arm);
//   - after `end` and `delegate` (the code after a construct, which branches
//     to its label and arms that end early reach differently);
//   - after any branching instruction (br, br_if, br_table, br_on_*, return,
//     throw, return_call ...) and after `unreachable`: what follows a
//     conditional branch runs less often, what follows an unconditional one
//     is dead until the next region (its counter stays 0).
//
// br_table and try_table targets are labels, so their code is already a
// region start (after a block's `end` or a loop header). A region may still
// end early when a call traps, throws or exits the program; its count then
// over-states the rest of it, which only errs towards calling code hot.

import { Eff, OPS, idOf } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";

const STARTS_AFTER = new Uint8Array(OPS.length);
for (let id = 0; id < OPS.length; id++) if (OPS[id]!.effects & Eff.BRANCH) STARTS_AFTER[id] = 1;
for (const name of ["loop", "if", "else", "end", "catch", "catch_all", "delegate", "unreachable"]) STARTS_AFTER[idOf(name)] = 1;

/** Region start indices of `body`, ascending; the first is always 0. */
export function regionStarts(body: Body): Uint32Array {
  const out: number[] = [0];
  // the final `end` closes the function: nothing starts after it
  for (let i = 0; i + 1 < body.count; i++) if (STARTS_AFTER[body.ops[i]!]) out.push(i + 1);
  return Uint32Array.from(out);
}

/** Index into `starts` of the region holding instruction `instr` (the last start <= instr). */
export function regionOf(starts: Uint32Array, instr: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= instr) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
