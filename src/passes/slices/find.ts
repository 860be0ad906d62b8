// Slices of a whole module: every criterion of every defined function,
// identified (identify.ts), put in canonical form (canon.ts) and weighed
// (cost.ts), with counts of what was tried and why criteria were refused.

import { bodyOf } from "../../binary/reader.js";
import type { Func, Module } from "../../ir/module.js";
import { effectsContext } from "../../analysis/effects.js";
import { moduleEnv } from "../../analysis/module-env.js";
import type { HotCode } from "../pass.js";
import { canonicalSlice } from "./canon.js";
import { removal, type Occurrence } from "./cost.js";
import { DEFAULT_IDENTIFY, FunctionSlicer, isCriterionOp, type IdentifyOptions, type Refusal, type Slice } from "./identify.js";

export interface ModuleSlices {
  /** Criteria looked at (binary numeric instructions in reachable code; in a function whose every one is hot, unreachable ones count too). */
  criteria: number;
  /** Criteria in hot code, left alone. */
  hot: number;
  /** Refusals by reason. */
  refused: Record<Refusal["reason"], number>;
  /** Slices that go through a γ or an if's value (stage b). */
  throughIfs: number;
  /** One per criterion with a slice, and a second, straight-line one where the first goes through an if. */
  occurrences: Occurrence[];
}

export function findSlices(m: Module, hot?: HotCode, options: IdentifyOptions = DEFAULT_IDENTIFY): ModuleSlices {
  const env = moduleEnv(m);
  const effects = effectsContext(m);
  const out: ModuleSlices = { criteria: 0, hot: 0, refused: { impure: 0, construct: 0, "stop-moved": 0, "too-big": 0, other: 0 }, throughIfs: 0, occurrences: [] };
  for (let f = 0; f < m.functions.length; f++) {
    const func = m.functions[f]!;
    // most code is hot under the static estimate: a function without a cold criterion needs none of the
    // slicer's analyses (SSA, GSA, typing, loops), which were most of the pass's time
    const hotOnly = hot ? hotCriteria(m, func, hot) : -1;
    if (hotOnly >= 0) {
      out.criteria += hotOnly;
      out.hot += hotOnly;
      continue;
    }
    const fs = new FunctionSlicer(m, f, env, effects, options);
    for (const c of fs.criteria()) {
      out.criteria++;
      if (hot?.isHotInstruction(func, c)) {
        out.hot++;
        continue;
      }
      const b = fs.slice(c);
      const rb = "reason" in b ? null : removal(fs, b);
      const viaIf = rb !== null && (b as Slice).phis.length + (b as Slice).constructs.length > 0;
      if (rb) out.occurrences.push({ slice: b as Slice, canon: canonicalSlice(fs.body, b as Slice), removal: rb });
      if (viaIf) out.throughIfs++;
      // where the slice goes through an if, is too big, or leaves an if nest that cannot go, the straight-line
      // slice is an alternative (at most one of a criterion's slices is taken: they share it); equal ones are likelier
      if (fs.options.throughIfs && (viaIf || ("reason" in b ? b.reason === "too-big" : !rb))) {
        const a = fs.slice(c, false);
        const ra = "reason" in a ? null : removal(fs, a);
        if (ra) {
          out.occurrences.push({ slice: a as Slice, canon: canonicalSlice(fs.body, a as Slice), removal: ra });
          if (!rb) continue;
        }
      }
      if ("reason" in b) out.refused[b.reason]++;
      else if (!rb) out.refused.construct++; // an if nest in the slice that cannot go as a whole
    }
  }
  return out;
}

/** The number of criterion ops in `func` if every one is hot, else -1 (unreachable ones count too: none is sliced). */
function hotCriteria(m: Module, func: Func, hot: HotCode): number {
  const { ops, count } = bodyOf(m, func);
  let n = 0;
  for (let i = 0; i < count; i++) {
    if (!isCriterionOp(ops[i]!)) continue;
    if (!hot.isHotInstruction(func, i)) return -1;
    n++;
  }
  return n;
}
