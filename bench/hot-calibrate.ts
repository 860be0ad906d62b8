// How well the static frequency estimate (analysis/frequency.ts) predicts
// what really runs: per workload module, a profile of one run of the
// workload (recorded as the bench's profile-guided rows record it) against
// the code the estimate calls hot, for several coverage shares.
//
//   node dist/bench/hot-calibrate.js [--only NAME[,NAME]] [--coverage 0.9,0.99,...] [--json FILE]
//
// Per module and coverage it prints:
//   recall   share of the executed instructions (count × block length) that
//            lie in statically hot code: what the rule protects
//   missed   the largest executed share of one function left cold
//   hot      share of the module's instructions the estimate calls hot: what
//            the rule keeps away from outlining and merging
// and, for comparison, the share of instructions the profile's own 99 % rule
// calls hot. Profiles and -Oz baselines are cached under .cache/hot-calibrate.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { readModule, decodeAllBodies } from "../src/binary/reader.js";
import { parseProfile } from "../src/profile/profile.js";
import { staticHotCode } from "../src/profile/static-hot.js";
import { DEFAULT_MODEL, type FrequencyModel } from "../src/analysis/frequency.js";
import { hotCodeFromProfile } from "../src/profile/hot-code.js";
import { wasmOptCached } from "./binaryen.js";
import { detectFeatures } from "./features.js";
import { loadWorkloads } from "./runtime.js";
import { recordProfiles } from "./profile-guided.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));
const CACHE = join(ROOT, ".cache", "hot-calibrate");
/** wasm-opt's input and output files while it runs (the cache keeps only its results). */
const TMP = join(CACHE, "tmp");

interface Row {
  workload: string;
  module: string;
  coverage: string;
  model: string;
  recall: number;
  missedFunction: string;
  missedShare: number;
  hotShare: number;
  profileHotShare: number;
  instructions: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { only: { type: "string" }, coverage: { type: "string" }, json: { type: "string" }, model: { type: "string" } },
  });
  const only = values.only?.split(",") ?? null;
  // a share of estimated executed instructions, or "f:X" for everything estimated to run X+ times per entry
  // ("fl:X" also code in loops, "fle:X" also exports' own bodies as if in a loop: the default rule is fle:1.01)
  const coverages = (values.coverage ?? "0.9,0.99,0.999").split(",");
  const models: [string, FrequencyModel][] = [["default", DEFAULT_MODEL]];
  for (const spec of values.model?.split(";") ?? []) {
    // "name:key=value,key=value"
    const [name, kv] = spec.split(":");
    const m: Record<string, unknown> = { ...DEFAULT_MODEL };
    for (const p of (kv ?? "").split(",").filter(Boolean)) {
      const [k, v] = p.split("=");
      m[k!] = Number.isNaN(Number(v)) ? v : Number(v);
    }
    models.push([name!, m as unknown as FrequencyModel]);
  }
  mkdirSync(TMP, { recursive: true });
  const { loaded, errors } = await loadWorkloads();
  for (const e of errors) console.error(`warning: ${e}`);
  const rows: Row[] = [];
  for (const lw of loaded) {
    const w = lw.workload;
    if (only ? !only.includes(w.name) : w.size === "big") continue;
    const mods = w.wasm();
    const basePaths: string[] = [];
    for (const m of mods) {
      const base = await wasmOptCached(m.bytes, ["-Oz", ...detectFeatures(m.bytes).flags], join(CACHE, "oz"), TMP);
      const p = join(CACHE, `${w.name}.${m.name}.oz.wasm`);
      writeFileSync(p, base.bytes);
      basePaths.push(p);
    }
    const dir = join(CACHE, `${w.name}.profile`);
    let profiles: (string | null)[];
    const done = mods.map((_, i) => join(dir, `${i}.profile.json`));
    if (done.every((p) => existsSync(p))) profiles = done;
    else {
      mkdirSync(dir, { recursive: true });
      console.error(`recording a profile of ${w.name} ...`);
      profiles = await recordProfiles(lw, CLI, basePaths, mods.map(() => true), dir, 600_000);
    }
    for (const [i, m] of mods.entries()) {
      const bytes = new Uint8Array(readFileSync(basePaths[i]!));
      const profile = parseProfile(readFileSync(profiles[i]!, "utf8"));
      const mod = readModule(bytes);
      decodeAllBodies(mod);
      // executed instructions per defined function index, per instruction
      const nImp = mod.numImportedFuncs;
      const executed = new Map<number, Float64Array>();
      let total = 0;
      for (const pf of profile.functions) {
        const f = mod.functions[pf.origin - nImp]!;
        const ex = new Float64Array(f.body!.count);
        pf.blocks.forEach(([start, count], k) => {
          const end = k + 1 < pf.blocks.length ? pf.blocks[k + 1]![0] : ex.length;
          for (let x = start; x < end; x++) ex[x] = count;
          total += count * (end - start);
        });
        executed.set(pf.origin - nImp, ex);
      }
      const ph = hotCodeFromProfile(profile, bytes, mod);
      let profileHot = 0;
      let instructions = 0;
      mod.functions.forEach((f) => {
        instructions += f.body!.count;
        for (let x = 0; x < f.body!.count; x++) if (ph.hot.isHotInstruction(f, x)) profileHot++;
      });
      for (const [mname, model] of models) {
        for (const coverage of coverages) {
          const rule = coverage.startsWith("fle:")
            ? { minFrequency: Number(coverage.slice(4)), loops: true, exports: true }
            : coverage.startsWith("fl:")
            ? { minFrequency: Number(coverage.slice(3)), loops: true }
            : coverage.startsWith("f:")
              ? { minFrequency: Number(coverage.slice(2)) }
              : { coverage: Number(coverage) };
          const { hot, summary } = staticHotCode(mod, rule, model);
          let covered = 0;
          let missedShare = 0;
          let missedFunction = "";
          for (const [fi, ex] of executed) {
            const f = mod.functions[fi]!;
            let inHot = 0;
            let missed = 0;
            for (let x = 0; x < ex.length; x++) {
              if (hot.isHotInstruction(f, x)) inHot += ex[x]!;
              else missed += ex[x]!;
            }
            covered += inHot;
            if (missed / total > missedShare) {
              missedShare = missed / total;
              missedFunction = mod.names?.functions.get(fi + nImp) ?? `#${fi + nImp}`;
            }
          }
          rows.push({
            workload: w.name,
            module: m.name,
            coverage,
            model: mname,
            recall: total > 0 ? covered / total : 1,
            missedFunction,
            missedShare,
            hotShare: summary.hotInstructions / summary.instructions,
            profileHotShare: profileHot / instructions,
            instructions,
          });
        }
      }
    }
  }
  const pct = (x: number): string => `${(x * 100).toFixed(2)}%`;
  console.log("| workload | module | model | coverage | recall | worst cold function (share of executed) | static hot | profile hot |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.workload} | ${r.module} | ${r.model} | ${r.coverage} | ${pct(r.recall)} | ${r.missedFunction.slice(0, 40)} (${pct(r.missedShare)}) | ${pct(r.hotShare)} | ${pct(r.profileHotShare)} |`);
  }
  if (values.json) writeFileSync(values.json, JSON.stringify(rows, null, 2));
}

await main();
