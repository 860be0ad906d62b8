// Compressed-size measures for the size targets, from Node's zlib. Brotli at
// quality 11 is what static hosting serves, but it takes tens of seconds on
// a 14 MB module; above LARGE the measure uses quality 9 instead, a faster
// estimate (the report says which was used).

import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { SizeMeasures } from "../size-target.js";

/** Above this size brotli uses quality 9 (quality 11 takes tens of seconds on 14 MB). */
export const LARGE = 4 << 20;

export function brotliQualityFor(size: number): number {
  return size > LARGE ? 9 : 11;
}

/** Brotli quality 5: about 50 times faster than 11, used only to refuse changes early. */
const FAST_QUALITY = 5;

export const nodeMeasures: SizeMeasures = {
  brotliFast: (b) => fastBrotli(b),
  gzip: (b) => gzipSync(b, { level: 9 }).length,
  brotli: brotliSize,
  brotliEstimate: (b) => (b.length > LARGE ? fastBrotli(b) : brotliAt(b, ESTIMATE_QUALITY)),
};

// Above LARGE the estimate is the fast screen itself: one run serves both.
const fastSizes = new WeakMap<Uint8Array, number>();

function fastBrotli(b: Uint8Array): number {
  let n = fastSizes.get(b);
  if (n === undefined) {
    n = brotliAt(b, FAST_QUALITY);
    fastSizes.set(b, n);
  }
  return n;
}

/** Brotli quality 9: about 13 times faster than 11, the stand-in passes search on (the real measure verifies). */
const ESTIMATE_QUALITY = 9;

function brotliAt(b: Uint8Array, quality: number): number {
  return brotliCompressSync(b, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: b.length,
    },
  }).length;
}

/** The brotli measure: quality 11 (9 above LARGE), window 24. */
export function brotliSize(b: Uint8Array): number {
  return brotliAt(b, brotliQualityFor(b.length));
}
