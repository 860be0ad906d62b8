// The compressors of the playground's worker. The measures the optimizer
// judges by must be the CLI's, byte for byte, or the page would write other
// output than the CLI. gzip level 9 is pako, a port of zlib's deflate (the
// same streams as Node's zlib). Brotli is Google's C encoder at v1.1.0, the
// version in Node 20's zlib, compiled to wasm (brotli/: size.c, build.sh):
// on the fixtures its sizes at qualities 5, 9 and 11 equal Node's (270 of
// 270). The npm encoders do not fit: brotli-wasm, a port of the Rust crate,
// gives other sizes (206 of 270 differ), and the `brotli` package's build of
// the C encoder is JavaScript (wasm2js), far slower (58 s for the 8 quality-11
// runs of one 34 KB fixture's optimization, on a loaded machine).
// The browser's own CompressionStream is async and has no level to choose,
// so it only fills a row of the size table.

import { gzip } from "pako";
import brotliWasm from "brotli-size-wasm";
import type { Compressors } from "../src/compressor-measures.js";

interface BrotliExports {
  memory: WebAssembly.Memory;
  _initialize(): void;
  alloc(n: number): number;
  release(p: number): void;
  brotli_size(p: number, n: number, quality: number, lgwin: number): number;
}

/** Instantiates the brotli encoder. */
export async function loadCompressors(): Promise<Compressors> {
  // the encoder calls nothing of WASI but exit on an abort
  const wasi = { proc_exit: (code: number) => { throw new Error(`brotli encoder: exit(${code})`); } };
  const { instance } = await WebAssembly.instantiate(brotliWasm as Uint8Array<ArrayBuffer>, { wasi_snapshot_preview1: wasi });
  const e = instance.exports as unknown as BrotliExports;
  e._initialize();
  const brotli = (bytes: Uint8Array, quality: number, lgwin: number): number => {
    const p = e.alloc(bytes.length);
    if (p === 0) throw new Error(`brotli encoder: out of memory for ${bytes.length} bytes`);
    try {
      new Uint8Array(e.memory.buffer).set(bytes, p); // a fresh view: malloc may have grown the memory
      const n = e.brotli_size(p, bytes.length, quality, lgwin);
      if (n < 0) throw new Error(`brotli encoder failed on ${bytes.length} bytes`);
      return n;
    } finally {
      e.release(p);
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
