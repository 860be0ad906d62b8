// fold-blocks: identical structured regions (block, loop and if constructs,
// if arms) across and within functions become one new function, after the
// IBBF RFC. Regions that leave the function become tail calls. Every fold
// is taken only where it pays in exact raw bytes; under a compressed-size
// target the judge verifies batches of folds and refused batches are bisected.

import type { Module } from "../../ir/module.js";
import type { SizeJudge } from "../../size-target.js";
import { mayIntroduce } from "../features.js";
import { extractedEntries, type ExtractedCall } from "../merge-map.js";
import type { Pass, PassContext, PassResult } from "../pass.js";
import { trialCopy, writeTrial } from "../../extract/trial.js";
import { judgeInHalves, judgementBudget } from "../../extract/judging.js";
import { applyFolds, type Fold } from "./apply.js";
import { chooseFolds, findGroups, RegionCache, type FindOptions } from "./find.js";

/** Rounds of find-and-fold: a later round sees regions made equal by calls to earlier folds. */
const MAX_ROUNDS = 3;

export interface FoldBlocksStats {
  folds: number;
  sites: number;
  tailFolds: number;
  rounds: number;
  judgements: number;
  refused: number;
}

/** Keeps the folds the judge accepts (see extract/judging.ts), within what is left of the pass's budget. */
function judged(m: Module, folds: Fold[], o: FindOptions, judge: SizeJudge, stats: FoldBlocksStats): Fold[] {
  const write = (taken: readonly Fold[], batch: readonly Fold[]): Uint8Array => {
    const trial = trialCopy(m);
    applyFolds(trial, [...taken, ...batch], o, true);
    return writeTrial(trial, judge);
  };
  const before = write([], []);
  // the greedy order is kept (site positions and estimates assumed it)
  const r = judgeInHalves(folds, { judge, budget: judgementBudget("fold-blocks", before, judge.shipsExtra) - stats.judgements, before, write, benefit: (x) => x.benefit });
  stats.judgements += r.used;
  stats.refused += r.refused;
  return r.accepted;
}

export function foldBlocks(m: Module, ctx: PassContext): FoldBlocksStats {
  const opts = ctx.options;
  const judge = opts?.judge && opts.judge.compressed ? opts.judge : null;
  const o: FindOptions = {
    multiValue: mayIntroduce(m, opts, "multivalue"),
    tailCall: mayIntroduce(m, opts, "tail-call"),
    // a compressor already shares repeated code: only big repeats can pay there
    minBenefit: judge ? 8 : 1,
    minRegionBytes: judge ? 12 : 0,
    ...(opts?.hot ? { hot: opts.hot } : {}),
  };
  const stats: FoldBlocksStats = { folds: 0, sites: 0, tailFolds: 0, rounds: 0, judgements: 0, refused: 0 };
  const cache = new RegionCache();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const groups = findGroups(m, o, (f) => ctx.progress((round + f) / MAX_ROUNDS), cache);
    let folds = chooseFolds(m, groups, o);
    stats.rounds++;
    if (folds.length > 0 && judge) folds = judged(m, folds, o, judge, stats);
    if (folds.length === 0) break;
    const calls: ExtractedCall[] = [];
    applyFolds(m, folds, o, false, stats.folds, calls);
    for (const e of extractedEntries(m, calls)) ctx.record?.(e);
    for (const f of folds) {
      stats.folds++;
      stats.sites += f.sites.length;
      if (f.shape.tail !== "none") stats.tailFolds++;
    }
  }
  return stats;
}

export const foldBlocksPass: Pass = {
  name: "fold-blocks",
  description: "fold identical blocks, loops, if arms and tail regions across functions into one new function each",
  run(m: Module, ctx: PassContext): PassResult {
    const s = foldBlocks(m, ctx);
    if (s.refused > 0) ctx.note(`${s.refused} raw-paying folds refused under the size target`);
    return {
      changed: s.folds > 0,
      stats: { blocksFolded: s.folds, sitesReplaced: s.sites, tailFolds: s.tailFolds, rounds: s.rounds, judgements: s.judgements },
    };
  },
};
