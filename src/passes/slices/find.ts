// Slices of a whole module: every criterion of every defined function,
// identified (identify.ts), put in canonical form (canon.ts) and weighed
// (cost.ts), with counts of what was tried and why criteria were refused.

import type { Module } from "../../ir/module.js";
import { effectsContext } from "../../analysis/effects.js";
import { moduleEnv } from "../../analysis/module-env.js";
import type { HotCode } from "../pass.js";
import { canonicalSlice } from "./canon.js";
import { removal, type Occurrence } from "./cost.js";
import { DEFAULT_IDENTIFY, FunctionSlicer, type IdentifyOptions, type Refusal } from "./identify.js";

export interface ModuleSlices {
  /** Criteria looked at (binary numeric instructions in reachable code). */
  criteria: number;
  /** Criteria in hot code, left alone. */
  hot: number;
  /** Refusals by reason. */
  refused: Record<Refusal["reason"], number>;
  /** Slices that go through a γ or an if's value (stage b). */
  throughIfs: number;
  /** One per criterion with a slice. */
  occurrences: Occurrence[];
}

export function findSlices(m: Module, hot?: HotCode, options: IdentifyOptions = DEFAULT_IDENTIFY): ModuleSlices {
  const env = moduleEnv(m);
  const effects = effectsContext(m);
  const out: ModuleSlices = { criteria: 0, hot: 0, refused: { impure: 0, construct: 0, "stop-moved": 0, "too-big": 0, other: 0 }, throughIfs: 0, occurrences: [] };
  for (let f = 0; f < m.functions.length; f++) {
    const func = m.functions[f]!;
    const fs = new FunctionSlicer(m, f, env, effects, options);
    for (const c of fs.criteria()) {
      out.criteria++;
      if (hot?.isHotInstruction(func, c)) {
        out.hot++;
        continue;
      }
      const s = fs.slice(c);
      if ("reason" in s) {
        out.refused[s.reason]++;
        continue;
      }
      const r = removal(fs, s);
      if (!r) {
        out.refused.construct++; // an if nest in the slice that cannot go as a whole
        continue;
      }
      if (s.phis.length + s.constructs.length > 0) out.throughIfs++;
      out.occurrences.push({ slice: s, canon: canonicalSlice(fs.body, s), removal: r });
    }
  }
  return out;
}
