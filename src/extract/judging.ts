// Judging a pass's raw-paying changes under a compressed size target (used by
// outline, fold-blocks and merge-functions): all of them at once first; a
// refused batch is split in halves, judged in order, while judgements are
// left. Each judgement compresses the whole module, so the budget is what
// bounds the time; the budgets of all passes are set here, in one table. A
// batch whose raw saving is below MIN_JUDGED_SHARE of the module is not
// judged: the compressed sizes of a whole module do not resolve it.

import { wholeLength, wholePerView, type SizeJudge } from "../size-target.js";

/** The passes that judge their changes. */
export type JudgedPass = "outline" | "fold-blocks" | "merge-functions" | "slices" | "fuse-branches";

/**
 * Most whole-module judgements per pass run: `small` up to `mediumFrom`
 * bytes, `medium` up to `largeFrom`, `large` above (brotli q11 on 1 MB takes
 * about half a second, and a pass judges once per batch). Outline judges the
 * most because its choices are the largest; merge-functions the least.
 */
const BUDGETS: Record<JudgedPass, { small: number; medium: number; large: number; mediumFrom: number; largeFrom: number }> = {
  outline: { small: 24, medium: 8, large: 3, mediumFrom: 256 << 10, largeFrom: 4 << 20 },
  "fold-blocks": { small: 16, medium: 8, large: 3, mediumFrom: 128 << 10, largeFrom: 2 << 20 },
  "merge-functions": { small: 7, medium: 3, large: 1, mediumFrom: 256 << 10, largeFrom: 4 << 20 },
  // a third of outline's: its classes save far less (none was taken under a compressed target on the
  // corpus or the fixtures), and with outline's budget its judgements were up to a quarter of the
  // whole pipeline's time on a 1.6 MB corpus file (issue 15 bounds it at a fifth)
  slices: { small: 8, medium: 3, large: 1, mediumFrom: 256 << 10, largeFrom: 4 << 20 },
  // rewrites inside functions, as fold-blocks'
  "fuse-branches": { small: 16, medium: 8, large: 3, mediumFrom: 128 << 10, largeFrom: 2 << 20 },
};

/**
 * A batch saving fewer raw bytes than this share of the module is refused
 * without a judgement. Calibrated on every judgement the balanced default
 * made on the 43 corpus files (184): of the 57 batches below 2e-4, one was
 * taken (187 of 1 MB, brotli-wasm's bundler build); of the 33 below 1e-4,
 * none. Checked on six modules outside the corpus (resvg, squoosh's png
 * and oxipng, libwebp's encoder and decoder, a 286 KB C++ program; 126
 * judgements): no batch below 2e-4 was taken, and the outputs are the
 * same with the floor as without. In the estimate-judged range (above 64
 * KiB) each judgement costs a brotli run of the module's code at the
 * estimate's quality (quality 9 then: 0.1 s on 360 KB), and on
 * data-heavy files the quality-11 verification then decides by a margin
 * larger than such a saving (brotli-wasm's web build: 794 raw bytes saved,
 * 921 brotli bytes grown).
 */
export const MIN_JUDGED_SHARE = 2e-4;

/**
 * Above this ratio of a module's bytes to what the estimates see (data and
 * debug info left out), budgets shrink in proportion. A judgement costs in
 * proportion to the module, as does the last word's quality-11 run of the
 * result that waits for the passes; wasm-opt -Oz costs in proportion to the
 * code. brotli-wasm's three builds (2.9: two thirds data) spent 0.6 s of
 * 2.1 s of passes judging outline's batches, for 425 bytes of 1 MB, and took
 * 1.03-1.07 times as long as -Oz. (The same ratio at which the input's
 * quality-11 run starts before the passes: EARLY_INPUT_WHOLE.)
 */
export const BUDGET_WHOLE = 1.5;

/**
 * The judgement budget of `pass` on `module` (as the pass first writes it;
 * a length alone is taken as all code), whose result ships with `extra`
 * bytes more (debug info set aside: SizeJudge.shipsExtra), which count as
 * what the estimates do not see.
 */
export function judgementBudget(pass: JudgedPass, module: Uint8Array | number, extra = 0): number {
  const b = BUDGETS[pass];
  // a trial written as its estimate view counts as the whole module it stands for
  const n = typeof module === "number" ? module : wholeLength(module);
  const full = n > b.largeFrom ? b.large : n > b.mediumFrom ? b.medium : b.small;
  if (typeof module === "number") return full;
  const whole = wholePerView(module) * (1 + extra / Math.max(1, n));
  return whole > BUDGET_WHOLE ? Math.max(1, Math.round((full * BUDGET_WHOLE) / whole)) : full;
}

export interface Judging<T> {
  judge: SizeJudge;
  /** Most judgements to make. */
  budget: number;
  /**
   * The module with none of the items; after a batch is taken, that trial is
   * the next "before". A function instead writes "before" anew for each
   * judgement (merge-functions: its table already counts the slots reserved
   * for the batch being judged).
   */
  before: Uint8Array | ((batch: readonly T[]) => Uint8Array);
  /** Writes a trial module with the items taken so far and `batch` applied. */
  write(taken: readonly T[], batch: readonly T[]): Uint8Array;
  /**
   * For items planned against what was taken before them (merge-functions'
   * indices and table slots): a half of a refused batch is planned again
   * when its turn comes (items that no longer pay dropped), and halves are
   * then not written ahead.
   */
  replan?(half: readonly T[]): T[];
  /**
   * Raw bytes an item saves, as planned: batches saving less than
   * MIN_JUDGED_SHARE of the module are refused unjudged. Without it every
   * batch is judged.
   */
  benefit?(item: T): number;
  /** Called with each batch taken. */
  onTaken?(batch: readonly T[]): void;
  /** Called with each planned batch not taken (refused, or left when the budget ran out). */
  onRefused?(batch: readonly T[]): void;
}

export interface JudgedHalves<T> {
  /** The items taken, in their order in the input. */
  accepted: T[];
  /** Judgements made. */
  used: number;
  /** Items not taken (refused, or left unjudged when the budget ran out or their saving was too small to judge). */
  refused: number;
}

/** The batch's planned saving is too small for a judgement on a module of `moduleBytes`. */
function tooSmallToJudge<T>(batch: readonly T[], benefit: ((item: T) => number) | undefined, moduleBytes: number): boolean {
  if (!benefit) return false;
  let sum = 0;
  for (const x of batch) sum += benefit(x);
  return sum < MIN_JUDGED_SHARE * moduleBytes;
}

/** Judges `items` in halves (see the top of this file). */
export function judgeInHalves<T>(items: readonly T[], j: Judging<T>): JudgedHalves<T> {
  let accepted: T[] = [];
  const fresh = typeof j.before === "function" ? j.before : null;
  let before = fresh ? null : (j.before as Uint8Array);
  let used = 0;
  let refused = 0;
  // a batch is planned (the input, or a half once replanned) or waits for replan
  const queue: { batch: T[]; planned: boolean }[] = [{ batch: items.slice(), planned: true }];
  // the second half of a refused batch is written and measured in the
  // background while the first is judged (needed as is if the first is
  // refused), where the judge measures in the background
  const spec = new Map<T[], { base: number; bytes: Uint8Array }>();
  while (queue.length > 0) {
    let { batch, planned } = queue.shift()!;
    if (used >= j.budget) {
      refused += batch.length;
      if (planned) j.onRefused?.(batch);
      continue;
    }
    if (!planned) {
      batch = j.replan!(batch);
      if (batch.length === 0) continue;
    }
    const base = fresh ? fresh(batch) : before!;
    if (tooSmallToJudge(batch, j.benefit, wholeLength(base))) {
      refused += batch.length;
      j.onRefused?.(batch);
      spec.delete(batch);
      continue;
    }
    used++;
    const s = spec.get(batch);
    spec.delete(batch);
    const after = s && s.base === accepted.length ? s.bytes : j.write(accepted, batch);
    if (j.judge.better(base, after)) {
      accepted = [...accepted, ...batch];
      before = after;
      j.onTaken?.(batch);
      continue;
    }
    j.onRefused?.(batch);
    if (batch.length === 1) {
      refused++;
      continue;
    }
    const h = batch.length >> 1;
    const first = batch.slice(0, h);
    const second = batch.slice(h);
    const again = j.replan !== undefined;
    queue.unshift({ batch: first, planned: !again }, { batch: second, planned: !again });
    // (only where the judge measures in the background: otherwise the write
    // waits for the half's turn, which the budget often never gives it)
    if (!again && j.judge.measuresAhead && j.budget - used >= 2 && !tooSmallToJudge(second, j.benefit, wholeLength(base))) {
      const bytes = j.write(accepted, second);
      spec.set(second, { base: accepted.length, bytes });
      j.judge.prefetch([bytes]);
    }
  }
  return { accepted, used, refused };
}
