// Puts similar function bodies next to each other, so that a compressor
// finds a body's repeats within its window (gzip: 32 KiB) and at short
// distances (brotli's distance codes are cheaper for recent matches).
//
// Similarity is estimated with MinHash over shingles of instruction tokens
// (op id mixed with its first immediate word): two bodies agree on one
// signature entry with probability equal to the Jaccard similarity of their
// shingle sets. The order is a greedy nearest-neighbour chain: from each
// function, go to the unplaced one that agrees on the most signature entries
// among those sharing at least one entry with it; when none is similar
// enough, go on
// with the next unplaced function in the given order (keeping the locality
// the original order already had).

import { bodyOf } from "../../binary/reader.js";
import type { Module } from "../../ir/module.js";

/** Signature entries per function. */
const K = 12;
/** Tokens per shingle. */
const SHINGLE = 4;
/** Candidates looked at per bucket: bounds the work on buckets of very common shingles. */
const BUCKET_SCAN = 24;
/** Fewest agreeing entries (of K) worth leaving the original order for (about 25 % similar). */
const MIN_AGREE = 3;

const SEEDS = Array.from({ length: K }, (_, j) => Math.imul(j + 1, 0x9e3779b1) | 1);

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** MinHash signatures of the defined functions, K words each. */
export function signatures(m: Module): Uint32Array {
  const sig = new Uint32Array(m.functions.length * K).fill(0xffffffff);
  const window = new Int32Array(SHINGLE);
  m.functions.forEach((f, fi) => {
    const body = bodyOf(m, f);
    const base = fi * K;
    const { ops, immStart, imm } = body;
    for (let i = 0; i < body.count; i++) {
      const s = immStart[i]!;
      const tok = s < immStart[i + 1]! ? Math.imul(ops[i]! + 1, 0x01000193) ^ imm[s]! : ops[i]!;
      window[i % SHINGLE] = tok;
      if (i + 1 < SHINGLE && i + 1 < body.count) continue;
      let h = 0x811c9dc5;
      for (let k = 0; k < SHINGLE && k <= i; k++) h = Math.imul(h ^ window[(i - k) % SHINGLE]!, 0x01000193);
      for (let j = 0; j < K; j++) {
        const v = mix(h ^ SEEDS[j]!);
        if (v < sig[base + j]!) sig[base + j] = v;
      }
    }
  });
  return sig;
}

/**
 * Orders `items` (defined-function positions, 0-based) so that similar bodies
 * are adjacent. `items` gives the fallback order.
 */
export function similarityOrder(sig: Uint32Array, items: readonly number[]): number[] {
  const buckets = new Map<number, number[]>();
  const key = (j: number, v: number): number => mix(v ^ SEEDS[j]!) * K + j;
  for (const it of items) {
    for (let j = 0; j < K; j++) {
      const k = key(j, sig[it * K + j]!);
      const b = buckets.get(k);
      if (b) b.push(it);
      else buckets.set(k, [it]);
    }
  }
  const placed = new Uint8Array(sig.length / K);
  const out: number[] = [];
  let fallback = 0;
  const agree = (a: number, b: number): number => {
    let n = 0;
    for (let j = 0; j < K; j++) if (sig[a * K + j] === sig[b * K + j]) n++;
    return n;
  };
  while (out.length < items.length) {
    while (placed[items[fallback]!]) fallback++;
    let cur = items[fallback]!;
    for (;;) {
      placed[cur] = 1;
      out.push(cur);
      let best = -1;
      let bestScore = 0;
      for (let j = 0; j < K; j++) {
        const b = buckets.get(key(j, sig[cur * K + j]!))!;
        // placed entries are swap-removed when met, so each is dropped once
        // and a scan sees at most BUCKET_SCAN unplaced ones
        let seen = 0;
        for (let r = 0; r < b.length && seen < BUCKET_SCAN; ) {
          const c = b[r]!;
          if (placed[c]) {
            b[r] = b[b.length - 1]!;
            b.pop();
            continue;
          }
          seen++;
          r++;
          const s = agree(cur, c);
          if (s > bestScore || (s === bestScore && c < best)) {
            best = c;
            bestScore = s;
          }
        }
      }
      if (best < 0 || bestScore < MIN_AGREE) break;
      cur = best;
    }
  }
  return out;
}
