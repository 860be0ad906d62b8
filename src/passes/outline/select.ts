// Greedy choice by benefit with overlaps resolved: the best candidate is
// re-priced against the code already claimed (occurrences that overlap are
// dropped) and taken only if it still beats every other candidate's last
// known benefit; otherwise it goes back into the queue (lazy greedy).

import type { Candidate, EvalContext } from "./candidates.js";
import { benefitOf } from "./cost.js";

export interface Chosen {
  c: Candidate;
  /** Indices into c.occs of the occurrences to replace. */
  keep: number[];
  /** Exact raw bytes saved with those occurrences, when chosen. */
  benefit: number;
}

/** A max-heap of candidates by benefit. */
class Heap {
  private a: Candidate[] = [];
  get size(): number {
    return this.a.length;
  }
  peek(): Candidate | undefined {
    return this.a[0];
  }
  push(c: Candidate): void {
    const a = this.a;
    a.push(c);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]!.benefit >= a[i]!.benefit) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  pop(): Candidate | undefined {
    const a = this.a;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]!.benefit > a[m]!.benefit) m = l;
        if (r < a.length && a[r]!.benefit > a[m]!.benefit) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}

/** Picks non-overlapping candidates, best first; assigns function indices from ctx.nextFunc on. */
export function selectCandidates(ctx: EvalContext, cands: Candidate[], positions: number, minBenefit: number): Chosen[] {
  const heap = new Heap();
  for (const c of cands) heap.push(c);
  const taken = new Uint8Array(positions);
  const out: Chosen[] = [];
  while (heap.size > 0) {
    const c = heap.pop()!;
    const keep: number[] = [];
    for (let k = 0; k < c.occs.length; k++) {
      const p = c.occs[k]!;
      let free = true;
      for (let q = p; q < p + c.len && free; q++) if (taken[q]) free = false;
      if (free) keep.push(k);
    }
    const b = benefitOf(ctx, c, keep, ctx.nextFunc);
    if (b < minBenefit) continue;
    const next = heap.peek();
    if (next && b < next.benefit) {
      c.benefit = b;
      heap.push(c);
      continue;
    }
    for (const k of keep) taken.fill(1, c.occs[k]!, c.occs[k]! + c.len);
    out.push({ c, keep, benefit: b });
    ctx.nextFunc++;
    if (ctx.signatures.find(c.params, c.results) < 0) ctx.signatures.plan(c.params, c.results);
  }
  return out;
}
