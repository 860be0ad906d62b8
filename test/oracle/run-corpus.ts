// The behaviour oracle over the npm corpus: for each workload, optimize its
// module(s), run the workload once with the original modules and once with
// the optimized ones (each run in a fresh child process), and compare the two
// outputs exactly.
//
//   ok         the outputs are identical (and the workload's own cross-checks
//              against independent implementations passed);
//   DIFFERENT  the optimized modules behave differently: another output, a
//              failed cross-check, or a failure (trap, exception, crash) where
//              the original modules ran fine;
//   error      the oracle could not decide: the optimizer threw, or the
//              workload failed with the original modules.
//
// An optimized run that takes more than ten times as long as the original (and
// over a minute) is stopped and reported DIFFERENT: broken loops do not hang
// the oracle. With `engines` (node binaries, e.g. the running Node 20 and a
// Node 24 from bench/engines.ts) the modules are optimized once and both runs
// happen under each engine, one result per engine. Coverage mode instruments the modules instead of optimizing
// them and reports which functions each workload runs (coverage.ts).

import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { optimize } from "../../src/index.js";
import type { Pass, SizeMeasures, SizeTarget } from "../../src/index.js";
import type { ChildResult } from "./child.js";
import { firstDifference } from "./compare.js";
import { COVERAGE_DIR_ENV, COVERAGE_HOOK, instrument, readCoverageFolder } from "./coverage.js";
import { TempDir } from "./util.js";
import type { Workload } from "./workload.js";
import { WORKLOADS } from "./workloads/index.js";

export { firstDifference };

export type Status = "ok" | "DIFFERENT" | "error";

export interface ModuleResult {
  name: string;
  before: number;
  after: number;
  /** True when the optimized bytes are the original bytes. */
  unchanged: boolean;
  optimizeMs: number;
}

export interface ModuleCoverage {
  name: string;
  /** Defined functions in the module. */
  functions: number;
  /** Defined functions the workload executed; null if no instance of the module was observed. */
  executed: number | null;
  /** Bytes of function bodies in the module, and in the executed functions (null: not observed). */
  codeBytes: number;
  executedCodeBytes: number | null;
}

export interface WorkloadResult {
  name: string;
  /** The engine both runs ran under, when CorpusOptions.engines named one ("node24"); absent: the running node. */
  engine?: string;
  size: "small" | "big";
  status: Status;
  /** For DIFFERENT and error: what differed or failed. */
  detail?: string;
  modules: ModuleResult[];
  /** Run times inside the child processes (milliseconds), when the runs happened. */
  originalMs?: number;
  optimizedMs?: number;
  /** CPU time of the two child processes during their runs (milliseconds). */
  originalCpuMs?: number;
  optimizedCpuMs?: number;
  /** In coverage mode: per module, how many defined functions the workload executed. */
  coverage?: ModuleCoverage[];
  /** Wall time for this workload, optimization and both runs included. */
  totalMs: number;
}

export interface CorpusOptions {
  /** Include the big workloads (esbuild). */
  all?: boolean;
  /** Run only these workloads (by name), whatever their size. */
  only?: readonly string[];
  /**
   * Optimize only the modules with these corpus names; the workload's other
   * modules run as they are in both runs (to find which module of a
   * multi-module workload behaves differently). Without `only`, selects the
   * workloads that have one of these modules, whatever their size.
   */
  modules?: readonly string[];
  /** Passes for `optimize` (names or Pass objects); default: none, the identity pipeline. */
  passes?: readonly (string | Pass)[];
  /** Size target for `optimize`, with the measures it needs (default: optimize's own, raw without measures). */
  target?: { target: SizeTarget; measures: SizeMeasures };
  /** `optimize`'s outlineHot: passes that add calls rewrite hot code too. */
  outlineHot?: boolean;
  /**
   * Coverage mode: instead of optimizing, instrument each module to record
   * which functions run (coverage.ts), run it against the original as usual
   * (the outputs must still be equal) and report function coverage.
   */
  coverage?: boolean;
  /** Run the original and the optimized run at the same time (default true). */
  parallel?: boolean;
  /**
   * Node binaries to run both runs under, each giving its own result (default: the running node, unnamed).
   * The modules are optimized once.
   */
  engines?: readonly { name: string; execPath: string }[];
  /** Time limit per child run, in milliseconds (default 20 minutes). */
  timeoutMs?: number;
  /**
   * The optimized run is stopped (and reported DIFFERENT) once it has taken
   * this many times as long as the original run, and at least a minute
   * (default 10).
   */
  slowdownFactor?: number;
  /** Called with each workload's result as soon as it is known. */
  onResult?: (r: WorkloadResult) => void;
  /** Called when a workload starts (for progress output). */
  onStart?: (w: Workload) => void;
}

/** The workloads a run selects: small ones by default, all with `all`, or exactly `only`. */
export function selectWorkloads(options: Pick<CorpusOptions, "all" | "only" | "modules">): Workload[] {
  if (options.modules && options.modules.length > 0) {
    const wanted = new Set(options.modules);
    const candidates = options.only && options.only.length > 0 ? selectWorkloads({ only: options.only }) : WORKLOADS;
    const found = new Set<string>();
    const out = candidates.filter((w) => {
      const names = w.wasm().map((m) => m.name);
      for (const n of names) if (wanted.has(n)) found.add(n);
      return names.some((n) => wanted.has(n));
    });
    const missing = [...wanted].filter((n) => !found.has(n));
    if (missing.length > 0) throw new Error(`no selected workload uses module${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`);
    return out;
  }
  if (options.only && options.only.length > 0) {
    const known = new Set(WORKLOADS.map((w) => w.name));
    const unknown = options.only.filter((n) => !known.has(n));
    if (unknown.length > 0) {
      throw new Error(`unknown workload${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${[...known].join(", ")})`);
    }
    return WORKLOADS.filter((w) => options.only!.includes(w.name));
  }
  return WORKLOADS.filter((w) => options.all || w.size === "small");
}

const CHILD = fileURLToPath(new URL("./child.js", import.meta.url));

interface RunOutcome {
  result: ChildResult;
  stderr: string;
}

function tail(s: string, n = 800): string {
  const t = s.trim();
  return t.length <= n ? t : "…" + t.slice(t.length - n);
}

interface ChildRun {
  done: Promise<RunOutcome>;
  /** Kills the child if it is still running `ms` milliseconds after its start (never extends the limit). */
  limitTo(ms: number, why: string): void;
}

/** Runs a workload once in a fresh child process with the given module files. */
function runChild(w: Workload, files: string[], resultFile: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env, execPath = process.execPath): ChildRun {
  const started = performance.now();
  const child = spawn(execPath, [...(w.nodeOptions ?? []), CHILD, w.name, resultFile, ...files], {
    stdio: ["ignore", "pipe", "pipe"],
    env,
  });
  let stderr = "";
  child.stdout.on("data", () => {});
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString("utf8");
    if (stderr.length > 64 * 1024) stderr = stderr.slice(stderr.length - 32 * 1024);
  });
  let killedBecause: string | null = null;
  let closed = false;
  let limit = timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number, why: string): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      killedBecause = why;
      child.kill("SIGKILL");
    }, Math.max(0, started + ms - performance.now()));
  };
  arm(timeoutMs, `timed out after ${Math.round(timeoutMs / 1000)} s`);
  const done = new Promise<RunOutcome>((resolve) => {
    child.on("close", (code, signal) => {
      closed = true;
      if (timer) clearTimeout(timer);
      let result: ChildResult;
      try {
        if (killedBecause !== null) throw new Error("killed");
        result = JSON.parse(readFileSync(resultFile, "utf8")) as ChildResult;
      } catch {
        const why = killedBecause ?? `exited with ${signal ?? `code ${code}`} without a result`;
        result = { ok: false, error: `the child process ${why}${stderr.trim() ? `; stderr: ${tail(stderr)}` : ""}`, problems: [], ms: performance.now() - started, cpuMs: 0 };
      }
      resolve({ result, stderr });
    });
  });
  return {
    done,
    limitTo(ms, why) {
      if (!closed && ms < limit) {
        limit = ms;
        arm(ms, why);
      }
    },
  };
}

/**
 * How long the optimized run may take once the original run's time is known:
 * a broken optimization can turn a loop into an endless one.
 */
function slowdownLimit(originalMs: number, factor: number): number {
  return Math.max(60_000, originalMs * factor);
}

function describeError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** Optimizes, runs and compares one workload (under the first of `options.engines`, or the running node). */
export async function runWorkload(w: Workload, options: CorpusOptions = {}): Promise<WorkloadResult> {
  return (await runWorkloadOnEngines(w, { ...options, ...(options.engines ? { engines: options.engines.slice(0, 1) } : {}) }))[0]!;
}

/** Optimizes one workload's modules once, then runs and compares them under each engine: one result per engine. */
export async function runWorkloadOnEngines(w: Workload, options: CorpusOptions = {}): Promise<WorkloadResult[]> {
  const t0 = performance.now();
  const passes = options.passes ?? [];
  const timeoutMs = options.timeoutMs ?? 20 * 60 * 1000;
  const modules: ModuleResult[] = [];
  const engines = options.engines && options.engines.length > 0 ? options.engines : [null];
  let engine: { name: string; execPath: string } | null = null;
  const done = (status: Status, detail?: string, extra: Partial<WorkloadResult> = {}): WorkloadResult => ({
    name: w.name,
    ...(engine ? { engine: engine.name } : {}),
    size: w.size,
    status,
    ...(detail !== undefined ? { detail } : {}),
    modules,
    ...extra,
    totalMs: performance.now() - t0,
  });

  let originals;
  try {
    originals = w.wasm();
  } catch (e) {
    return [done("error", `could not get the original modules: ${describeError(e)}`)];
  }
  const dir = new TempDir(`oracle-${w.name.replace(/[^\w.-]/g, "_")}`);
  try {
    const origFiles: string[] = [];
    const optFiles: string[] = [];
    const bodySizes: number[][] = [];
    for (const [i, m] of originals.entries()) {
      const t = performance.now();
      let binary: Uint8Array;
      try {
        const skip = options.modules && options.modules.length > 0 && !options.modules.includes(m.name);
        if (skip) binary = m.bytes;
        else if (options.coverage) {
          const ins = instrument(m.bytes, i);
          binary = ins.bytes;
          bodySizes[i] = ins.bodySizes;
        } else binary = optimize(m.bytes, { passes, ...(options.target ?? {}), ...(options.outlineHot ? { outlineHot: true } : {}) }).binary;
      } catch (e) {
        modules.push({ name: m.name, before: m.bytes.length, after: m.bytes.length, unchanged: true, optimizeMs: performance.now() - t });
        return [done("error", `${options.coverage ? "instrumenting" : "optimizing"} ${m.name} failed: ${describeError(e)}`)];
      }
      const unchanged = binary.length === m.bytes.length && Buffer.compare(Buffer.from(binary), Buffer.from(m.bytes)) === 0;
      modules.push({ name: m.name, before: m.bytes.length, after: binary.length, unchanged, optimizeMs: performance.now() - t });
      origFiles.push(dir.write(`original/${i}-${m.name}.wasm`, m.bytes));
      optFiles.push(dir.write(`optimized/${i}-${m.name}.wasm`, binary));
    }

    const factor = options.slowdownFactor ?? 10;
    const compare = async (k: number, execPath: string): Promise<WorkloadResult> => {
      const limitOptimized = (run: ChildRun, orig: RunOutcome): void => {
        if (!orig.result.ok) return;
        const ms = slowdownLimit(orig.result.ms, factor);
        run.limitTo(ms, `was stopped after ${(ms / 1000).toFixed(0)} s, more than ${factor} times the original run's ${(orig.result.ms / 1000).toFixed(1)} s (or a minute)`);
      };
      const coverageDir = dir.file(`coverage-${k}`);
      let optEnv = process.env;
      if (options.coverage) {
        mkdirSync(coverageDir);
        const nodeOptions = `${process.env.NODE_OPTIONS ?? ""} --import=${COVERAGE_HOOK}`.trim();
        optEnv = { ...process.env, NODE_OPTIONS: nodeOptions, [COVERAGE_DIR_ENV]: coverageDir };
      }
      let orig: RunOutcome;
      let opt: RunOutcome;
      if (options.parallel ?? true) {
        const o = runChild(w, origFiles, dir.file(`original-${k}.json`), timeoutMs, process.env, execPath);
        const p = runChild(w, optFiles, dir.file(`optimized-${k}.json`), timeoutMs, optEnv, execPath);
        orig = await o.done;
        limitOptimized(p, orig);
        opt = await p.done;
      } else {
        orig = await runChild(w, origFiles, dir.file(`original-${k}.json`), timeoutMs, process.env, execPath).done;
        const p = runChild(w, optFiles, dir.file(`optimized-${k}.json`), timeoutMs, optEnv, execPath);
        limitOptimized(p, orig);
        opt = await p.done;
      }
      const extra: Partial<WorkloadResult> = { originalMs: orig.result.ms, optimizedMs: opt.result.ms, originalCpuMs: orig.result.cpuMs, optimizedCpuMs: opt.result.cpuMs };
      if (options.coverage) {
        const executed = await readCoverageFolder(coverageDir);
        extra.coverage = originals.map((m, i) => {
          const sizes = bodySizes[i] ?? [];
          const ran = executed[String(i)] ?? null;
          return {
            name: m.name,
            functions: sizes.length,
            executed: ran ? ran.length : null,
            codeBytes: sizes.reduce((a, b) => a + b, 0),
            executedCodeBytes: ran ? ran.reduce((a, f) => a + (sizes[f] ?? 0), 0) : null,
          };
        });
      }

      if (!orig.result.ok) return done("error", `the run with the original modules failed: ${orig.result.error}`, extra);
      if (orig.result.problems.length > 0) {
        return done("error", `cross-check failed with the original modules (the workload is wrong): ${orig.result.problems.join("; ")}`, extra);
      }
      if (!opt.result.ok) return done("DIFFERENT", `the run with the optimized modules failed: ${opt.result.error}`, extra);
      const diff = firstDifference(orig.result.output, opt.result.output);
      if (diff) return done("DIFFERENT", diff, extra);
      if (opt.result.problems.length > 0) return done("DIFFERENT", `cross-check failed with the optimized modules: ${opt.result.problems.join("; ")}`, extra);
      return done("ok", undefined, extra);
    };
    const results: WorkloadResult[] = [];
    for (const [k, e] of engines.entries()) {
      engine = e;
      results.push(await compare(k, e?.execPath ?? process.execPath));
    }
    return results;
  } finally {
    dir.remove();
  }
}

/** Runs the selected workloads one after the other. */
export async function runCorpus(options: CorpusOptions = {}): Promise<WorkloadResult[]> {
  const results: WorkloadResult[] = [];
  for (const w of selectWorkloads(options)) {
    options.onStart?.(w);
    for (const r of await runWorkloadOnEngines(w, options)) {
      results.push(r);
      options.onResult?.(r);
    }
  }
  return results;
}

function seconds(ms: number | undefined): string {
  return ms === undefined ? "-" : `${(ms / 1000).toFixed(2)}s`;
}

/** One line per workload: status, name, sizes, run times, and for DIFFERENT and error what went wrong. */
export function formatResult(r: WorkloadResult): string {
  const before = r.modules.reduce((s, m) => s + m.before, 0);
  const after = r.modules.reduce((s, m) => s + m.after, 0);
  const unchanged = r.modules.filter((m) => m.unchanged).length;
  const mods = `${r.modules.length} module${r.modules.length === 1 ? "" : "s"} ${before} -> ${after} B${unchanged === r.modules.length && r.modules.length > 0 ? " (bytes unchanged)" : ""}`;
  const head = `${r.status.padEnd(9)} ${(r.engine ? `${r.name} [${r.engine}]` : r.name).padEnd(16)} ${mods}; runs ${seconds(r.originalMs)} / ${seconds(r.optimizedMs)} (cpu ${seconds(r.originalCpuMs)} / ${seconds(r.optimizedCpuMs)}), total ${seconds(r.totalMs)}`;
  const cov = r.coverage
    ? `; functions run: ${r.coverage
        .map((c) =>
          c.executed === null || c.executedCodeBytes === null
            ? `${c.name} not observed`
            : `${c.name} ${c.executed}/${c.functions} (${((100 * c.executedCodeBytes) / Math.max(1, c.codeBytes)).toFixed(0)}% of code)`,
        )
        .join(", ")}`
    : "";
  return r.detail ? `${head}${cov} :: ${r.detail.replace(/\s*\n\s*/g, " ")}` : head + cov;
}

/** The summary line and the exit code for a list of results. */
export function summarize(results: readonly WorkloadResult[]): { line: string; exitCode: number } {
  const count = (s: Status): number => results.filter((r) => r.status === s).length;
  const ok = count("ok");
  const diff = count("DIFFERENT");
  const err = count("error");
  return {
    line: `${results.length} ${results.some((r) => r.engine !== undefined) ? "run" : "workload"}${results.length === 1 ? "" : "s"}: ${ok} ok, ${diff} DIFFERENT, ${err} error`,
    exitCode: diff + err > 0 ? 1 : 0,
  };
}

/** Writes results as JSON (for CI artifacts). */
export function writeResultsJson(path: string, results: readonly WorkloadResult[]): void {
  writeFileSync(path, JSON.stringify(results, null, 2) + "\n");
}
