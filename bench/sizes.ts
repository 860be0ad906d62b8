// The four sizes the benchmark reports for a module: the whole file, its code
// section, gzip -9 and brotli quality 11.

import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { scanSections, sectionBytes } from "../src/report.js";

export interface Sizes {
  /** Whole file, bytes. */
  file: number;
  /** Code section including its id byte and size LEB128. */
  code: number;
  /** gzip, level 9 (node:zlib, default window and memory level). */
  gzip: number;
  /** brotli, quality 11, the library's default window 2^22 (Node's zlib default; the optimizer's promise is made on it). */
  brotli: number;
}

export const SIZES_METHOD =
  "file = bytes on disk; code = code section (id byte + size LEB128 + payload, from our section scan); " +
  "gzip = node:zlib gzipSync level 9; brotli = node:zlib brotliCompressSync quality 11, lgwin 22 " +
  "(the library's default window, as Node and most servers use; below 4 MiB windows 22 and 24 give the same size on every corpus file). " +
  "Where our output lacks debug sections of the baseline (DWARF, sourceMappingURL: removed because the code they describe changed; " +
  "wasm-opt -Oz leaves them stale), its ratios are against the baseline without them (comparedTo), so they show what the passes saved";

export function measureSizes(bytes: Uint8Array): Sizes {
  return {
    file: bytes.length,
    code: sectionBytes(scanSections(bytes), 10),
    gzip: gzipSize(bytes),
    brotli: brotliSize(bytes),
  };
}

export function gzipSize(bytes: Uint8Array): number {
  return gzipSync(bytes, { level: 9 }).length;
}

export function brotliSize(bytes: Uint8Array): number {
  return brotliCompressSync(bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: constants.BROTLI_DEFAULT_WINDOW,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_GENERIC,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  }).length;
}

/** Per-section sizes grouped by name ("code", "data", "custom:name" ...), for "where the bytes went". */
export function sectionBreakdown(bytes: Uint8Array): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of scanSections(bytes)) out[s.name] = (out[s.name] ?? 0) + s.size;
  return out;
}
