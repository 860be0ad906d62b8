// brotli-wasm (Rust brotli via wasm-bindgen): one-shot compression at every
// quality 0..11 of text, binary, random and long-distance-repeat inputs,
// decompression, streaming compression and decompression with small buffers,
// corrupt input; cross-checked both ways with node:zlib's brotli (which must
// decode what the wasm encodes, and whose output, at window sizes 10..24 and
// every quality, the wasm must decode).
//
// The package ships three builds of the same Rust code, each its own corpus
// module: pkg.web (wasm handed over through its own `init(bytes)`), pkg.node
// (reads its .wasm next to its JS: run from a copy in a temporary folder) and
// pkg.bundler (an ES module that imports the .wasm: a copy, run with Node's
// --experimental-wasm-modules). The web build runs the full workload, the
// other two a shorter one.

import { constants, brotliCompressSync, brotliDecompressSync } from "node:zlib";
import { corpusEntry } from "../../corpus/corpus.js";
import { attemptBytes, bytesOut, equalBytes, importFresh, packageFile, randomBytes, requireFrom, skewedBytes, withTempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

interface StreamResult {
  buf: Uint8Array;
  code: number;
  input_offset: number;
  free(): void;
}
interface BrotliApi {
  compress(buf: Uint8Array, options?: { quality?: number }): Uint8Array;
  decompress(buf: Uint8Array): Uint8Array;
  CompressStream: new (quality?: number) => { compress(input: Uint8Array | undefined, outputSize: number): StreamResult; total_out(): number; free(): void };
  DecompressStream: new () => { decompress(input: Uint8Array, outputSize: number): StreamResult; total_out(): number; free(): void };
}
const SUCCESS = 1;
const NEEDS_MORE_INPUT = 2;
const NEEDS_MORE_OUTPUT = 3;

function u8(b: Buffer): Uint8Array {
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Inputs, all deterministic. */
function inputs(full: boolean): Record<string, Uint8Array> {
  const dom = packageFile("typescript", "lib/lib.dom.d.ts");
  const js = packageFile("esbuild-wasm", "lib/main.js");
  const enc = new TextEncoder();
  const out: Record<string, Uint8Array> = {
    empty: new Uint8Array(0),
    one: new Uint8Array([0x61]),
    unicode: enc.encode("Grüße, 世界! 😀🚀 ∑∞ — ".repeat(40)),
    js: js.subarray(0, full ? 120000 : 30000),
    random: randomBytes(7, full ? 100000 : 10000),
    zeros: new Uint8Array(full ? 300000 : 20000),
  };
  if (full) {
    out.dom = dom.subarray(0, 240000);
    out.skewed = skewedBytes(11, 200000);
    // A random block repeated 1.2 MB later: only a large window finds the repeat.
    const block = randomBytes(13, 600000);
    out.farRepeat = concat([block, skewedBytes(17, 600000), block]);
  }
  return out;
}

function streamCompress(api: BrotliApi, input: Uint8Array, quality: number, inChunk: number, outSize: number): Uint8Array {
  const s = new api.CompressStream(quality);
  const parts: Uint8Array[] = [];
  let offset = 0;
  try {
    while (offset < input.length) {
      const chunk = input.subarray(offset, Math.min(input.length, offset + inChunk));
      let used = 0;
      let code: number;
      do {
        const r = s.compress(chunk.subarray(used), outSize);
        parts.push(r.buf);
        used += r.input_offset;
        code = r.code;
        r.free();
      } while (code === NEEDS_MORE_OUTPUT);
      if (code !== NEEDS_MORE_INPUT) throw new Error(`CompressStream returned code ${code}`);
      offset += chunk.length;
    }
    let code: number;
    do {
      const r = s.compress(undefined, outSize);
      parts.push(r.buf);
      code = r.code;
      r.free();
    } while (code === NEEDS_MORE_OUTPUT);
    if (code !== SUCCESS) throw new Error(`CompressStream flush returned code ${code}`);
  } finally {
    s.free();
  }
  return concat(parts);
}

function streamDecompress(api: BrotliApi, input: Uint8Array, inChunk: number, outSize: number): Uint8Array {
  const s = new api.DecompressStream();
  const parts: Uint8Array[] = [];
  let offset = 0;
  let code = NEEDS_MORE_INPUT;
  try {
    while (code !== SUCCESS) {
      const chunk = input.subarray(offset, Math.min(input.length, offset + inChunk));
      let used = 0;
      do {
        const r = s.decompress(chunk.subarray(used), outSize);
        parts.push(r.buf);
        used += r.input_offset;
        code = r.code;
        r.free();
      } while (code === NEEDS_MORE_OUTPUT);
      offset += chunk.length;
      if (code === NEEDS_MORE_INPUT && offset >= input.length) throw new Error("DecompressStream wants more input at the end of the stream");
    }
  } finally {
    s.free();
  }
  return concat(parts);
}

function exercise(api: BrotliApi, ctx: RunContext, label: string, full: boolean): Output {
  const out: Record<string, Output> = {};
  const ins = inputs(full);

  // One-shot compression at every quality; every output must round-trip through the wasm and node:zlib.
  const compressed: Record<string, Output> = {};
  for (const [name, data] of Object.entries(ins)) {
    const row: Output[] = [];
    for (let q = 0; q <= 11; q++) {
      if (q >= 10 && data.length > 250000) continue; // q10/q11 take about 2 s per MB
      const c = api.compress(data, { quality: q });
      row.push(bytesOut(c));
      ctx.check(equalBytes(api.decompress(c), data), `${label}: ${name} q${q} does not round-trip through the wasm`);
      ctx.check(equalBytes(u8(brotliDecompressSync(c)), data), `${label}: node:zlib cannot decode ${name} q${q}`);
    }
    compressed[name] = row;
  }
  out.compressed = compressed;

  // Streams that node:zlib wrote with other window sizes and modes; the wasm must decode them.
  const fromZlib: Output[] = [];
  const zlibInputs = full ? (["js", "skewed", "random", "unicode", "farRepeat"] as const) : (["js", "unicode"] as const);
  for (const name of zlibInputs) {
    const data = ins[name]!;
    for (const [q, lgwin, mode] of [
      [0, 10, constants.BROTLI_MODE_GENERIC],
      [1, 16, constants.BROTLI_MODE_TEXT],
      [5, 18, constants.BROTLI_MODE_FONT],
      [9, 22, constants.BROTLI_MODE_TEXT],
      [4, 24, constants.BROTLI_MODE_GENERIC],
      [11, 24, constants.BROTLI_MODE_GENERIC],
    ] as const) {
      if (q === 11 && data.length > 250000) continue;
      const c = u8(
        brotliCompressSync(data, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: q,
            [constants.BROTLI_PARAM_LGWIN]: lgwin,
            [constants.BROTLI_PARAM_MODE]: mode,
            [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          },
        }),
      );
      const d = api.decompress(c);
      ctx.check(equalBytes(d, data), `${label}: the wasm does not decode node:zlib's ${name} q${q} lgwin${lgwin}`);
      fromZlib.push(`${name} q${q} w${lgwin}: ${bytesOut(d)}`);
    }
  }
  out.fromZlib = fromZlib;

  // Streaming with small buffers, through both directions.
  const streams: Output[] = [];
  const streamInputs = full ? (["dom", "skewed", "unicode", "random"] as const) : (["js", "unicode"] as const);
  for (const name of streamInputs) {
    const data = ins[name]!;
    for (const [q, inChunk, outSize] of [
      [3, 7919, 1000],
      [6, 65536, 4096],
      [11, 100000, 32768],
    ] as const) {
      if (q === 11 && data.length > 100000) continue;
      const c = streamCompress(api, data, q, inChunk, outSize);
      streams.push(`${name} q${q}: ${bytesOut(c)}`);
      ctx.check(equalBytes(u8(brotliDecompressSync(c)), data), `${label}: node:zlib cannot decode the streamed ${name} q${q}`);
      const d = streamDecompress(api, c, 1021, 777);
      ctx.check(equalBytes(d, data), `${label}: streamed ${name} q${q} does not round-trip`);
    }
  }
  const z = u8(brotliCompressSync(ins.js!, { params: { [constants.BROTLI_PARAM_QUALITY]: 7 } }));
  streams.push(`zlib js q7 streamed: ${bytesOut(streamDecompress(api, z, 333, 512))}`);
  out.streams = streams;

  // Corrupt and truncated input: the error messages come from the wasm.
  const good = api.compress(ins.js!, { quality: 5 });
  const corrupt: Output[] = [];
  corrupt.push(attemptBytes(() => api.decompress(good.subarray(0, good.length >> 1))));
  for (const at of [0, 3, 17, good.length >> 2, good.length - 2]) {
    const bad = good.slice();
    bad[at] = bad[at]! ^ 0x5a;
    corrupt.push(attemptBytes(() => api.decompress(bad)));
  }
  corrupt.push(attemptBytes(() => api.decompress(randomBytes(99, 5000))));
  corrupt.push(attemptBytes(() => api.decompress(new Uint8Array(0))));
  out.corrupt = corrupt;
  return out;
}

export const workload: Workload = {
  name: "brotli-wasm",
  size: "small",
  description: "Brotli: qualities 0..11 on text/binary/random/1.8 MB far-repeat inputs, streams, corrupt input, vs node:zlib; web, node and bundler builds",
  nodeOptions: ["--experimental-wasm-modules", "--disable-warning=ExperimentalWarning"],
  wasm: () => ["brotli-web", "brotli-node", "brotli-bundler"].map((name) => ({ name, bytes: corpusEntry(name).bytes() })),
  async run(wasm, ctx) {
    return withTempDir("brotli", async (dir) => {
      dir.write("package.json", JSON.stringify({ type: "commonjs" }));

      // pkg.web: the wasm goes in through the package's own init(bytes).
      dir.copyFromPackage("brotli-wasm", "pkg.web");
      dir.write("pkg.web/package.json", JSON.stringify({ type: "module" }));
      const web = await importFresh<BrotliApi & { default: (input: Uint8Array) => Promise<unknown> }>(dir.file("pkg.web/brotli_wasm.js"));
      await web.default(wasm[0]!);
      const out: Record<string, Output> = { web: exercise(web, ctx, "web", true) };

      // pkg.node: loads brotli_wasm_bg.wasm from its own folder.
      dir.copyFromPackage("brotli-wasm", "pkg.node");
      dir.write("pkg.node/brotli_wasm_bg.wasm", wasm[1]!);
      const node = requireFrom<BrotliApi>(dir.file("pkg.node/brotli_wasm.js"));
      out.node = exercise(node, ctx, "node", false);

      // pkg.bundler: an ES module importing the wasm as a module.
      dir.copyFromPackage("brotli-wasm", "pkg.bundler");
      dir.write("pkg.bundler/package.json", JSON.stringify({ type: "module" }));
      dir.write("pkg.bundler/brotli_wasm_bg.wasm", wasm[2]!);
      const bundler = await importFresh<BrotliApi>(dir.file("pkg.bundler/brotli_wasm.js"));
      out.bundler = exercise(bundler, ctx, "bundler", false);
      return out;
    });
  },
};
