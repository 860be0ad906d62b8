// The pipeline: bytes -> module -> passes -> bytes, with byte accounting.
//
//   1. read the input (WasmDecodeError if malformed) and, unless told not to,
//      validate it (WasmValidationError): from here on, failures are ours;
//   2. run the passes in order; after each pass that changed something, write
//      the module and measure it; a pass that made it larger is undone
//      (unless it is marked mayGrow: an enabling pass for later ones);
//   3. validate the output bytes (InternalError if they do not validate),
//      and check that they use no feature the input neither used nor
//      declared unless the options enabled it (InternalError otherwise);
//   4. identity rule: if the result is larger than the input, return the
//      input; under a compressed target "larger" is also judged on the real
//      measures (brotli quality 11 at every size), against the input itself.
//
// Platform-neutral: Uint8Array in and out, no Node APIs.

import type { Module } from "./ir/module.js";
import type { Pass } from "./passes/pass.js";
import { resolveMergeMap } from "./passes/merge-map.js";
import { resolvePasses } from "./passes/registry.js";
import { normalizeChoices, type FeatureChoices } from "./passes/features.js";
import { sortFeatures, type WasmFeature } from "./analysis/feature-names.js";
import { InternalError, UsageError } from "./errors.js";
import { scanSections, sectionBytes, type Report, type Timings } from "./report.js";
import { VERSION } from "./version.js";
import { SizeJudge, type SizeMeasures, type SizeTarget } from "./size-target.js";
import type { Profile } from "./profile/profile.js";
import { blamer, describe } from "./pipeline/blame.js";
import { chooseHotCode } from "./pipeline/hot.js";
import { lastWord } from "./pipeline/last-word.js";
import { checkFeatures, validateOutput } from "./pipeline/output-checks.js";
import { PassRunner } from "./pipeline/pass-runner.js";
import { ms, now, Phases } from "./pipeline/phases.js";
import { readInput } from "./pipeline/read-input.js";
import { runPasses } from "./pipeline/run-passes.js";
import { EXACT_MAX, PORTFOLIO_MAX } from "./pipeline/verify.js";
import { CodeOrigins } from "./pipeline/code-origins.js";
import { mapOutput } from "./pipeline/source-map-out.js";
import { debugInfoToFollow } from "./debug-info.js";
import { readSourceMap, type SourceMapV3 } from "./source-map.js";

export interface OptimizeOptions {
  /**
   * Passes to run, in order: registered names or Pass objects. Omitted: the
   * default pipeline. `[]` or `["none"]`: no passes (the module is only read,
   * validated and rewritten). Unknown names throw UnknownPassError.
   */
  passes?: readonly (string | Pass)[];
  /**
   * Validate the input before optimizing (so bad input is reported as the
   * input's fault) and the output before returning it. Default true.
   */
  validate?: boolean;
  /**
   * Also validate after every pass that changed the module, so a broken
   * output names the pass that broke it. Slower; default false; ignored
   * when `validate` is false.
   */
  checked?: boolean;
  /**
   * Keep every function identity the host can observe (exports, function
   * references reaching the host) distinct: identical exported functions
   * stay two functions (one becomes a thunk) instead of becoming `===`.
   * Unset: each pass's own default.
   */
  keepExportIdentity?: boolean;
  /**
   * What counts as smaller (see size-target.ts). Default: "balanced" when
   * both gzip and brotli measures are given, else "raw".
   */
  target?: SizeTarget;
  /** Compressed-size measures for the gzip/brotli/balanced targets (the core has no compressor). */
  measures?: SizeMeasures;
  /**
   * A profile of this exact input (profile-guided mode, see profile/): passes
   * that add calls or indirection keep away from hot code. Throws ProfileError
   * (a UsageError) if it was recorded for another module.
   */
  profile?: Profile;
  /** Share of executed instructions the hot code covers, 0..1 (default 0.99; see profile/hot-code.ts). */
  hotThreshold?: number;
  /**
   * Features passes may add (true) or must not add (false), by wasm-opt's
   * name (`multivalue`, `tail-call`, ...; see passes/features.ts). A feature
   * not named here may be added only where the input uses it or declares
   * it in its target_features section. An unknown name throws UsageError.
   */
  features?: FeatureChoices;
  /**
   * Let passes that add calls (outline, fold-blocks, merge-functions) rewrite
   * hot code too. Default false: without a profile, a static estimate of
   * execution frequency (profile/static-hot.ts) decides what is hot, under
   * every target, raw included.
   */
  outlineHot?: boolean;
  /** Deprecated spelling: `loopsHot: false` is `outlineHot: true`. */
  loopsHot?: boolean;
  /**
   * Remove DWARF (`.debug_*` and `external_debug_info` sections) whether or
   * not the code changed, without a note. By default DWARF follows the code:
   * its line programs, DIE addresses, range and location lists are rewritten
   * through the run's address map; where some part cannot be rewritten
   * exactly, all of it is removed with a note. It is never written stale
   * (see debug-info.ts, dwarf/rewrite.ts).
   */
  stripDwarf?: boolean;
  /**
   * The input's source map (JSON text or parsed): the result then carries
   * the output's map in `sourceMap`, where every surviving instruction keeps
   * its source (code moved into a new function maps to its first origin,
   * call sites and thunks to the code they replaced). Throws UsageError if
   * it is not a version 3 wasm source map.
   */
  inputSourceMap?: string | SourceMapV3;
  /**
   * The URL of the output's source map, written to its sourceMappingURL
   * section. Unset: the input's section stays only while the code before
   * and in the code section is unchanged, as without a map.
   */
  sourceMapUrl?: string;
  /**
   * Called as work proceeds. `done` counts finished phases and may be
   * fractional inside a phase; `total` is the number of phases; `phase` says
   * what is running ("read", "validate input", "write", "pass <name>",
   * "validate output", and finally "done").
   */
  onProgress?: (done: number, total: number, phase: string) => void;
}

export interface OptimizeResult {
  binary: Uint8Array;
  report: Report;
  /** The output's source map (JSON), when `inputSourceMap` was given. */
  sourceMap?: string;
}


/**
 * Optimizes a WebAssembly binary for size. Throws WasmDecodeError or
 * WasmValidationError if the input is malformed or invalid, UnknownPassError
 * for an unknown pass name, and InternalError if the optimizer failed.
 * Under target "brotli" (modules up to 4 MiB) it runs the pipeline four
 * times, once under each target's judge (see `portfolio`).
 */
export function optimize(bytes: Uint8Array, options: OptimizeOptions = {}): OptimizeResult {
  const brotli = options.measures?.brotli;
  if (options.target !== "brotli" || !brotli || bytes.length > PORTFOLIO_MAX) return optimizeOnce(bytes, options);
  return portfolio(bytes, options, brotli);
}

/** Targets whose searches the brotli target also runs, in order. */
const OTHER_SEARCHES = ["balanced", "gzip", "raw"] as const;

/**
 * The brotli target asks for the lowest brotli size, and a greedy search on
 * it ends where its path leads: on 6 of 33 corpus files, and 6 of 16 small
 * fixtures, a search judged under another target ended lower. Those
 * searches run too (a few real brotli runs each: balanced judges large
 * modules on an estimate, gzip and raw judge without brotli), each with the
 * brotli target's other options, and
 * the lowest brotli size is kept (a tie goes to fewer raw bytes).
 */
function portfolio(bytes: Uint8Array, options: OptimizeOptions, brotli: (b: Uint8Array) => number): OptimizeResult {
  const { onProgress, ...rest } = options;
  const targets = ["brotli" as SizeTarget, ...OTHER_SEARCHES.filter((t) => t === "raw" || options.measures?.gzip)];
  // progress: each search is one equal share, and never goes back
  let shown = 0;
  const share = (i: number, t: SizeTarget) => (done: number, total: number, phase: string): void => {
    shown = Math.max(shown, i + Math.min(done / total, 1));
    if (phase !== "done") onProgress?.(shown, targets.length, `${phase} (search ${i + 1}/${targets.length}: judged under ${t})`);
  };
  const notes: string[] = [];
  let best: { result: OptimizeResult; brotli: number; target: SizeTarget } | null = null;
  let firstBrotli = 0;
  let totalMs = 0;
  for (const [i, target] of targets.entries()) {
    let result: OptimizeResult;
    try {
      result = optimizeOnce(bytes, { ...rest, target, onProgress: share(i, target) });
    } catch (e) {
      // the brotli-judged search is what was asked for: its failures are the caller's
      if (i === 0 || !(e instanceof InternalError)) throw e;
      notes.push(`target brotli: the search judged under target ${target} failed and was skipped (${describe(e)})`);
      continue;
    }
    totalMs += result.report.timings.totalMs;
    const size = brotli(result.binary);
    if (i === 0) firstBrotli = size;
    if (!best || size < best.brotli || (size === best.brotli && result.binary.length < best.result.binary.length)) best = { result, brotli: size, target };
  }
  const report = best!.result.report;
  if (best!.target !== "brotli") {
    notes.push(`target brotli: the search judged under target ${best!.target} ended lower (brotli ${best!.brotli} bytes) than the one judged under brotli (${firstBrotli}); its result is returned`);
  }
  report.notes.push(...notes);
  report.timings.totalMs = ms(totalMs);
  onProgress?.(targets.length, targets.length, "done");
  return best!.result;
}

function optimizeOnce(bytes: Uint8Array, options: OptimizeOptions): OptimizeResult {
  const featureChoices = normalizeChoices(options.features ?? {});
  const measures = options.measures ?? {};
  const target: SizeTarget = options.target ?? (measures.gzip && measures.brotli ? "balanced" : "raw");
  const passes = resolvePasses(options.passes, target);
  const validate = options.validate ?? true;
  const phases = new Phases(2 + passes.length + (validate ? 2 : 0), options.onProgress);
  const blame = blamer(validate);
  const tStart = now();
  const timings: Timings = { readMs: 0, validateInputMs: 0, passesMs: 0, writeMs: 0, validateOutputMs: 0, totalMs: 0 };

  // 1. Read, validate, set debug info aside, write the baseline.
  const inputMap = options.inputSourceMap === undefined ? null : readSourceMap(options.inputSourceMap);
  if (options.sourceMapUrl !== undefined && !inputMap) throw new UsageError("sourceMapUrl needs inputSourceMap: there is no map to name");
  // the code's origins are recorded where a source map, DWARF or code metadata must follow it
  const origins = inputMap || debugInfoToFollow(bytes, options.stripDwarf ?? false) ? new CodeOrigins(bytes) : null;
  const input = readInput(bytes, validate, phases, timings, blame, origins);
  const judge = makeJudge(target, measures);
  // every pass compares against the module as read, and the result against
  // the input: their brotli sizes are kept for the last word
  judge.pin(bytes);
  judge.pin(input.baseline);

  // 2. What is hot, decided on the module as read.
  const hot = chooseHotCode(input.m, bytes, options);
  const runNotes = hot.note ? [hot.note] : [];

  // 3. Passes. Under a compressed target, a module above EXACT_MAX is judged
  // on the estimate while the passes run and verified on the real measures
  // at the end (see verify.ts).
  const est = (target === "balanced" && bytes.length > EXACT_MAX) || (target === "brotli" && bytes.length > PORTFOLIO_MAX) ? judge.estimator() : null;
  prefetchInputs(judge, est, target, bytes, input.baseline);
  const runner = new PassRunner(input.m, input.baseline, {
    phases,
    blame,
    checked: validate && (options.checked ?? false),
    target,
    judge,
    shared: {
      ...(hot.hot ? { hot: hot.hot } : {}),
      features: featureChoices,
      inputFeatures: input.features,
      ...(options.keepExportIdentity === undefined ? {} : { keepExportIdentity: options.keepExportIdentity }),
    },
    origins,
  });
  // Where no debug info was set aside, a checkpoint is returned as it is, so
  // the last word's comparison with the input is the verification itself:
  // the input is the reference, and two real brotli runs (input, result: one
  // on each core) do what three did (the baseline differs from the input
  // wherever the rewrite changed a byte, e.g. the producers entry:
  // brotli-wasm's 1 MB took a third quality-11 run).
  const reference = input.aside.sections.length === 0 ? bytes : input.baseline;
  const tPasses = now();
  const verified = runPasses(runner, { passes, target, judge, est, reference, input: bytes }, phases);
  if (verified) runNotes.push(verified);
  timings.passesMs = ms(now() - tPasses);

  // 4. The output validates and adds no feature that was not allowed.
  let output: Module | null = null;
  if (validate) {
    phases.start("validate output");
    const t = now();
    output = validateOutput(runner.current, runner.reports);
    timings.validateOutputMs = ms(now() - t);
    phases.end();
  }
  const features = checkFeatures(output, runner.current, input.features, featureChoices, blame);

  // 5. Debug info back where it holds, then the identity rule.
  let last = lastWord({
    input: bytes,
    result: runner.current,
    aside: input.aside,
    stripDwarf: options.stripDwarf ?? false,
    ...(origins ? { addresses: () => origins.mapOf(runner.current, runner.current) } : {}),
    noPassPaid: est !== null && runner.current === input.baseline,
    anyPassChanged: runner.reports.some((r) => r.changed),
    target,
    judge,
    blame,
  });
  let sourceMap: string | undefined;
  if (inputMap && origins) {
    try {
      const mapped = mapOutput(inputMap, last, last.keptInput ? bytes : runner.current, origins, options.sourceMapUrl);
      sourceMap = mapped.sourceMap;
      last = { ...last, binary: mapped.binary, removedSections: mapped.removedSections, notes: mapped.notes };
    } catch (e) {
      blame(e, "following the source map failed");
    }
  }
  const notes = [...runNotes, ...last.notes];
  if (features.added.length > 0 && !last.keptInput) {
    const why = (f: WasmFeature): string => (input.features.declared.has(f) ? "declared in the input's target_features section" : "enabled");
    notes.push(`features: the output uses ${features.added.map((f) => `${f} (${why(f)})`).join(", ")}, which the input did not use`);
  }
  const outputSections = last.keptInput && sourceMap === undefined ? input.sections : scanSections(last.binary);
  timings.totalMs = ms(now() - tStart);
  phases.finish();

  const report: Report = {
    tool: { name: "wasm-compact", version: VERSION },
    sizes: {
      file: { before: bytes.length, after: last.binary.length },
      code: { before: sectionBytes(input.sections, 10), after: sectionBytes(outputSections, 10) },
      custom: { before: sectionBytes(input.sections, 0), after: sectionBytes(outputSections, 0) },
    },
    sections: { input: input.sections, output: outputSections },
    passes: runner.reports,
    validated: { input: validate, output: validate },
    keptInput: last.keptInput,
    features: {
      input: sortFeatures(input.features.used),
      declared: sortFeatures(input.features.declared),
      output: last.keptInput ? sortFeatures(input.features.used) : sortFeatures(features.used),
    },
    mergeMap: last.keptInput ? [] : resolveMergeMap(runner.m, runner.mapEntries),
    removedSections: last.removedSections,
    notes,
    timings,
  };
  return { binary: last.binary, report, ...(sourceMap === undefined ? {} : { sourceMap }) };
}

function makeJudge(target: SizeTarget, measures: SizeMeasures): SizeJudge {
  try {
    return new SizeJudge(target, measures);
  } catch (e) {
    throw new UsageError(describe(e));
  }
}

/**
 * Real brotli runs worth starting before any pass, on the other core where
 * the measures have one: where the passes judge on the real measures, the
 * input and the module as read (every pass's first comparison). An
 * estimate-judged run needs them only if a pass pays (see runPasses), except
 * where most of the input is debug info set aside (web-tree-sitter's debug
 * build: 483 of 765 KB of DWARF): the one real measure that must see it, the
 * input's, starts now, as verification would otherwise wait for it after
 * the last pass. Should nothing pay, the process waits at most that long for
 * it at exit.
 */
function prefetchInputs(judge: SizeJudge, est: SizeJudge | null, target: SizeTarget, bytes: Uint8Array, baseline: Uint8Array): void {
  if (!est) judge.prefetch([baseline, bytes]);
  else if (target === "balanced" && 4 * (bytes.length - baseline.length) > bytes.length) judge.prefetch([bytes]);
}
