// The shape of bench/results/latest.json. Everything the markdown table and
// the HTML report show is computed from this, so the JSON is the record.

import type { FeatureInfo } from "./features.js";
import type { Sizes } from "./sizes.js";
import type { RatioInterval } from "./stats.js";
import type { Tiering } from "./engines.js";
import type { SizeTarget } from "../src/size-target.js";
import type { ExecutedWork } from "../src/profile/executed-work.js";

export interface SizeRatios {
  file: number;
  code: number;
  gzip: number;
  brotli: number;
}

/** wasm-compact's output under one size target (--targets). */
export interface TargetResult {
  target: SizeTarget;
  sizes: Sizes | null;
  /** sizes / baseline sizes (or comparedTo). */
  ratio: SizeRatios | null;
  /** The baseline's sizes without the debug sections this output lacks, when it lacks some (see SIZES_METHOD). */
  comparedTo?: Sizes;
  /** Wall time of the run, ms (for a --time-targets target: the median of the timed runs). */
  wallMs: number | null;
  /** For a --time-targets target: its runs against wasm-opt -Oz's (the default target's are FileResult.timing). */
  timing?: TimingComparison;
  error: string | null;
}

export interface ToolTiming {
  /** One entry per run, in the order run. */
  wallMs: number[];
  peakRssKiB: (number | null)[];
  cpuMs: (number | null)[];
  medianWallMs: number;
  medianPeakRssKiB: number | null;
}

export interface TimingComparison {
  reps: number;
  /** Input both tools ran on. */
  input: "baseline (-Oz output)";
  wasmOpt: ToolTiming;
  ours: ToolTiming;
  /** ours / wasm-opt, of the medians. */
  wallRatio: number;
  rssRatio: number | null;
}

export interface TargetTiming {
  files: number;
  geomeanWallRatio: number;
  maxWallRatio: number;
  /** The file with the largest ratio. */
  slowest: string;
}

export interface PassSummary {
  name: string;
  bytesBefore: number;
  bytesAfter: number;
  /** bytesBefore - bytesAfter (negative if the pass grew the module). */
  bytesSaved: number;
  timeMs: number;
  changed: boolean;
  kept: boolean;
  stats: Record<string, number>;
  notes: string[];
}

export interface BinaryenPassResult {
  /** Short label, e.g. "dfe" or "sandwich". */
  label: string;
  args: string[];
  sizes: Sizes | null;
  /** sizes / baseline sizes. */
  ratio: SizeRatios | null;
  wallMs: number | null;
  cached: boolean;
  error: string | null;
}

/** One optimized module of a runtime row: its sizes against the -Oz baseline. */
export interface ModuleSizes {
  module: string;
  sizes: Sizes;
  /** sizes / baseline sizes. */
  ratio: SizeRatios;
}

/**
 * How a runtime row's optimized modules were made (--runtime-targets,
 * --profile-guided). Absent in results from before those options, where
 * every row is the default target without a profile.
 */
export interface RuntimeVariant {
  target: SizeTarget;
  /** Optimized with a profile of this workload (recorded with the -Oz baseline instrumented). */
  profileGuided: boolean;
  /** The optimized modules (those in optimizedModules), in that order. */
  moduleSizes: ModuleSizes[];
  /** Profile-guided rows: every module is byte-identical to the same target's output without a profile. */
  identicalToStatic?: boolean;
  /** Profile-guided rows: what wasm-compact said about the profile (which blocks were hot), per module. */
  profileNotes?: string[];
  /** An A/A row (--aa): the optimized side is a byte-identical copy of the baseline (target and profileGuided say nothing). */
  aa?: boolean;
}

/** What a runtime row ran under (--engines, --tiering). Absent in results from before those options (the running node, default tiering). */
export interface RuntimeEngine {
  /** "node20", "node24". */
  engine: string;
  /** That binary's process.version and process.versions.v8. */
  engineVersion: string;
  v8: string;
  /** no-liftoff (node --no-liftoff: optimized code only) or default (V8's default tiering). */
  tiering: Tiering;
}

/** One engine x tiering mode x variant of the runtime rows: the geomean of their slowdowns and the worst one. */
export interface EngineSummary {
  engine: string;
  engineVersion: string;
  v8: string;
  tiering: Tiering;
  /** variantLabel: "balanced", "raw, profile-guided", "A/A" ... */
  variant: string;
  /** Rows measured (no error). */
  workloads: number;
  /** Geometric mean of the slowdown point estimates. */
  geomean: number;
  /** The row with the largest slowdown, with its 95 % interval. */
  worst: { workload: string; slowdown: RatioInterval };
}

export interface RuntimeResult extends Partial<RuntimeVariant>, Partial<RuntimeEngine> {
  workload: string;
  size: "small" | "big";
  description: string;
  /** Corpus names of the modules the workload loads. */
  modules: string[];
  /** The modules that differ between the two sides (the selected files); the rest are the -Oz baseline on both sides. */
  optimizedModules: string[];
  /**
   * One sample per process: the fastest of its timed runs (wall ms). baselineMs[i] and optimizedMs[i] form
   * pair i. The minimum is used because interference from other processes only ever adds time.
   */
  baselineMs: number[];
  optimizedMs: number[];
  /** The same for CPU time (user + system of the whole process during the run), ms. */
  baselineCpuMs: number[];
  optimizedCpuMs: number[];
  /** Untimed warm-up runs and timed runs inside each process (medians over the processes). */
  warmup: number;
  iterations: number;
  /** median over processes of optimized / baseline (wall time), with its 95 % interval. The stopping rule looks at this one and bestSlowdown. */
  slowdown: RatioInterval;
  /**
   * Fastest optimized process / fastest baseline process (wall time), with its
   * 95 % interval: the best of several fresh processes on each side. Optional:
   * results from before it was kept lack it.
   */
  bestSlowdown?: RatioInterval;
  /**
   * Per paired process (both sides in one process, in alternating rounds):
   * the median over its rounds of optimized / baseline (wall). Optional:
   * absent in results from before it was measured, empty in --quick runs.
   */
  pairedRatios?: number[];
  /** The median of pairedRatios with its 95 % bootstrap interval over the processes (see PAIRED_CI_METHOD). */
  pairedSlowdown?: RatioInterval;
  /** optimized / baseline (CPU time), with its 95 % interval: less sensitive to a busy machine, but not what a user waits for. */
  cpuSlowdown: RatioInterval;
  /** os.loadavg() (1, 5, 15 minutes) when the measurement started and ended: a busy machine widens intervals. */
  loadAverage: { start: number[]; end: number[] };
  /** Why the loop stopped: "ci" (interval within the target), "budget", "max-pairs" or "quick". */
  stoppedBy: string;
  budgetSeconds: number;
  /** True if every run of both modules produced the same output digest. */
  outputsEqual: boolean;
  /**
   * True if the optimized modules are byte-identical to the baseline: the
   * measurement is then an A/A run, and its spread is timing noise only.
   */
  identicalBytes: boolean;
  error: string | null;
}

/**
 * Executed work of one workload run, per variant (bench/work.ts): exact counts from instrumented runs, the same
 * for every engine and tiering mode. Absent in results from before it was measured.
 */
export interface WorkResult {
  workload: string;
  target?: SizeTarget;
  profileGuided?: boolean;
  aa?: boolean;
  optimizedModules: string[];
  identicalBytes: boolean;
  /** Summed over the optimized modules: the -Oz side (first of two recordings) and ours; null if a recording failed. */
  baseline: ExecutedWork | null;
  /** The -Oz side's second recording: where it differs from the first, the workload itself varies by that much (optional: absent in older results). */
  baselineAgain?: ExecutedWork | null;
  ours: ExecutedWork | null;
  /** The two recordings of the -Oz side gave the same counts. */
  deterministic: boolean;
  /** ours / -Oz: instructions and calls executed; and ours - -Oz calls. */
  instructionRatio: number | null;
  callRatio: number | null;
  addedCalls: number | null;
  error: string | null;
}

export interface FileResult {
  name: string;
  package: string;
  packageVersion: string;
  source: string;
  large: boolean;
  input: { bytes: number; sha256: string };
  features: FeatureInfo | null;
  baseline: {
    sha256: string;
    sizes: Sizes;
    sections: Record<string, number>;
    /** The -Oz run that produced the baseline (possibly an earlier, cached run). */
    ozRun: { wallMs: number; peakRssKiB: number | null; cached: boolean; when: string };
  } | null;
  ours: {
    sha256: string;
    sizes: Sizes;
    /** The baseline's sizes without the debug sections this output lacks, when it lacks some (see SIZES_METHOD). */
    comparedTo?: Sizes;
    sections: Record<string, number>;
    /** True if every timed run produced byte-identical output. */
    deterministic: boolean;
    /** True if the output is byte-identical to the baseline. */
    identicalToBaseline: boolean;
    keptInput: boolean;
    passes: PassSummary[];
    timings: Record<string, number>;
  } | null;
  /** ours / baseline. */
  ratio: SizeRatios | null;
  timing: TimingComparison | null;
  binaryenPasses: BinaryenPassResult[];
  /** One entry per size target asked for with --targets (absent in results from before that option). */
  targets?: TargetResult[];
  /** Names of the workloads (see BenchResults.runtime) that load this module. */
  workloads: string[];
  errors: string[];
}

export interface Summary {
  files: number;
  filesWithErrors: number;
  /** Geometric means of ours / baseline over the files that have both. */
  geomeanRatio: SizeRatios | null;
  totalBytes: { baseline: Sizes; ours: Sizes } | null;
  geomeanWallRatio: number | null;
  geomeanRssRatio: number | null;
  /** Geometric mean of Binaryen pass results / baseline, per label. */
  binaryenGeomean: Record<string, SizeRatios>;
  /**
   * Geometric mean of the runtime slowdown ratios (point estimates), over the workloads that ran, for the default
   * target without a profile (or, if --runtime-targets leaves it out, the first target given).
   */
  geomeanSlowdown: number | null;
  /** The same per runtime variant ("raw", "raw, profile-guided", "balanced · node24 default" ...; see rowLabel), in the order measured. */
  variantSlowdown?: Record<string, number>;
  /** Per engine x tiering mode x variant (absent in results from before --engines): geomean and worst slowdown. */
  engineSummary?: EngineSummary[];
  /** Geometric mean of ours / baseline per size target (--targets), over the files with a result for it. */
  targetGeomean?: Partial<Record<SizeTarget, SizeRatios>>;
  /** Time ratios (ours / wasm-opt -Oz, of the medians) per --time-targets target, over the files timed under it. */
  targetTiming?: Partial<Record<SizeTarget, TargetTiming>>;
  /** Bytes saved per pass, summed over files. */
  passTotals: { name: string; bytesSaved: number; timeMs: number; stats: Record<string, number> }[];
}

export interface BenchResults {
  schema: 1;
  tool: { name: "wasm-compact"; version: string };
  binaryen: string;
  node: string;
  platform: string;
  cpus: string;
  startedAt: string;
  durationSeconds: number;
  /** os.loadavg() at the start and the end of the run: timings on a busy machine are noisier. */
  loadAverage: { start: number[]; end: number[] };
  options: {
    quick: boolean;
    only: string[];
    reps: number;
    budgetSeconds: { small: number; big: number };
    targetHalfWidth: number;
    passes: string[] | null;
    cache: boolean;
    /** Size targets our tool ran under (--targets; absent in results from before that option). */
    targets?: SizeTarget[];
    /** Size targets the runtime was measured under (--runtime-targets), and whether with profiles too. */
    runtimeTargets?: SizeTarget[];
    /** Size targets whose runs were timed against wasm-opt -Oz (--time-targets; absent before that option: the default). */
    timeTargets?: SizeTarget[];
    profileGuided?: boolean;
    /** The engines the runtime rows ran under (--engines), resolved to binaries, and the tiering modes (--tiering). */
    engines?: { name: string; version: string; v8: string; source: string }[];
    tiering?: Tiering[];
    /** --aa: an A/A row per workload, engine and mode. */
    aa?: boolean;
  };
  methods: {
    sizes: string;
    features: string;
    timing: string;
    runtime: string;
    ci: string;
    binaryenPasses: string;
    /** How profile-guided rows were made (absent without --profile-guided). */
    profileGuided?: string;
    /** How the executed work was counted (absent without it). */
    work?: string;
  };
  files: FileResult[];
  runtime: RuntimeResult[];
  /** Executed work per workload and variant (absent in results from before it was measured, or with --no-work). */
  work?: WorkResult[];
  /** Problems that are not tied to one file (a workload that failed to load ...). */
  errors: string[];
  summary: Summary;
}
