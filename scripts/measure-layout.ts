// Measures the layout pass alone: for each module (default: /work/oz/*.wasm,
// the wasm-opt -Oz outputs of the corpus), run only `layout` under each size
// target and print raw / gzip / brotli before and after, the chosen order and
// the time the pass took.
//
//   node build/scripts/measure-layout.js [--targets raw,gzip,brotli,balanced] [FILE ...]

import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { nodeMeasures } from "../src/cli/compress.js";
import { optimize } from "../src/pipeline.js";
import { SIZE_TARGETS, type SizeTarget } from "../src/size-target.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { targets: { type: "string", default: SIZE_TARGETS.join(",") }, dir: { type: "string", default: "/work/oz" } },
});
const targets = values.targets.split(",").map((t) => {
  if (!(SIZE_TARGETS as readonly string[]).includes(t)) throw new Error(`unknown target ${t}`);
  return t as SizeTarget;
});
const files = positionals.length
  ? positionals
  : readdirSync(values.dir).filter((f) => f.endsWith(".wasm")).sort().map((f) => join(values.dir, f));

const gz = nodeMeasures.gzip!;
const br = nodeMeasures.brotli!;
const d = (a: number, b: number): string => (b - a > 0 ? `+${b - a}` : `${b - a}`);
const total: Record<string, { raw: number; gz: number; br: number }> = {};

console.log(`| file | target | raw | gzip | brotli | Δraw | Δgzip | Δbrotli | order | ms |`);
console.log(`|---|---|---:|---:|---:|---:|---:|---:|---|---:|`);
for (const file of files) {
  const input = new Uint8Array(readFileSync(file));
  const before = { raw: input.length, gz: gz(input), br: br(input) };
  for (const target of targets) {
    const t0 = performance.now();
    const { binary, report } = optimize(input, { passes: ["layout"], target, measures: nodeMeasures });
    const passMs = report.passes[0]?.timeMs ?? 0;
    const wall = performance.now() - t0;
    const after = { raw: binary.length, gz: gz(binary), br: br(binary) };
    const note = report.passes[0]?.notes.join("; ") ?? "";
    const order = /order: ([a-z-]+)/.exec(note)?.[1] ?? "?";
    const undone = report.passes[0]?.kept === false ? " (undone)" : "";
    const t = (total[target] ??= { raw: 0, gz: 0, br: 0 });
    t.raw += after.raw - before.raw;
    t.gz += after.gz - before.gz;
    t.br += after.br - before.br;
    console.log(
      `| ${basename(file)} | ${target} | ${after.raw} | ${after.gz} | ${after.br} | ${d(before.raw, after.raw)} | ${d(before.gz, after.gz)} | ` +
        `${d(before.br, after.br)} | ${order}${undone} | ${Math.round(passMs)} (wall ${Math.round(wall)}) |`,
    );
  }
}
for (const [target, t] of Object.entries(total)) {
  console.log(`| **total** | ${target} | | | | ${d(0, t.raw)} | ${d(0, t.gz)} | ${d(0, t.br)} | | |`);
}
