// Compressed-size measures for the size targets, from Node's zlib.
//
// The real brotli measure is quality 11 with the library's default window
// (lgwin 22, a 4 MiB window: Node's zlib default, and what servers that
// compress on the fly use; the brotli CLI picks the window from the file size,
// up to 24). It is the same at every file size: the last word on whether a
// result grew is always quality 11. Below 4 MiB the window covers the whole
// file, and windows 22 and 24 give the same size (checked on the corpus).
// Cheaper qualities are estimates that steer the search only.

import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { SizeMeasures } from "../size-target.js";

/** Above this size the search's estimate is quality 5 (quality 9 of 14 MB takes seconds); the real measure stays quality 11. */
export const LARGE = 4 << 20;

/** The real measure's quality, at every size. */
export const BROTLI_QUALITY = 11;
/** The real measure's window: the brotli library's default (22), as Node's zlib and most servers use. */
export const BROTLI_WINDOW = constants.BROTLI_DEFAULT_WINDOW;

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

/** Brotli size at `quality` with window `lgwin` (default: the real measure's window). */
export function brotliAt(b: Uint8Array, quality: number, lgwin: number = BROTLI_WINDOW): number {
  return brotliCompressSync(b, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: quality,
      [constants.BROTLI_PARAM_LGWIN]: lgwin,
      [constants.BROTLI_PARAM_SIZE_HINT]: b.length,
    },
  }).length;
}

/** The real brotli measure: quality 11, window 22, at every size. */
export function brotliSize(b: Uint8Array): number {
  return brotliAt(b, BROTLI_QUALITY);
}
