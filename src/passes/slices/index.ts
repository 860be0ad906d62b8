// slices (issue 15, stages a and b): idempotent backward slices of binary
// numeric instructions, straight-line or through ifs (γs re-emitted as
// select or as an if with a result), merged across the module into one function per class of
// equal slices; each criterion becomes a call with its stop values as
// arguments, and what only the slice used dies. Greedy by exact byte
// benefit (cost.ts); criteria in hot code (PassOptions.hot) are left alone;
// under a compressed size target the raw-paying choice is judged on the
// whole module and bisected when refused, as outline does.

import type { Module } from "../../ir/module.js";
import { judgeInHalves, judgementBudget } from "../../extract/judging.js";
import { replaceBody, trialCopy, writeTrial } from "../../extract/trial.js";
import type { Pass, PassContext, PassOptions, PassResult } from "../pass.js";
import { chooseClasses, classesOf, type ChosenClass, type Preset } from "./cost.js";
import { addSliceFunction, rewriteParent, type SliceSite } from "./extract.js";
import { findSlices } from "./find.js";

export interface SlicesStats {
  criteria: number;
  slices: number;
  classes: number;
  functions: number;
  callSites: number;
  /** Exact bytes the chosen classes were projected to save. */
  projected: number;
  judgements: number;
}

/** Under a compressed target, classes saving fewer raw bytes than this are not tried. */
const MIN_COMPRESSED_BENEFIT = 12;

/** Runs the pass on `m` in place; with `preset`, takes the classes the paper's cost model admits instead. */
export function slices(m: Module, options?: PassOptions, preset?: Preset): SlicesStats {
  const found = findSlices(m, options?.hot);
  const classes = classesOf(found.occurrences);
  let chosen = chooseClasses(m, classes, preset);
  const stats: SlicesStats = { criteria: found.criteria, slices: found.occurrences.length, classes: classes.length, functions: 0, callSites: 0, projected: 0, judgements: 0 };
  const judge = options?.judge?.compressed ? options.judge : null;
  if (judge && !preset) {
    chosen = chosen.filter((c) => c.benefit >= MIN_COMPRESSED_BENEFIT);
    if (chosen.length === 0) return stats;
    const write = (taken: readonly ChosenClass[], batch: readonly ChosenClass[]): Uint8Array => {
      const t = trialCopy(m);
      apply(t, [...taken, ...batch], true);
      return writeTrial(t, judge);
    };
    const before = writeTrial(m, judge);
    const r = judgeInHalves(chosen, { judge, budget: judgementBudget("slices", before, judge.shipsExtra), before, write, benefit: (c) => c.benefit });
    stats.judgements = r.used;
    chosen = r.accepted;
  }
  if (chosen.length === 0) return stats;
  stats.callSites = apply(m, chosen, false);
  stats.functions = chosen.length;
  stats.projected = chosen.reduce((s, c) => s + c.benefit, 0);
  return stats;
}

/** Adds one function per chosen class and rewrites the parents. Returns the number of call sites. */
function apply(m: Module, chosen: readonly ChosenClass[], trial: boolean): number {
  const sites = new Map<number, SliceSite[]>();
  let count = 0;
  chosen.forEach((ch, k) => {
    const callee = addSliceFunction(m, ch.cls.canon, trial);
    // the byte model numbered the new functions in the order of the whole choice; a judged subset
    // gets lower indices, so its calls are no wider than counted (the model stays an upper bound of the cost)
    if (callee > ch.funcIndex) throw new Error(`slices: class ${k} became function ${callee}, the byte model counted on ${ch.funcIndex}`);
    for (const o of ch.occs) {
      let l = sites.get(o.slice.func);
      if (!l) sites.set(o.slice.func, (l = []));
      l.push({ criterion: o.slice.criterion, dead: o.removal.dead, teeToSet: o.removal.teeToSet, args: o.canon.paramStops.map((s) => o.slice.stops[s]!.local), callee });
      count++;
    }
  });
  for (const [fi, list] of sites) replaceBody(m, fi, rewriteParent(m.functions[fi]!.body!, list), trial);
  return count;
}

export const slicesPass: Pass = {
  name: "slices",
  description: "outline idempotent backward slices of binary numeric instructions (straight-line and through ifs), one function per class of equal slices",
  run(m: Module, ctx: PassContext): PassResult {
    const s = slices(m, ctx.options);
    if (s.functions > 0) ctx.note(`${s.functions} slice functions called from ${s.callSites} sites (${s.slices} slices of ${s.criteria} criteria, ${s.classes} classes)`);
    return { changed: s.functions > 0, stats: { criteria: s.criteria, slices: s.slices, functions: s.functions, callSites: s.callSites, projected: s.projected, judgements: s.judgements } };
  },
};
