// Measures fold-blocks on wasm-opt -Oz outputs: code-section bytes saved and
// the gzip/brotli change of the whole file, per size target.
//
//   node build-foldblocks/scripts/measure-fold-blocks.js [--with-fold-functions] [--targets raw,balanced] [files...]
// Default files: /work/oz/*.wasm.

import { readFileSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { gzipSync, brotliCompressSync, constants } from "node:zlib";
import { optimize } from "../src/pipeline.js";
import { nodeMeasures } from "../src/cli/compress.js";
import type { SizeTarget } from "../src/size-target.js";

const args = process.argv.slice(2);
const withFF = args.includes("--with-fold-functions");
const ti = args.indexOf("--targets");
const targets = (ti >= 0 ? args[ti + 1]! : "raw,balanced").split(",") as SizeTarget[];
const files = args.filter((a, k) => !a.startsWith("--") && (ti < 0 || k !== ti + 1));
const dir = "/work/oz";
const inputs = files.length > 0 ? files : readdirSync(dir).filter((f) => f.endsWith(".wasm")).sort().map((f) => join(dir, f));

const gz = (b: Uint8Array) => gzipSync(b, { level: 9 }).length;
const br = (b: Uint8Array) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

const passes = withFF ? ["fold-functions", "fold-blocks"] : ["fold-blocks"];
const totals = new Map<SizeTarget, { code: number; gzip: number; brotli: number }>();
console.log(`passes: ${passes.join(",")}`);
console.log(["file", "target", "code before", "code saved", "gzip Δ", "brotli Δ", "folds", "sites", "ms"].join("\t"));
for (const path of inputs) {
  const input = new Uint8Array(readFileSync(path));
  const gz0 = gz(input);
  const br0 = br(input);
  for (const target of targets) {
    const t = performance.now();
    const { binary, report } = optimize(input, { passes, target, measures: nodeMeasures });
    const ms = Math.round(performance.now() - t);
    const fb = report.passes.find((p) => p.name === "fold-blocks")!;
    const saved = report.sizes.code.before - report.sizes.code.after;
    const dg = gz(binary) - gz0;
    const db = br(binary) - br0;
    const tot = totals.get(target) ?? { code: 0, gzip: 0, brotli: 0 };
    tot.code += saved;
    tot.gzip += dg;
    tot.brotli += db;
    totals.set(target, tot);
    const folds = fb.kept ? fb.stats.blocksFolded ?? 0 : `0 (undone)`;
    console.log([basename(path), target, report.sizes.code.before, saved, dg, db, folds, fb.kept ? fb.stats.sitesReplaced ?? 0 : 0, ms].join("\t"));
  }
}
for (const [target, t] of totals) console.log(`total ${target}: code saved ${t.code}, gzip Δ ${t.gzip}, brotli Δ ${t.brotli}`);
