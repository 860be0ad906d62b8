// Hot code without a profile, from the static frequency estimate
// (analysis/frequency.ts): everything estimated to run more than once per
// external entry is hot. That is code inside loops (unless on a path that
// can only trap), and code in functions called from loops, through direct
// calls, indirect calls and recursion. Code called from a loop is hot like
// the loop itself, which the former rule (code inside a loop is hot) missed:
// on real modules outside the corpus it let outlining and merging into
// callees of hot loops make workloads up to 2.5 times slower.
//
// Calibrated against profiles of the corpus workloads (bench/hot-calibrate.ts,
// 32 modules of 6 programs): the rule keeps at least 98.4 % of the
// instructions each workload executed in hot code, and on 7 modules of 4
// programs it was not calibrated on (Box2D, Draco, MozJPEG, Photon) at
// least 97.4 % (draco-decoder). Code inside a loop of a function that runs
// is hot however deep in if arms it sits (arm shares compound: draco's
// decoder ran 1.7 % of its instructions four arms deep in loops). A static estimate cannot
// tell which loops run most, so it calls most code of a large module hot
// (87 % in the mean of the 10 large ones, where a profile finds 3-18 %): ranking by estimated frequency
// instead (the most frequent code covering 99 % of the estimate) protected
// as little as 1.4 % of what sql.js executed. A profile (--profile) frees the
// rest.

import type { Module } from "../ir/module.js";
import type { HotCode } from "../passes/pass.js";
import { MarkedHotCode, type HotMarks } from "./marked-hot.js";
import { DEFAULT_MODEL, moduleFrequency, type FrequencyModel } from "../analysis/frequency.js";

/**
 * What is hot: the most frequent code that covers a share of the estimated
 * executed instructions, or everything estimated to run at least
 * `minFrequency` times per external entry.
 */
export type HotRule = { coverage: number } | { minFrequency: number; loops?: boolean; exports?: boolean };

/**
 * exports: the body of an exported function runs as if inside a loop (the
 * model's loopTrips per entry), but its callees are not raised with it. The
 * host may call an export in a loop the estimate cannot see: a wasm-bindgen
 * API (rapier2d's isHandleValid and contains, 78,000 calls each in its
 * workload) or an accessor. Outlining the prologues and epilogues of such
 * exports put 46 % of all the calls rapier2d's workload made into outlined
 * functions (1.9 million), and the workload ran about 9 % slower under Node
 * 20 --no-liftoff. Callees stay as estimated: raising everything reachable
 * from an export would call the whole of such a module hot, and those
 * callees took 5 % of the outlined calls.
 */
export const DEFAULT_RULE: HotRule = { minFrequency: 1.01, loops: true, exports: true };

export interface StaticHotSummary {
  instructions: number;
  hotInstructions: number;
  functions: number;
  hotFunctions: number;
}

/**
 * The smallest frequency that is hot: instructions sorted by estimated
 * frequency, the most frequent ones that cover `coverage` of the total.
 * Bucketed on a log scale (eighths of a power of two), so that millions of
 * instructions need no sort; the cutoff is the bucket's lower edge.
 */
export function hotCutoff(freqs: readonly Float64Array[], weights: readonly number[], coverage: number): number {
  if (coverage <= 0) return Infinity;
  const STEPS = 8;
  const buckets = new Map<number, number>();
  let total = 0;
  freqs.forEach((fr, k) => {
    const w = weights[k]!;
    if (w === 0) return;
    for (let i = 0; i < fr.length; i++) {
      const g = fr[i]! * w;
      if (!(g > 0)) continue;
      const b = Math.floor(Math.log2(g) * STEPS);
      buckets.set(b, (buckets.get(b) ?? 0) + g);
      total += g;
    }
  });
  if (total === 0) return Infinity;
  let covered = 0;
  for (const b of [...buckets.keys()].sort((x, y) => y - x)) {
    covered += buckets.get(b)!;
    if (covered >= coverage * total) return 2 ** (b / STEPS);
  }
  return 0;
}

function exportedFunctions(m: Module): Set<number> {
  const out = new Set<number>();
  for (const e of m.exports) if (e.kind === "func") out.add(e.index);
  return out;
}

/** The HotCode of the static estimate for `m`, the module as read (before any pass). */
export function staticHotCode(
  m: Module,
  rule: HotRule = DEFAULT_RULE,
  model: FrequencyModel = DEFAULT_MODEL,
): { hot: HotCode; summary: StaticHotSummary } {
  const nImp = m.numImportedFuncs;
  const mf = moduleFrequency(m, model);
  const weights = m.functions.map((_, i) => mf.entry[nImp + i]!);
  const cutoff = "coverage" in rule ? hotCutoff(mf.local.map((l) => l.freq), weights, rule.coverage) : rule.minFrequency;
  // loops: code inside a loop of a function that runs is hot however deep in
  // its arms (unless on a trap path), since arm shares compound quickly
  const loopFloor = "loops" in rule && rule.loops ? model.coldShare * 8 : Infinity;
  const hostLoop = "exports" in rule && rule.exports ? exportedFunctions(m) : new Set<number>();
  const byOrigin = new Map<number, HotMarks>();
  let instructions = 0;
  let hotInstructions = 0;
  m.functions.forEach((f, i) => {
    const fr = mf.local[i]!.freq;
    const w = hostLoop.has(nImp + i) ? Math.max(weights[i]!, model.loopTrips) : weights[i]!;
    instructions += fr.length;
    if (w === 0) return;
    let hot: Uint8Array | null = null;
    for (let k = 0; k < fr.length; k++) {
      if (fr[k]! > 0 && (fr[k]! * w >= cutoff || (mf.local[i]!.inLoop[k] === 1 && fr[k]! >= loopFloor))) {
        hot ??= new Uint8Array(fr.length);
        hot[k] = 1;
        hotInstructions++;
      }
    }
    if (hot) byOrigin.set(f.origin, { ops: f.body!.ops.slice(0, fr.length), hot });
  });
  return {
    hot: new MarkedHotCode(byOrigin),
    summary: { instructions, hotInstructions, functions: m.functions.length, hotFunctions: byOrigin.size },
  };
}
