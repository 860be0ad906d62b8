// Compressed-size measures for the size targets, from Node's zlib (which
// qualities measure what: see compressor-measures.ts).

import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { BROTLI_QUALITY, BROTLI_WINDOW, compressorMeasures } from "../compressor-measures.js";

export { BROTLI_QUALITY, BROTLI_WINDOW, LARGE } from "../compressor-measures.js";

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

/** Gzip size at level 9. */
export function gzipSize(b: Uint8Array): number {
  return gzipSync(b, { level: 9 }).length;
}

export const nodeMeasures = compressorMeasures({ gzip9: gzipSize, brotli: brotliAt });

/** The real brotli measure: quality 11, window 22, at every size. */
export function brotliSize(b: Uint8Array): number {
  return brotliAt(b, BROTLI_QUALITY);
}
