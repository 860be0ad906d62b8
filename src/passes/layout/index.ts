// Layout for compression: choose the order of the code section, which in
// wasm is also the function index order. Short indices go to the most
// referenced functions (every call writes its callee's index as a LEB128),
// and similar bodies can sit next to each other so compressors find their
// repeats nearby. The effect on gzip and brotli is hard to predict (moving
// functions also breaks up what the original order had in common), so the
// pass writes a few candidate orders and lets the size judge pick (under
// raw it only computes their lengths); the original order stays unless a
// candidate is better under the target.

import { writeModule } from "../../binary/writer.js";
import type { Module } from "../../ir/module.js";
import { reorderFunctions } from "../../ir/renumber.js";
import { asEstimateView, estimateView, SizeJudge } from "../../size-target.js";
import type { Pass, PassContext, PassResult } from "../pass.js";
import { candidateOrder, SAME_WIDTHS, type OrderName } from "./orders.js";
import { OrderedWrites } from "./ordered-writes.js";
import { signatures } from "./similarity.js";
import { referenceCounts } from "./use-counts.js";

/** Above this size each compressed measurement costs seconds: judge fewer candidates. */
const LARGE = 4 << 20;
/** Candidates in the order they are tried; on a tie the earlier (less disruptive) one stays. */
const ALL: readonly OrderName[] = ["swap", "tiered", "hybrid", "by-count", "similar"];
const FEW: readonly OrderName[] = ["swap", "tiered", "hybrid"];

/**
 * No counted size of `b` is larger than `a`'s and one is smaller. Under
 * every target but balanced this is judge.better; under balanced it also
 * takes an order that keeps the raw size and shrinks gzip or brotli, which
 * is what most layouts of an already sorted module do.
 */
function dominates(judge: SizeJudge, a: Uint8Array, b: Uint8Array): boolean {
  return judge.notWorse(a, b) && !judge.notWorse(b, a);
}

const isIdentity = (order: readonly number[], nImp: number): boolean => order.every((v, k) => v === nImp + k);

export interface LayoutChoice {
  /** The chosen candidate, or "original". */
  name: OrderName | "original";
  order: number[] | null;
  /** Candidates judged (written, or under raw their lengths computed). */
  tried: number;
}

/**
 * Picks the best order under `judge`; does not change m (candidates are
 * written from a copy). `written`: writeModule(m), if the caller has it.
 */
export function chooseLayout(m: Module, judge: SizeJudge, onProgress?: (f: number) => void, written?: Uint8Array): LayoutChoice {
  const nImp = m.numImportedFuncs;
  const n = m.functions.length;
  if (n < 2) return { name: "original", order: null, tried: 0 };
  const whole = written ?? writeModule(m);
  // candidates written as their estimate views where the judge sees only
  // those (no data section copied per candidate), compared with the base's
  const views = judge.judgesViews;
  const writes = new OrderedWrites(m, whole, views);
  const base = views ? asEstimateView(estimateView(whole), whole.length) : whole;
  const counts = referenceCounts(m, writes.refs);
  let sig: Uint32Array | null = null;
  const lazySig = (): Uint32Array => (sig ??= signatures(m));
  const names = judge.compressed && whole.length > LARGE ? FEW : ALL;

  const candidates: { name: OrderName; order: number[]; bytes: Uint8Array | null }[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    // under raw a candidate with the widths of an earlier one (or of the
    // original order) can have its size, and a tie keeps the earlier one
    const twin = SAME_WIDTHS[name];
    if (!judge.compressed && twin && (twin === "original" || names.indexOf(twin) < names.indexOf(name)) && writes.widthsDecide()) continue;
    const order = candidateOrder(name, counts, nImp, n, lazySig);
    const key = order.join(",");
    if (isIdentity(order, nImp) || seen.has(key)) continue;
    seen.add(key);
    candidates.push({ name, order, bytes: null });
  }
  if (!judge.compressed) return byRawLength(writes, candidates, onProgress);
  // Every candidate is written first, so the judge can measure them in the
  // background.
  for (const c of candidates) c.bytes = writes.bytes(c.order);
  judge.prefetch([base, ...candidates.map((c) => c.bytes!).filter((b) => b.length <= base.length)]);

  let best: LayoutChoice = { name: "original", order: null, tried: 0 };
  let bestBytes = base;
  candidates.forEach((c, k) => {
    const { name, order } = c;
    onProgress?.(k / candidates.length);
    const bytes = c.bytes!;
    c.bytes = null;
    best.tried++;
    // The pipeline returns its input when the output has more raw bytes, so
    // a layout never trades raw bytes for compressed ones.
    if (bytes.length > base.length) return;
    // once a candidate is chosen, one that dominates it dominates the base
    // too (every size is compared with <=): compared with the chosen one
    // alone, a loser is often refused on its first measure (under balanced
    // on its raw length), where against the base it needed all of them
    if (!dominates(judge, bestBytes, bytes)) return;
    best = { name, order, tried: best.tried };
    bestBytes = bytes;
  });
  return best;
}

/**
 * The raw target's choice: the shortest candidate, if shorter than the base
 * (what dominates says under raw); on a tie the earlier one. Lengths only,
 * no candidate is written.
 */
function byRawLength(writes: OrderedWrites, candidates: readonly { name: OrderName; order: number[] }[], onProgress?: (f: number) => void): LayoutChoice {
  let best: LayoutChoice = { name: "original", order: null, tried: 0 };
  let bestLength = writes.base.length;
  candidates.forEach(({ name, order }, k) => {
    onProgress?.(k / candidates.length);
    best.tried++;
    const length = writes.rawLength(order);
    if (length < bestLength) {
      best = { name, order, tried: best.tried };
      bestLength = length;
    }
  });
  return best;
}

export const layoutPass: Pass = {
  name: "layout",
  description: "order functions (and so their indices) for short call indices and compression; the size judge picks among candidate orders",
  ordersOnly: true,
  run(m: Module, ctx: PassContext): PassResult {
    const judge = ctx.options?.judge ?? new SizeJudge("raw");
    // an estimate-judged run picks the order on a cheaper estimate still (SizeJudge.forOrders, Pass.ordersOnly)
    const choice = chooseLayout(m, judge.forOrders(), (f) => ctx.progress(f), ctx.written);
    ctx.note(`order: ${choice.name} (${choice.tried} candidate${choice.tried === 1 ? "" : "s"} judged under target ${judge.target})`);
    if (!choice.order) return { changed: false, stats: { candidates: choice.tried, functionsMoved: 0 } };
    const nImp = m.numImportedFuncs;
    const moved = choice.order.filter((v, k) => v !== nImp + k).length;
    reorderFunctions(m, choice.order);
    return { changed: true, stats: { candidates: choice.tried, functionsMoved: moved } };
  },
};
