// The compressors of the playground's worker. The measures the optimizer
// judges by must be the CLI's, byte for byte, or the page would write other
// output than the CLI: gzip level 9 is pako (a port of zlib's deflate: the
// same streams as Node's zlib), brotli is Google's C encoder compiled by
// emscripten (the `brotli` package: the same streams as Node's brotli 1.1.0;
// brotli-wasm, a port of the Rust crate, gives other sizes). The browser's
// own CompressionStream is async and has no level to choose, so it only
// fills a row of the size table.

import { gzip } from "pako";
import createEncoder from "brotli-encoder";
import type { Compressors } from "../src/compressor-measures.js";

/** Loads the brotli encoder (its memory is allocated once, up front). */
export async function loadCompressors(): Promise<Compressors> {
  const m = await createEncoder();
  const brotli = (bytes: Uint8Array, quality: number, lgwin: number): number => {
    const cap = bytes.length + 1024; // brotli's worst-case growth is a few bytes per 64 KiB
    const input = m._malloc(bytes.length);
    const out = m._malloc(cap);
    const dict = m._malloc(1); // no dictionary: what brotli's own compress() passes
    try {
      if (!input || !out || !dict) throw new Error(`brotli encoder: out of memory for ${bytes.length} bytes`);
      m.HEAPU8.set(bytes, input);
      const n = m._encodeWithDictionary(quality, lgwin, 0, bytes.length, input, 0, dict, cap, out);
      if (n < 0) throw new Error(`brotli encoder failed on ${bytes.length} bytes`);
      return n;
    } finally {
      m._free(input);
      m._free(out);
      m._free(dict);
    }
  };
  return { gzip9: (bytes) => gzip(bytes, { level: 9 }).length, brotli };
}

/** Size of `bytes` through the browser's CompressionStream("gzip"). */
export async function streamGzipSize(bytes: Uint8Array): Promise<number> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

/** `f` remembered per array (the optimizer measures its input and result; the report asks again). */
export function memoByArray(f: (bytes: Uint8Array) => number): (bytes: Uint8Array) => number {
  const seen = new WeakMap<Uint8Array, number>();
  return (bytes) => {
    let n = seen.get(bytes);
    if (n === undefined) seen.set(bytes, (n = f(bytes)));
    return n;
  };
}
