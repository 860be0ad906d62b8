// Measures one pass on a set of modules: code-section bytes, whole-file raw,
// gzip and brotli before and after, time, and the geometric mean of the
// code-section ratio. Usage (after tsc into DIR):
//   node DIR/scripts/measure-pass.js [--pass outline] [--target raw] [--checked] FILE.wasm...

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { optimize } from "../src/pipeline.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { readModule } from "../src/binary/reader.js";
import type { SizeTarget } from "../src/size-target.js";

function codeSectionSize(bytes: Uint8Array): number {
  // walk the section headers: id, u32 size
  let p = 8;
  while (p < bytes.length) {
    const id = bytes[p++]!;
    let size = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[p++]!;
      size |= (b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) break;
    }
    if (id === 10) return size >>> 0;
    p += size >>> 0;
  }
  return 0;
}

const args = process.argv.slice(2);
let pass = "outline";
let target: SizeTarget = "raw";
let checked = false;
const files: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  if (a === "--pass") pass = args[++i]!;
  else if (a === "--target") target = args[++i] as SizeTarget;
  else if (a === "--checked") checked = true;
  else files.push(a);
}

const ratios: number[] = [];
console.log(["file", "code", "code'", "ratio", "raw", "raw'", "gzip", "gzip'", "brotli", "brotli'", "ms", "stats"].join("\t"));
for (const f of files) {
  const input = new Uint8Array(readFileSync(f));
  readModule(input);
  const t0 = performance.now();
  const { binary, report } = optimize(input, { passes: pass.split(","), target, measures: nodeMeasures, checked });
  const ms = performance.now() - t0;
  const c0 = codeSectionSize(input);
  const c1 = codeSectionSize(binary);
  const ratio = c0 > 0 ? c1 / c0 : 1;
  ratios.push(ratio);
  const g0 = nodeMeasures.gzip!(input);
  const g1 = nodeMeasures.gzip!(binary);
  const b0 = nodeMeasures.brotli!(input);
  const b1 = nodeMeasures.brotli!(binary);
  const stats = report.passes.map((p) => JSON.stringify(p.stats ?? {})).join(" ");
  console.log([basename(f), c0, c1, ratio.toFixed(4), input.length, binary.length, g0, g1, b0, b1, ms.toFixed(0), stats].join("\t"));
}
const geo = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / Math.max(1, ratios.length));
console.log(`geomean code ratio (${target}): ${geo.toFixed(4)} over ${ratios.length} files`);
