// Estimate-judged runs. Above EXACT_MAX bytes, balanced (and brotli above
// PORTFOLIO_MAX) lets the passes decide on a fast brotli estimate, keeps a
// checkpoint after every pass that paid, and verifies the last one on the
// real measures at the end: a real brotli run of a mid-size module takes
// about a second, and a pass would otherwise make 5-15 of them.

import { wholePerView, type SizeJudge } from "../size-target.js";

/**
 * Above this many bytes the balanced target decides on its brotli estimate
 * and verifies once at the end; below, every decision uses the real
 * measures (brotli q11 of 64 KiB takes about 0.1 s).
 */
export const EXACT_MAX = 64 << 10;

/** Above this many bytes the brotli target runs its own search only (a real brotli run of 4 MiB takes seconds). */
export const PORTFOLIO_MAX = 4 << 20;

/**
 * Under balanced, an estimate-judged result that saves less than this share
 * of the file's raw bytes is not verified: the input is returned. Verifying
 * costs a brotli quality-11 run of the input and one of the result (2-3 s
 * each for a 1 MB module); brotli-wasm's modules (two thirds data) saved
 * 425 bytes of 1 MB and took longer than wasm-opt -Oz for it.
 */
export const MIN_VERIFIED_SHARE = 0.001;

/**
 * Above this ratio of a module's bytes to what its estimates see (the data
 * section and debug info left out), the input's quality-11 run starts
 * before the passes: it costs in proportion to the whole file, the passes
 * and wasm-opt -Oz in proportion to the code, and after the passes it
 * would double the wait for verification (brotli-wasm: 2.9, two thirds
 * data; web-tree-sitter's debug build: 2.7, two thirds DWARF).
 */
export const EARLY_INPUT_WHOLE = 1.5;

/**
 * Did the passes save less than MIN_VERIFIED_SHARE in every measure the
 * estimate judges by (raw bytes, and gzip and brotli of the estimate's view)?
 * Compressed sizes count too: a new function order can take 0.9 % off gzip
 * for 16 raw bytes (box2d), and quality 11 of a whole file answers changes
 * in ways no estimate sees (brotli-wasm's node build: 7.7 % smaller where
 * quality 9 saw 0.03 %: its quality-11 size jumps between two levels when the
 * data section moves by a few bytes; its web build: 0.2 % larger).
 */
export function tooLittleToVerify(est: SizeJudge, before: Uint8Array, after: Uint8Array): boolean {
  if (before.length - after.length >= MIN_VERIFIED_SHARE * before.length) return false;
  const a = est.measureAll(before);
  const b = est.measureAll(after);
  // the estimates see only part of the module (estimateView): their gain is
  // weighed against the whole module's size scaled the same way
  const whole = wholePerView(before);
  for (const k of ["gzip", "brotli"] as const) {
    const x = a[k];
    const y = b[k];
    if (x !== undefined && y !== undefined && x - y >= MIN_VERIFIED_SHARE * x * whole) return false;
  }
  return true;
}

/** The module after a pass that changed it (estimate-judged runs only). */
export interface Checkpoint {
  bytes: Uint8Array;
  /** Passes run up to and including this one. */
  passes: number;
  /** Pass reports up to and including this pass. */
  reports: number;
  /** Merge-map entries recorded up to here. */
  entries: number;
  /** Function origins at this point, for re-reading the bytes. */
  origins: number[];
}

/**
 * The estimate-judged result on the real measures: null when the last
 * checkpoint, as it would ship (`shipped`: debug info put back), is no worse
 * than `reference` (the input) under the target, else the latest earlier
 * one that is (or the baseline itself, as a checkpoint with no passes), with
 * why the later ones were dropped. Earlier checkpoints that `worth` refuses
 * (too little gain to be worth two quality-11 runs) are passed over
 * unmeasured: each is a quality-11 run of the whole file.
 */
export function verify(
  judge: SizeJudge,
  reference: Uint8Array,
  baseline: Checkpoint,
  checkpoints: readonly Checkpoint[],
  shipped: (cp: Checkpoint) => Uint8Array,
  worth: (cp: Checkpoint) => boolean,
): (Checkpoint & { why: string }) | null {
  const last = checkpoints[checkpoints.length - 1]!;
  const lastShipped = shipped(last);
  if (judge.holds(reference, lastShipped)) return null;
  const why = `on the real measures the result grew (${judge.explainGrowth(reference, lastShipped)})`;
  /** The latest checkpoint worth measuring at or before k, or -1. */
  const worthFrom = (k: number): number => {
    while (k >= 0 && !worth(checkpoints[k]!)) k--;
    return k;
  };
  // each is a quality-11 run of the whole file, tried latest first until one
  // holds: where the measures work in the background, the next one is
  // started there while this thread measures one, early (in a process of
  // its own, killed when the run ends, as it is not needed if this one
  // holds); elsewhere its shipped form is not even made until its turn
  for (let k = worthFrom(checkpoints.length - 2); k >= 0; ) {
    const next = worthFrom(k - 1);
    if (next >= 0 && judge.measuresAhead) judge.prefetch([shipped(checkpoints[next]!)], true);
    if (judge.holds(reference, shipped(checkpoints[k]!))) return { ...checkpoints[k]!, why };
    k = next;
  }
  return { ...baseline, why };
}
