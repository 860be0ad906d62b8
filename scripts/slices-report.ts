// What the slices pass (issue 15) would find and save, per file, without
// changing anything: criteria tried, refusals by reason, slices found by
// stage a (straight-line) and stage b (through ifs: how many go through a γ
// or an if's value), classes, and the bytes the exact model projects for
// stage a and stage b, for the greedy choice and for the paper's preset, and
// for cold code only. Usage (after tsc into dist):
//   nice -n 19 node dist/scripts/slices-report.js [--max-bytes N] [--idioms K] FILE.wasm...

import { readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { OPS } from "../src/binary/opcodes/index.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { chooseClasses, classesOf, PAPER_PRESET, type ChosenClass } from "../src/passes/slices/cost.js";
import { findSlices } from "../src/passes/slices/find.js";
import { STAGE_A } from "../src/passes/slices/identify.js";
import { staticHotCode } from "../src/profile/static-hot.js";

const args = process.argv.slice(2);
let maxBytes = Infinity;
let idioms = 0;
const files: string[] = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  if (a === "--max-bytes") maxBytes = Number(args[++i]);
  else if (a === "--idioms") idioms = Number(args[++i]);
  else files.push(a);
}

/** Criteria with a slice (a slice through an if comes with its straight-line alternative). */
const sliced = (found: { occurrences: readonly { slice: { func: number; criterion: number } }[] }): number =>
  new Set(found.occurrences.map((o) => `${o.slice.func}:${o.slice.criterion}`)).size;
const sum = (cs: readonly ChosenClass[], f: (c: ChosenClass) => number): number => cs.reduce((s, c) => s + f(c), 0);
/** A class's function body as text, for the idioms list. */
const text = (c: ChosenClass): string => {
  const b = c.cls.canon.body;
  const out: string[] = [];
  for (let i = 0; i < b.count - 1; i++) {
    const w = Array.from(b.imm.subarray(b.immStart[i]!, b.immStart[i + 1]!));
    out.push(OPS[b.ops[i]!]!.name + (w.length ? " " + w.join(" ") : ""));
  }
  const via = c.occs.some((o) => o.slice.phis.length > 0) ? " [via φ γ]" : c.occs.some((o) => o.slice.constructs.length > 0) ? " [via if value]" : "";
  return `(${c.cls.canon.params.length} params)${via} ${out.join("; ")}`;
};

const head = ["file", "bytes", "criteria", "impure", "construct", "stop-moved", "too-big", "a:slices", "a:saved", "b:slices", "via-if", "classes", "merged", "exact:classes", "calls", "saved", "b-only", "preset:classes", "calls", "saved", "cold:slices", "classes", "calls", "saved", "ms"];
console.log(head.join("\t"));
const total = { criteria: 0, slicesA: 0, savedA: 0, slices: 0, viaIf: 0, saved: 0, bOnly: 0, preset: 0, cold: 0, bytes: 0 };
const best: { file: string; c: ChosenClass }[] = [];
for (const f of files) {
  const size = statSync(f).size;
  if (size > maxBytes) continue;
  const t0 = performance.now();
  const m = readModule(new Uint8Array(readFileSync(f)));
  decodeAllBodies(m);
  const foundA = findSlices(m, undefined, STAGE_A);
  const exactA = chooseClasses(m, classesOf(foundA.occurrences));
  const found = findSlices(m);
  const classes = classesOf(found.occurrences);
  const exact = chooseClasses(m, classes);
  const preset = chooseClasses(m, classes, PAPER_PRESET);
  // the pipeline's hot-code rule without a profile: criteria the static estimate calls hot are left alone
  const cold = findSlices(m, staticHotCode(m).hot);
  const coldChosen = chooseClasses(m, classesOf(cold.occurrences));
  const ms = performance.now() - t0;
  const r = found.refused;
  const bOnly = exact.filter((c) => c.occs.some((o) => o.slice.phis.length + o.slice.constructs.length > 0));
  console.log([basename(f).slice(0, 32), size, found.criteria, r.impure, r.construct, r["stop-moved"], r["too-big"] + r.other,
    foundA.occurrences.length, sum(exactA, (c) => c.benefit), sliced(found), found.throughIfs, classes.length,
    classes.filter((c) => c.occs.length > 1).length, exact.length, sum(exact, (c) => c.occs.length), sum(exact, (c) => c.benefit), sum(bOnly, (c) => c.benefit),
    preset.length, sum(preset, (c) => c.occs.length), sum(preset, (c) => c.benefit),
    cold.occurrences.length, coldChosen.length, sum(coldChosen, (c) => c.occs.length), sum(coldChosen, (c) => c.benefit), ms.toFixed(0)].join("\t"));
  total.criteria += found.criteria;
  total.slicesA += foundA.occurrences.length;
  total.savedA += sum(exactA, (c) => c.benefit);
  total.slices += sliced(found);
  total.viaIf += found.throughIfs;
  total.saved += sum(exact, (c) => c.benefit);
  total.bOnly += sum(bOnly, (c) => c.benefit);
  total.preset += sum(preset, (c) => c.benefit);
  total.cold += sum(coldChosen, (c) => c.benefit);
  total.bytes += size;
  for (const c of exact) best.push({ file: basename(f).slice(0, 24), c });
}
console.log(`total: ${files.length} files, ${total.bytes} bytes, ${total.criteria} criteria; stage a: ${total.slicesA} slices, exact model saves ${total.savedA} B; stage b: ${total.slices} slices (${total.viaIf} through ifs), exact model saves ${total.saved} B (${((100 * total.saved) / Math.max(1, total.bytes)).toFixed(3)} %; classes with a slice through an if: ${total.bOnly} B), the paper's preset ${total.preset} B; cold code only (static hot rule) ${total.cold} B`);
if (idioms > 0) {
  best.sort((a, b) => b.c.benefit - a.c.benefit);
  for (const { file, c } of best.slice(0, idioms)) console.log(`${c.benefit} B\t${c.occs.length} calls\t${file}\t${text(c)}`);
}
