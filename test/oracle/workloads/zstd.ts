// @bokuweb/zstd-wasm (Zstandard compiled with Emscripten): compression at
// negative, normal and ultra levels of text, binary, random and repetitive
// inputs; decompression; dictionary compression and decompression; corrupt
// and truncated frames. When the `zstd` command-line tool is installed, every
// frame the wasm writes must decode with it, and frames it writes must decode
// in the wasm (a cross-check only: the output never depends on the tool).
//
// The package reads zstd.wasm from its own folder (no option to pass bytes to
// its public init), so it runs from a copy in a temporary folder.

import { spawnSync } from "node:child_process";
import { corpusEntry } from "../../corpus/corpus.js";
import { attemptBytes, bytesOut, equalBytes, packageFile, randomBytes, requireFrom, skewedBytes, withTempDir, type TempDir } from "../util.js";
import type { Output, RunContext, Workload } from "../workload.js";

interface ZstdApi {
  init(): Promise<void>;
  compress(buf: Uint8Array, level?: number): Uint8Array;
  decompress(buf: Uint8Array, opts?: { defaultHeapSize?: number }): Uint8Array;
  createCCtx(): number;
  freeCCtx(cctx: number): unknown;
  compressUsingDict(cctx: number, buf: Uint8Array, dict: Uint8Array, level?: number): Uint8Array;
  createDCtx(): number;
  freeDCtx(dctx: number): unknown;
  decompressUsingDict(dctx: number, buf: Uint8Array, dict: Uint8Array, opts?: { defaultHeapSize?: number }): Uint8Array;
}

/**
 * A 2 KiB Zstandard-format dictionary (magic 0xEC30A437: entropy tables plus
 * content), made once with `zstd --train --maxdict=2048` (zstd 1.5.4) from
 * 300 slices of esbuild-wasm/lib/main.js. Unlike a raw-content dictionary it
 * makes the wasm load Huffman and FSE tables from the dictionary.
 */
const TRAINED_DICT_BASE64 =
  "N6Qw7EzAimI/EKAypenDMAzDMAzDMAzDMAwDYWNhse0L2+5u5E2WyG6ez+Zhps5b1tiGSO+Lh4Po7GzAUfXppwlxttjxsMYFwwAY" +
  "FB4dkOcTgjMAAATAB86Nh1AMiFOJLAmTFEhBCCFjFCJADAABgBkAAAAAALTSZ4OJICdJ5hBCRkYEBAAAAAAAAQAAAAQAAAAIAAAA" +
  "aW9uIHZhbGlkYXRlU3RyaW5nVmFsdWUodmFsdWUsIHdoYXQsIGtleSkgewogIGlmIGVsc2UgaWYgKHZhbHVlIGluc3RhbmNlb2Yg" +
  "QXJyYXkpIHsKICAgICAgYmIud3JpdGUgb25SZXNvbHZlKCkgY2FsbGJhY2sgaW4gcGx1Z2luICR7cXVvdGUobmFtZSl9IHRvIGVz" +
  "cGFjZSA9IGdldEZsYWcobG9jYXRpb24sIGtleXMsICJuYW1lc3BhY2UiLCBtdXN0LCBvcHRpb25zLCBpc1RUWTIsIHRyYW5zZm9y" +
  "bUxvZ0xldmVsRGVmYXVsdCk7CiAgICB3YXJuaW5ncywgIndhcm5pbmdzIiwgZGV0YWlscywgbmFtZSwgdm9pZCAwKTsKICAgIC5w" +
  "dXNoKHZhbHVlKTsKICAgIH0KICB9CiAgcmV0dXJuIHsKICAgIGVudHJpZXMsCiAgdGVtcEZpbGUsIGNhbGxiYWNrKSB7CiAgICB0" +
  "cnkgewogICAgICBsZXQgY29udGVudHNpbiBvdXRFeHRlbnNpb24pIHsKICAgICAgaWYgKGV4dC5pbmRleE9mKCI9IikgPj0gMCAg" +
  "ICAgIHN0YXRlU3RhY2sucHVzaChzdGF0ZSk7CiAgICAgICAgcHJvcGVydHkgPSBuIHZhbHVlICs9IGZyb21DaGFyQ29kZSgoYyAm" +
  "IDMxKSA8PCA2IHwgYnl0ZXNbaSsrXSAgICAgICAgIGxldCBrZXlzID0ge307CiAgICAgICAgICBsZXQgZXJyb3JzID0gZ2V0RiAg" +
  "ICB9IGVsc2UgewogICAgICAgICAgb2JqZWN0W3Byb3BlcnR5XSA9IHZhbHVlOwogICAgICAgICBzZW5kUmVxdWVzdChyZWZzLCBy" +
  "ZXF1ZXN0MiwgKGVycm9yMiwgcmVzcG8gIH0KICB9Owp9CmZ1bmN0aW9uIGV4dHJhY3RDYWxsZXJWOChlLCBzdHJlYW1JbiwgaSAg" +
  "ICB9KTsKICB9OwogIGxldCBhbmFseXplTWV0YWZpbGUyID0gKHsgY2FsbE5hbWUsIGtleXMsICJhbGlhcyIsIG11c3RCZU9iamVj" +
  "dCk7CiAgbGV0IGxvYWRlciA9IGdldEZiYWNrc1tpZF0gPSAoZXJyb3IsIHJlc3BvbnNlKSA9PiB7CiAgICAgIHRyeSB7CiAgIGBp" +
  "biAke2NhbGxOYW1lfSgpIGNhbGxgKTsKICAgIGxldCByZXF1ZXN0ID0gewogICAgZVBhdGhzLAogICAgICBjb250ZXh0OiBpc0Nv" +
  "bnRleHQKICAgIH07CiAgICBpZiAocmVVaW50OEFycmF5ID0gKHZhbHVlKSA9PiB0eXBlb2YgdmFsdWUgPT09ICJzdHJpbmciIHZl" +
  "UHJvcHMpfWApOwogIGlmIChtYW5nbGVRdW90ZWQgIT09IHZvaWQgMCkgZmxhZ3MuPSAobWVzc2FnZXMsIG9wdGlvbnMpID0+IGVu" +
  "c3VyZVNlcnZpY2VJc1J1bm5pbmcoKS42IC8qIERpZ2l0OCAqLzoKICAgICAgY2FzZSA1NyAvKiBEaWdpdDkgKi86IHsKICAgICAg" +
  "ICAgIH0gY2F0Y2ggKGUpIHsKICAgICAgICByZXNwb25zZS5lcnJvcnMucHVzaChlICAgbGV0IHBsdWdpbk5hbWUgPSBnZXRGbGFn" +
  "KHJlc3VsdCwga2V5cywgInBsdWdpbk5kZXhPZigiLCIpID49IDApIHRocm93IG5ldyBFcnJvcihgSW52YWxpZCAke3doYXR9OiAq" +
  "LykgewogICAgICAgICAgdGhyb3dTeW50YXhFcnJvcihieXRlcywgLS1pKTsKICAga2V5cywgImNvbG9yIiwgbXVzdEJlQm9vbGVh" +
  "bik7CiAgbGV0IGxvZ0xldmVsID0gZ2UgbXVzdEJlQXJyYXlPZlN0cmluZ3MpOwogICAgICAgICAgY2hlY2tGb3JJbnZhbGlkRiAg" +
  "ICAgIH0KICAgICAgICB2YWx1ZSA9IHRydWU7CiAgICAgICAgYnJlYWs7CiAgICAgID0gbmV4dEJ1aWxkS2V5Kys7CiAgICBjb25z" +
  "dCByZXF1ZXN0Q2FsbGJhY2tzID0ge31lKHdvcmtlcl90aHJlYWRzKTsKICAgIHJldHVybiB3b3JrZXJUaHJlYWRTZXJ2aWNlLm5n" +
  "cyAhPSBudWxsKSByZXNwb25zZS53YXJuaW5ncyA9IHNhbml0aXplTWVzc2FnZXMofWApOwogICAgICBmbGFncy5wdXNoKGAtLWRl" +
  "ZmluZToke2tleX09JHt2YWxpZGF0ZVNzKSA9PiB7CiAgICBmb3IgKGxldCBrZXkgaW4gcHJvcGVydGllcykgewogICAgICBvYmNh" +
  "dGNoIChlcnIpIHsKICAgICAgY2FsbGJhY2soZXJyLCBudWxsKTsKICAgIH0KICB9LCAiaW4iLCBtdXN0QmVTdHJpbmcpOwogICAg" +
  "ICAgICAgbGV0IG91dHB1dCA9IGdldEY=";

/** The zstd command-line tool, if installed: used only for cross-checks. */
function zstdCli(): ((args: string[], input: Uint8Array) => Uint8Array | null) | null {
  const probe = spawnSync("zstd", ["--version"], { encoding: "utf8" });
  if (probe.status !== 0) return null;
  return (args, input) => {
    const r = spawnSync("zstd", ["-q", ...args], { input, maxBuffer: 256 * 1024 * 1024 });
    return r.status === 0 ? new Uint8Array(r.stdout.buffer, r.stdout.byteOffset, r.stdout.length) : null;
  };
}

async function exercise(api: ZstdApi, ctx: RunContext, dir: TempDir): Promise<Output> {
  await api.init();
  const cli = zstdCli();
  const enc = new TextEncoder();
  const inputs: Record<string, Uint8Array> = {
    empty: new Uint8Array(0),
    one: new Uint8Array([0x7a]),
    unicode: enc.encode("Zstandard — Grüße, 世界! 😀 ".repeat(60)),
    dom: packageFile("typescript", "lib/lib.dom.d.ts").subarray(0, 500000),
    js: packageFile("esbuild-wasm", "lib/main.js"),
    skewed: skewedBytes(23, 300000),
    random: randomBytes(29, 60000),
    zeros: new Uint8Array(200000),
  };
  const out: Record<string, Output> = {};

  const levels = [-7, -1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 17, 19, 20, 22];
  const compressed: Record<string, Output> = {};
  for (const [name, data] of Object.entries(inputs)) {
    const row: Output[] = [];
    for (const level of levels) {
      if (level >= 17 && data.length > 100000) continue; // the slowest levels only on the smaller inputs
      const c = api.compress(data, level);
      row.push(`${level}: ${bytesOut(c)}`);
      const d = api.decompress(c);
      ctx.check(equalBytes(d, data), `${name} level ${level} does not round-trip`);
      if (cli && (level === 1 || level === 9 || level === 19 || level === -7)) {
        const viaCli = cli(["-d", "-c"], c);
        ctx.check(viaCli !== null && equalBytes(viaCli, data), `zstd (the CLI) cannot decode ${name} level ${level}`);
      }
    }
    compressed[name] = row;
  }
  out.compressed = compressed;

  // Frames from the reference implementation, decoded in the wasm (cross-check only).
  if (cli) {
    for (const name of ["dom", "js", "skewed", "unicode"]) {
      const data = inputs[name]!;
      const file = dir.write(`cli-${name}.bin`, data);
      for (const args of [["-1"], ["-6"], ["-19"], ["--fast=3"], ["-3", "--long=24"]]) {
        const c = cli([...args, "-c", file], new Uint8Array(0));
        const d = c ? attemptBytes(() => api.decompress(c)) : "zstd CLI failed";
        ctx.check(d === bytesOut(data), `the wasm does not decode the zstd CLI's ${name} ${args.join(" ")}: ${String(d)}`);
      }
    }
  }

  // Dictionaries (raw content): many small messages that share vocabulary.
  const dictText = inputs.js!.subarray(0, 16384);
  const cctx = api.createCCtx();
  const dctx = api.createDCtx();
  const withDict: Output[] = [];
  const text = new TextDecoder().decode(inputs.js!);
  for (let i = 0; i < 40; i++) {
    const msg = enc.encode(text.slice(20000 + i * 997, 20000 + i * 997 + 200 + ((i * 131) % 1500)));
    for (const level of [1, 3, 9, 19]) {
      const c = api.compressUsingDict(cctx, msg, dictText, level);
      withDict.push(bytesOut(c));
      ctx.check(equalBytes(api.decompressUsingDict(dctx, c, dictText), msg), `dictionary message ${i} level ${level} does not round-trip`);
    }
  }
  out.dictionary = withDict;

  // The same with a trained (Zstandard-format) dictionary.
  const trained = new Uint8Array(Buffer.from(TRAINED_DICT_BASE64, "base64"));
  const trainedFile = cli ? dir.write("trained.dict", trained) : "";
  const withTrained: Output[] = [];
  for (let i = 0; i < 40; i++) {
    const msg = enc.encode(text.slice(30000 + i * 1013, 30000 + i * 1013 + 150 + ((i * 211) % 1800)));
    for (const level of [-3, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 19, 22]) {
      const c = api.compressUsingDict(cctx, msg, trained, level);
      withTrained.push(bytesOut(c));
      ctx.check(equalBytes(api.decompressUsingDict(dctx, c, trained), msg), `trained-dictionary message ${i} level ${level} does not round-trip`);
      if (cli && i % 10 === 0) {
        const viaCli = cli(["-d", "-c", "-D", trainedFile], c);
        ctx.check(viaCli !== null && equalBytes(viaCli, msg), `zstd (the CLI) cannot decode trained-dictionary message ${i} level ${level}`);
      }
    }
  }
  if (cli) {
    const msg = enc.encode(text.slice(41000, 43000));
    const c = cli(["-5", "-c", "-D", trainedFile], msg);
    ctx.check(c !== null && attemptBytes(() => api.decompressUsingDict(dctx, c, trained)) === bytesOut(msg), "the wasm does not decode the zstd CLI's trained-dictionary frame");
  }
  api.freeCCtx(cctx);
  api.freeDCtx(dctx);
  out.trainedDictionary = withTrained;

  // Corrupt, truncated and unusual frames: the error codes come from the wasm.
  const good = api.compress(inputs.js!, 5);
  const odd: Output[] = [];
  odd.push(attemptBytes(() => api.decompress(good.subarray(0, good.length - 7))));
  for (const at of [0, 5, 40, good.length >> 1, good.length - 3]) {
    const bad = good.slice();
    bad[at] = bad[at]! ^ 0x21;
    odd.push(attemptBytes(() => api.decompress(bad)));
  }
  odd.push(attemptBytes(() => api.decompress(randomBytes(31, 3000))));
  const two = new Uint8Array(good.length * 2);
  two.set(good);
  two.set(good, good.length);
  odd.push(attemptBytes(() => api.decompress(two, { defaultHeapSize: 4 << 20 })));
  const dictFrame = api.compressUsingDict(api.createCCtx(), inputs.unicode!, dictText, 3);
  odd.push(attemptBytes(() => api.decompress(dictFrame))); // needs the dictionary
  out.unusual = odd;
  return out;
}

export const workload: Workload = {
  name: "zstd-wasm",
  size: "small",
  description: "Zstandard: levels -7..22 on text/binary/random inputs, dictionaries, corrupt and multi-frame input; vs the zstd CLI when installed",
  wasm: () => [{ name: "zstd", bytes: corpusEntry("zstd").bytes() }],
  async run(wasm, ctx) {
    return withTempDir("zstd", async (dir) => {
      dir.copyFromPackage("@bokuweb/zstd-wasm", "dist/common", "common");
      dir.write("package.json", JSON.stringify({ type: "commonjs" }));
      dir.write("common/zstd.wasm", wasm[0]!);
      const api = requireFrom<ZstdApi>(dir.file("common/index.node.js"));
      return exercise(api, ctx, dir);
    });
  },
};
