// The size measures the targets judge by, built from two compressors the
// caller supplies: the CLI passes Node's zlib, the playground a gzip and a
// brotli encoder that run in the browser. Which qualities measure what (and
// above which size the estimate drops to the fast screen) is decided here
// once, so that every host that supplies byte-identical compressors makes
// the same decisions and so writes the same output.
//
// The real brotli measure is quality 11 with the library's default window
// (lgwin 22, a 4 MiB window: Node's zlib default, and what servers that
// compress on the fly use; the brotli CLI picks the window from the file size,
// up to 24). It is the same at every file size: the last word on whether a
// result grew is always quality 11. Below 4 MiB the window covers the whole
// file, and windows 22 and 24 give the same size (checked on the corpus).
// Cheaper qualities are estimates that steer the search only.

import type { SizeMeasures } from "./size-target.js";

export interface Compressors {
  /** Size of the gzip stream at level 9 (default window and memory level). */
  gzip9: (bytes: Uint8Array) => number;
  /** Size of the brotli stream at `quality`, window `lgwin` (generic mode). */
  brotli: (bytes: Uint8Array, quality: number, lgwin: number) => number;
}

/** Above this size the search's estimate is quality 5 (quality 7 of 14 MB takes a second); the real measure stays quality 11. */
export const LARGE = 4 << 20;

/** The real measure's quality, at every size. */
export const BROTLI_QUALITY = 11;
/** The real measure's window: the brotli library's default (22), as Node's zlib and most servers use. */
export const BROTLI_WINDOW = 22;

/** Brotli quality 5: about 50 times faster than 11, used only to refuse changes early. */
const FAST_QUALITY = 5;
/**
 * Brotli quality 7: the stand-in passes search on (the real measure
 * verifies). It agrees with quality 11 of the whole modules as often as
 * quality 9 did: on the 372 comparisons the estimate judge made on 29 corpus
 * and fixture modules from 64 KiB to 4 MiB, 90.6 % for both (quality 8: 90.1
 * %, 5: 90.3 %), with 10 changes taken that quality 11 refuses against 9.
 * Quality 9 costs 120 ms and more even on a 20 KB module (its hash buckets
 * hold 256 positions, and it searches every position of a run of up to 512
 * literals where lower qualities go sparse after 64), quality 7 6-30 ms on
 * views of 150-680 KB: default runs took 3-22 % less time on one thread.
 */
const ESTIMATE_QUALITY = 7;

/** The measures every target needs, from `c`. */
export function compressorMeasures(c: Compressors): SizeMeasures {
  // Above LARGE the estimate is the fast screen itself: one run serves both.
  const fastSizes = new WeakMap<Uint8Array, number>();
  const fast = (b: Uint8Array): number => {
    let n = fastSizes.get(b);
    if (n === undefined) {
      n = c.brotli(b, FAST_QUALITY, BROTLI_WINDOW);
      fastSizes.set(b, n);
    }
    return n;
  };
  return {
    brotliFast: fast,
    gzip: c.gzip9,
    brotli: (b) => c.brotli(b, BROTLI_QUALITY, BROTLI_WINDOW),
    brotliEstimate: (b) => (b.length > LARGE ? fast(b) : c.brotli(b, ESTIMATE_QUALITY, BROTLI_WINDOW)),
  };
}
