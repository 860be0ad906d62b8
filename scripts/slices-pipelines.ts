// What the slices pass does inside whole pipelines, per file and size
// target: raw, gzip -9 and brotli q11 bytes of each configuration, what
// slices made (functions, call sites) and its share of the pipeline's time.
// Configurations (name=comma-separated passes; "default" is the target's
// default pipeline, "default+slices" the same with slices right after
// outline): by default default, default+slices, slices, outline,
// outline+slices and three orders of outline, slices and merge-functions.
// Usage (after tsc into dist):
//   nice -n 19 node dist/scripts/slices-pipelines.js [--targets raw,balanced] [--configs "a=outline,slices;b=..."] [--hot] FILE.wasm...
// --hot lets call-adding passes rewrite hot code (outlineHot), as the slices-report's exact column assumes.

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { optimize } from "../src/pipeline.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { defaultPipeline, defaultPipelineWith } from "../src/passes/registry.js";
import type { SizeTarget } from "../src/size-target.js";

const args = process.argv.slice(2);
let targets: SizeTarget[] = ["raw", "balanced"];
let configs = [
  "default=default",
  "default+slices=default+slices",
  "slices=slices",
  "outline=outline",
  "outline+slices=outline,slices",
  "o-s-m=outline,slices,merge-functions",
  "m-o-s=merge-functions,outline,slices",
  "s-o-m=slices,outline,merge-functions",
];
let hot = false;
const files: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  if (a === "--targets") targets = args[++i]!.split(",") as SizeTarget[];
  else if (a === "--configs") configs = args[++i]!.split(";");
  else if (a === "--hot") hot = true;
  else files.push(a);
}

function passesOf(spec: string, target: SizeTarget): string[] {
  if (spec === "default") return [...defaultPipeline(target)];
  if (spec === "default+slices") return defaultPipelineWith(target, "slices");
  return spec.split(",");
}

console.log(["file", "target", "config", "raw", "gzip", "brotli", "slice-fns", "calls", "slices-ms", "total-ms"].join("\t"));
for (const f of files) {
  const input = new Uint8Array(readFileSync(f));
  console.log([basename(f).slice(0, 28), "-", "input", input.length, nodeMeasures.gzip!(input), nodeMeasures.brotli!(input), "-", "-", "-", "-"].join("\t"));
  for (const target of targets) {
    for (const c of configs) {
      const [name, spec] = c.split("=") as [string, string];
      const t0 = performance.now();
      const { binary, report } = optimize(input, { passes: passesOf(spec, target), target, measures: nodeMeasures, outlineHot: hot });
      const ms = performance.now() - t0;
      const s = report.passes.find((p) => p.name === "slices");
      console.log([basename(f).slice(0, 28), target, name, binary.length, nodeMeasures.gzip!(binary), nodeMeasures.brotli!(binary),
        s && s.kept ? (s.stats.functions ?? 0) : "-", s && s.kept ? (s.stats.callSites ?? 0) : "-", s ? s.timeMs.toFixed(0) : "-", ms.toFixed(0)].join("\t"));
    }
  }
}
