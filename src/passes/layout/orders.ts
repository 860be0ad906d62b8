// Candidate function orders for the layout pass. Each is a list of the old
// indices of the defined functions in their new order (the form
// redirectFunctions takes). "tiered", "hybrid" and "by-count" give the
// most-referenced functions the indices with the shortest LEB128 encoding;
// they differ in how much of the original order (and its locality) they
// keep. "similar" keeps every function's index width and only regroups.

import { similarityOrder } from "./similarity.js";

/** Function indices below these take 1, 2, 3 (and then 4) LEB128 bytes. */
const LEB_LIMITS = [128, 16384, 2097152];

/** Defined-function positions (0-based), most referenced first; ties keep the original order. */
function byCount(counts: Uint32Array, nImp: number, n: number): number[] {
  const pos = Array.from({ length: n }, (_, i) => i);
  return pos.sort((a, b) => counts[nImp + b]! - counts[nImp + a]! || a - b);
}

/**
 * Splits the defined functions into LEB-width tiers: the most referenced
 * fill the 1-byte indices left after the imports, the next the 2-byte ones,
 * and so on. Each tier lists its positions in the original order.
 */
function tiers(counts: Uint32Array, nImp: number, n: number): number[][] {
  return splitTiers(byCount(counts, nImp, n), nImp);
}

/** Cuts `ranked` (positions, best first) at the LEB-width limits; each tier in the original order. */
function splitTiers(ranked: readonly number[], nImp: number): number[][] {
  const n = ranked.length;
  const out: number[][] = [];
  let from = 0;
  let index = nImp;
  for (const limit of [...LEB_LIMITS, Infinity]) {
    const take = Math.max(0, Math.min(n - from, limit - index));
    if (take === 0) continue;
    out.push(ranked.slice(from, from + take).sort((a, b) => a - b));
    from += take;
    index += take;
  }
  return out;
}

/**
 * The fewest moves that give every function its tier's width: a function
 * that must move into a tier swaps places with one that must leave it, and
 * every other function keeps its index (and its neighbours).
 */
function swapped(counts: Uint32Array, nImp: number, n: number): number[] {
  const arr = Array.from({ length: n }, (_, i) => i);
  const tierOf = new Int32Array(n);
  tiers(counts, nImp, n).forEach((t, k) => t.forEach((p) => (tierOf[p] = k)));
  let start = 0;
  let k = 0;
  for (const limit of [...LEB_LIMITS, Infinity]) {
    const end = Math.min(n, Math.max(0, limit - nImp));
    if (end <= start) continue;
    const leaving: number[] = [];
    const entering: number[] = [];
    for (let p = start; p < end; p++) if (tierOf[arr[p]!] !== k) leaving.push(p);
    for (let p = end; p < n && entering.length < leaving.length; p++) if (tierOf[arr[p]!] === k) entering.push(p);
    leaving.forEach((p, i) => {
      const q = entering[i]!;
      [arr[p], arr[q]] = [arr[q]!, arr[p]!];
    });
    start = end;
    k++;
  }
  return arr;
}

export type OrderName = "swap" | "tiered" | "hybrid" | "by-count" | "similar";

/**
 * Orders that give every function the index width it has in another order
 * (or in the original one) and only rearrange functions of equal width, so
 * every index, body and section keeps its length: their raw size is that
 * order's (where the base is minimally encoded: OrderedWrites.widthsDecide),
 * and the raw target need not build them.
 */
export const SAME_WIDTHS: Partial<Record<OrderName, OrderName | "original">> = { hybrid: "tiered", similar: "original" };

/** The candidate order `name`, as old function indices. `sig`: similarity signatures (signatures()). */
export function candidateOrder(name: OrderName, counts: Uint32Array, nImp: number, n: number, sig: () => Uint32Array): number[] {
  let pos: number[];
  switch (name) {
    case "swap":
      pos = swapped(counts, nImp, n);
      break;
    case "tiered":
      pos = tiers(counts, nImp, n).flat();
      break;
    case "hybrid": {
      const s = sig();
      pos = tiers(counts, nImp, n).flatMap((t) => similarityOrder(s, t));
      break;
    }
    case "by-count":
      pos = byCount(counts, nImp, n);
      break;
    case "similar": {
      // every function keeps its LEB width, so only the compressed sizes change
      const s = sig();
      pos = splitTiers(Array.from({ length: n }, (_, i) => i), nImp).flatMap((t) => similarityOrder(s, t));
      break;
    }
  }
  return pos.map((p) => p + nImp);
}
