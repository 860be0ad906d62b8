// Judging a pass's raw-paying changes under a compressed size target (used by
// outline and fold-blocks): all of them at once first; a refused batch is
// split in halves, judged in order, while judgements are left. Each judgement
// compresses the whole module, so the budget is what bounds the time.

import type { SizeJudge } from "../size-target.js";

export interface JudgedHalves<T> {
  /** The items taken, in their order in the input. */
  accepted: T[];
  /** Judgements made. */
  used: number;
  /** Items not taken (refused, or left unjudged when the budget ran out). */
  refused: number;
}

/**
 * `write(list)` writes a trial module with `list` applied; `before` is the
 * module with none of them. At most `budget` judgements are made.
 */
export function judgeInHalves<T>(items: readonly T[], before: Uint8Array, write: (list: T[]) => Uint8Array, judge: SizeJudge, budget: number): JudgedHalves<T> {
  let accepted: T[] = [];
  let used = 0;
  let refused = 0;
  const queue: T[][] = [items.slice()];
  // the second half of a refused batch is written and measured in the
  // background while the first is judged (needed as is if the first is refused)
  const spec = new Map<T[], { base: number; bytes: Uint8Array }>();
  while (queue.length > 0) {
    const batch = queue.shift()!;
    if (used >= budget) {
      refused += batch.length;
      continue;
    }
    used++;
    const trial = [...accepted, ...batch];
    const s = spec.get(batch);
    spec.delete(batch);
    const after = s && s.base === accepted.length ? s.bytes : write(trial);
    if (judge.better(before, after)) {
      accepted = trial;
      before = after;
    } else if (batch.length > 1) {
      const h = batch.length >> 1;
      const second = batch.slice(h);
      queue.unshift(batch.slice(0, h), second);
      if (budget - used >= 2) {
        const bytes = write([...accepted, ...second]);
        spec.set(second, { base: accepted.length, bytes });
        judge.prefetch([bytes]);
      }
    } else refused++;
  }
  return { accepted, used, refused };
}
