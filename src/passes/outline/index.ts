// outline: procedural abstraction of repeated instruction sequences across
// the whole module (DIGEST §3.4 b-d, with register renaming as local
// renaming by first use). One symbol string over all bodies, its suffix
// array and LCP intervals give the repeats; each repeat is cut to legal
// sequences and split by local pattern; the exact byte benefit decides;
// candidates are taken greedily by benefit, overlaps resolved; rounds repeat
// until nothing pays. Under a compressed size target the raw-paying choice
// of each round is judged on the whole module and bisected when refused.

import type { Module } from "../../ir/module.js";
import { moduleEnv } from "../../analysis/module-env.js";
import { nameEntryBytes, SignaturePlan } from "../../extract/new-function.js";
import { trialCopy, writeTrial } from "../../extract/trial.js";
import { judgeInHalves, judgementBudget } from "../../extract/judging.js";
import type { SizeJudge } from "../../size-target.js";
import { mayIntroduce } from "../features.js";
import { extractedEntries, type ExtractedCall, type MergeMapEntry } from "../merge-map.js";
import type { Pass, PassContext, PassOptions, PassResult } from "../pass.js";
import { Evaluator, lcpIntervals, prune, type Candidate, type EvalContext } from "./candidates.js";
import { buildCorpus, CorpusCache, plainAt, type Corpus } from "./corpus.js";
import { applyChosen } from "./rewrite.js";
import { selectCandidates, type Chosen } from "./select.js";
import { lcpArray, suffixArray } from "./suffix-array.js";

export interface OutlineStats {
  functions: number;
  sites: number;
  rounds: number;
  judgements: number;
}

const MAX_ROUNDS = 8;
/** Candidates kept per round. */
const POOL = 4_000;
/** Corpus size (symbols) above which only BIG_ROUNDS rounds run: each costs seconds there (esbuild: about 6 s). */
const BIG = 1_000_000;
const BIG_ROUNDS = 2;

/**
 * A round whose candidates together pay less than this fraction of all that
 * was taken so far ends the pass: each round costs about as much time as the
 * one before it (a new suffix array and evaluation), while the gains fall
 * fast (sql-wasm: 40,867, 9,486, 913, 39 B; the last round ran 0.36 s).
 */
const LAST_ROUND_SHARE = 1 / 32;

/** Under a compressed target, gains smaller than this are taken as noise the compressor would eat. */
const MIN_COMPRESSED_BENEFIT = 12;

/**
 * Outlines in place. `accept(ordinal, round)`, if given, decides per chosen
 * candidate (numbered in the order they are taken, across rounds) whether to
 * apply it: for bisecting a miscompile down to one outlined function.
 * `record`, if given, receives the merge-map entries of the code moved.
 */
export function outline(m: Module, options: PassOptions | undefined, progress: (f: number) => void = () => {}, accept?: (ordinal: number, round: number) => boolean,
  record?: (entry: MergeMapEntry) => void): OutlineStats {
  const stats: OutlineStats = { functions: 0, sites: 0, rounds: 0, judgements: 0 };
  const multiValue = mayIntroduce(m, options, "multivalue");
  const tailCalls = mayIntroduce(m, options, "tail-call");
  // wasm-opt's "gc" covers typed function references
  const typedFuncRefs = mayIntroduce(m, options, "gc");
  const exnRefs = mayIntroduce(m, options, "exception-handling") && mayIntroduce(m, options, "reference-types");
  const judge = options?.judge?.compressed ? options.judge : null;
  // whole-module judgements left: each compresses the whole file (brotli q11 on
  // 1 MB takes about half a second), so the budget shrinks as files grow
  const budget = { left: -1 };
  let ordinal = 0;
  let big = false;
  let taken = 0;
  const cache = new CorpusCache();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (big && round >= BIG_ROUNDS) break;
    const env = moduleEnv(m);
    const corpus = buildCorpus(m, env, options?.hot, cache);
    if (round === 0) big = corpus.instructions > BIG;
    const ctx: EvalContext = {
      m,
      corpus,
      env,
      typedFuncRefs,
      multiValue,
      tailCalls,
      exnRefs,
      nameCost: m.names ? (i) => nameEntryBytes(i, `outlined$${stats.functions + 999}`.length) : () => 0,
      signatures: new SignaturePlan(m),
      nextFunc: m.numImportedFuncs + m.functions.length,
    };
    const cands = findCandidates(ctx);
    let chosen = selectCandidates(ctx, cands, corpus.s.length, judge ? MIN_COMPRESSED_BENEFIT : 1);
    if (accept) chosen = chosen.filter(() => accept(ordinal++, round));
    if (chosen.length === 0) break;
    if (judge) {
      const r = judgeChoice(m, corpus, chosen, judge, tailCalls, budget);
      stats.judgements += r.used;
      chosen = r.accepted;
      if (chosen.length === 0) break;
    }
    const calls: ExtractedCall[] = [];
    stats.sites += applyChosen(m, corpus, chosen, { tailCalls, trial: false, firstName: stats.functions, calls });
    if (record) for (const e of extractedEntries(m, calls)) record(e);
    stats.functions += chosen.length;
    stats.rounds++;
    progress((round + 1) / MAX_ROUNDS);
    const gained = chosen.reduce((sum, ch) => sum + ch.c.benefit, 0);
    taken += gained;
    if (gained < taken * LAST_ROUND_SHARE) break;
    if (judge && budget.left <= 0) break;
  }
  return stats;
}

/**
 * Repeats, best first: every LCP interval gets an optimistic bound (all
 * copies but one become 2-byte calls); intervals are evaluated in order of
 * that bound, and evaluation stops once the bound cannot beat the weakest
 * candidate of a full pool.
 */
export function findCandidates(ctx: EvalContext): Candidate[] {
  const { s, alphabet, psize } = ctx.corpus;
  const sa = suffixArray(s, alphabet);
  const lcp = lcpArray(s, sa);
  const leftRun = leftRuns(s, sa);
  let n = 0;
  let lbs = new Int32Array(1024);
  let rbs = new Int32Array(1024);
  let lens = new Int32Array(1024);
  let mins = new Int32Array(1024);
  let keys = new Float64Array(1024);
  lcpIntervals(lcp, (lb, rb, len, parentLen) => {
    const count = rb - lb + 1;
    const p = sa[lb]!;
    const ub = (count - 1) * (psize[p + len]! - psize[p]!) - 2 * count;
    if (ub <= 4) return;
    // not left-maximal: every copy is preceded by the same plain instruction, so
    // the repeat one longer to the left has the same copies and is at least as good
    if (p > 0 && plainAt(ctx.corpus, p - 1) && leftRun[lb]! >= rb) return;
    if (n === lbs.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T): T => {
        const b = new (a.constructor as { new (n: number): T })(a.length * 2);
        b.set(a);
        return b;
      };
      lbs = grow(lbs);
      rbs = grow(rbs);
      lens = grow(lens);
      mins = grow(mins);
      keys = grow(keys);
    }
    lbs[n] = lb;
    rbs[n] = rb;
    lens[n] = len;
    mins[n] = parentLen + 1;
    keys[n] = Math.min(ub, 2 ** 28) * 2 ** 24 + n;
    n++;
  });
  const order = keys.subarray(0, n).sort();
  const ev = new Evaluator(ctx);
  const out: Candidate[] = [];
  for (let j = n - 1; j >= 0; j--) {
    const key = order[j]!;
    const k = key % 2 ** 24;
    if (Math.floor(key / 2 ** 24) <= ev.floor) break;
    ev.evaluate(sa, lbs[k]!, rbs[k]!, lens[k]!, mins[k]!, out);
    if (out.length >= 2 * POOL) {
      prune(out, POOL);
      ev.floor = out[out.length - 1]!.benefit;
    }
  }
  prune(out, POOL);
  return out;
}

/**
 * Per suffix-array index j: the last index j' >= j such that the suffixes at
 * sa[j..j'] are all preceded by the same symbol (j itself when sa[j] = 0 or
 * the next one differs), so "all copies of an interval have the same left
 * neighbour" is one lookup.
 */
function leftRuns(s: Int32Array, sa: Int32Array): Int32Array {
  const n = sa.length;
  const run = new Int32Array(n);
  let nextLeft = -1;
  for (let j = n - 1; j >= 0; j--) {
    const left = sa[j]! > 0 ? s[sa[j]! - 1]! : -1;
    run[j] = left >= 0 && left === nextLeft ? run[j + 1]! : j;
    nextLeft = left;
  }
  return run;
}

/** The chosen candidates the judge accepts (see extract/judging.ts), within what is left of the pass's budget. */
function judgeChoice(m: Module, corpus: Corpus, chosen: Chosen[], judge: SizeJudge, tailCalls: boolean, budget: { left: number }): { accepted: Chosen[]; used: number } {
  const write = (taken: readonly Chosen[], batch: readonly Chosen[]): Uint8Array => {
    const t = trialCopy(m);
    applyChosen(t, corpus, [...taken, ...batch], { tailCalls, trial: true, firstName: 0 });
    return writeTrial(t, judge);
  };
  const before = write([], []);
  if (budget.left < 0) budget.left = judgementBudget("outline", before, judge.shipsExtra);
  const { accepted, used } = judgeInHalves(chosen, { judge, budget: budget.left, before, write, benefit: (x) => x.benefit });
  budget.left -= used;
  return { accepted, used };
}

export const outlinePass: Pass = {
  name: "outline",
  description: "outline repeated instruction sequences (locals renamed per occurrence) into new functions called from each copy",
  run(m: Module, ctx: PassContext): PassResult {
    const s = outline(m, ctx.options, (f) => ctx.progress(f), undefined, ctx.record ? (e) => ctx.record!(e) : undefined);
    if (s.functions > 0) ctx.note(`${s.functions} functions outlined from ${s.sites} sites in ${s.rounds} rounds`);
    return { changed: s.functions > 0, stats: { functionsOutlined: s.functions, callSites: s.sites, rounds: s.rounds, judgements: s.judgements } };
  },
};
