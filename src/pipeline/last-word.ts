// The last steps of a run: debug info goes back where it still holds, then
// the identity rule: the result is returned only if it is no larger than the
// input (under a compressed target, on the real measures: brotli quality 11
// at every size, against the input itself); otherwise the input is.

import { sameBytes } from "../binary/bytes.js";
import { debugKind, withoutCustomSections, type DebugOutcome, type RemovedSection } from "../debug-info.js";
import type { SizeJudge, SizeTarget } from "../size-target.js";

export interface LastWord {
  binary: Uint8Array;
  keptInput: boolean;
  removedSections: RemovedSection[];
  notes: string[];
}

export interface LastWordInputs {
  input: Uint8Array;
  /** The result of the passes (without the debug info set aside). */
  result: Uint8Array;
  /** The result with its debug info put back where it holds (may throw a blamed error). */
  debug: () => DebugOutcome;
  stripDwarf: boolean;
  /** True if the run was estimate-judged and no pass kept anything (the result is the module as read). */
  noPassPaid: boolean;
  /** True if any pass changed the module (kept or not). */
  anyPassChanged: boolean;
  target: SizeTarget;
  judge: SizeJudge;
}

export function lastWord(w: LastWordInputs): LastWord {
  const { input, target, judge } = w;
  const notes: string[] = [];
  const debug = w.debug();
  const current = debug.binary;
  // the input as it is returned when nothing better is: only DWARF stripped on request
  const asInput = (): Uint8Array => (w.stripDwarf ? withoutCustomSections(input, (n) => debugKind(n) === "dwarf") : input.slice());
  let binary = current;
  let keptInput = false;
  if (current.length > input.length) {
    notes.push(`the rewritten module (${current.length} bytes) was larger than the input (${input.length} bytes); returned the input unchanged`);
    binary = asInput();
    keptInput = true;
  } else if (w.noPassPaid && !sameBytes(input, current)) {
    // No pass kept anything on an estimate-judged run: the only change is
    // the rewrite itself, not worth two real brotli runs of a large module
    // (esbuild.wasm as shipped: 100 s of CPU, and its brotli size grew)
    if (!w.anyPassChanged) notes.push(`no pass paid under target ${target}: returned the input unchanged`);
    binary = asInput();
    keptInput = true;
  } else if (judge.compressed && !sameBytes(input, current) && !judge.holds(input, current)) {
    // The last word, on the real measures (brotli quality 11 at every size)
    // against the input itself: every decision above was relative to the
    // module before it, and on large modules to an estimate.
    notes.push(`under target ${target} the result was larger than the input on the real measures (${judge.explainGrowth(input, current)}); returned the input unchanged`);
    binary = asInput();
    keptInput = true;
  }
  if (!keptInput) {
    notes.push(...debug.notes);
    return { binary, keptInput, removedSections: debug.removed, notes };
  }
  const removedSections = debug.removed.filter((s) => s.kind === "dwarf" && w.stripDwarf).map((s) => ({ ...s, why: "stripped" as const }));
  return { binary, keptInput, removedSections, notes };
}
