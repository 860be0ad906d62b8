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

import { decodeAllBodies, readModule } from "./binary/reader.js";
import { writeModule } from "./binary/writer.js";
import { WasmDecodeError, WasmValidationError } from "./binary/errors.js";
import { validateModule } from "./analysis/validate.js";
import type { Module } from "./ir/module.js";
import type { FeatureUse } from "./analysis/feature-use.js";
import type { HotCode, Pass, PassContext, PassResult } from "./passes/pass.js";
import { newOrigin, resolveMergeMap, type MergeMapEntry } from "./passes/merge-map.js";
import { resolvePasses } from "./passes/registry.js";
import { normalizeChoices, type FeatureChoices } from "./passes/features.js";
import { featureUse, usedFeatures } from "./analysis/feature-use.js";
import { sortFeatures, type WasmFeature } from "./analysis/feature-names.js";
import { InternalError, UsageError } from "./errors.js";
import { scanSections, sectionBytes, type PassReport, type Report } from "./report.js";
import { recordProducer } from "./producers.js";
import { sameBytes } from "./binary/bytes.js";
import { debugKind, restoreDebugInfo, setAsideDebugInfo, withoutCustomSections, type DebugOutcome, type RemovedSection } from "./debug-info.js";
import { VERSION } from "./version.js";
import { estimateView, SizeJudge, type SizeMeasures, type SizeTarget } from "./size-target.js";
import type { Profile } from "./profile/profile.js";
import { hotCodeFromProfile } from "./profile/hot-code.js";
import { staticHotCode } from "./profile/static-hot.js";

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
   * not the code changed, without a note. By default DWARF stays when the
   * code it describes is unchanged and is removed with a note when it is not:
   * it is never written stale (see debug-info.ts).
   */
  stripDwarf?: boolean;
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
}

const now = (): number => performance.now();
const ms = (t: number): number => Math.round(t * 1000) / 1000;
const percent = (part: number, whole: number): string => `${whole > 0 ? Math.round((part / whole) * 1000) / 10 : 0}%`;

function describe(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Reads, fully decodes and validates `bytes`; throws what the reader or validator throws. */
function readAndValidate(bytes: Uint8Array): Module {
  const m = readModule(bytes);
  decodeAllBodies(m);
  validateModule(m);
  return m;
}

/**
 * After an undo re-read the module from bytes, gives its functions back the
 * origins (input indices) they had before the pass, and moves the counter
 * for new origins past every origin in use, so the merge map stays exact.
 */
function restoreOrigins(m: Module, origins: readonly number[], entries: readonly MergeMapEntry[]): void {
  let lowest = 0;
  m.functions.forEach((f, i) => {
    f.origin = origins[i]!;
    lowest = Math.min(lowest, f.origin);
  });
  for (const e of entries) lowest = Math.min(lowest, e.function.origin, e.into.origin);
  while (newOrigin(m) > lowest) {
    // advance the fresh module's counter below every origin already used
  }
}

/**
 * Above this many bytes the balanced target decides on its brotli estimate
 * and verifies once at the end; below, every decision uses the real
 * measures (brotli q11 of 64 KiB takes about 0.1 s).
 */
const EXACT_MAX = 64 << 10;

/**
 * Under balanced, an estimate-judged result that saves less than this share
 * of the file's raw bytes is not verified: the input is returned. Verifying
 * costs a brotli quality-11 run of the input and one of the result (2-3 s
 * each for a 1 MB module); brotli-wasm's modules (two thirds data) saved
 * 425 bytes of 1 MB and took longer than wasm-opt -Oz for it.
 */
const MIN_VERIFIED_SHARE = 0.001;

/**
 * Did the passes save less than MIN_VERIFIED_SHARE in every measure the
 * estimate judges by (raw bytes, and gzip and brotli of the estimate's view)?
 * Compressed sizes count too: a new function order can take 0.9 % off gzip
 * for 16 raw bytes (box2d).
 */
function tooLittleToVerify(est: SizeJudge, before: Uint8Array, after: Uint8Array): boolean {
  if (before.length - after.length >= MIN_VERIFIED_SHARE * before.length) return false;
  const a = est.measureAll(before);
  const b = est.measureAll(after);
  // the estimates see only part of the module (estimateView): their gain is
  // weighed against the whole module's size scaled the same way
  const whole = before.length / Math.max(1, estimateView(before).length);
  for (const k of ["gzip", "brotli"] as const) {
    const x = a[k];
    const y = b[k];
    if (x !== undefined && y !== undefined && x - y >= MIN_VERIFIED_SHARE * x * whole) return false;
  }
  return true;
}

/** Above this many bytes the brotli target runs its own search only (a real brotli run of 4 MiB takes seconds). */
const PORTFOLIO_MAX = 4 << 20;

/** The module after a pass that changed it (estimate-judged runs only). */
interface Checkpoint {
  bytes: Uint8Array;
  /** Passes run up to and including this one. */
  passes: number;
  /** Pass reports up to and including this pass. */
  reports: number;
  /** Merge-map entries recorded up to here. */
  entries: number;
  /** Function origins at this point, for re-reading the bytes. */
  origins: number[];
}

/**
 * The estimate-judged result on the real measures: null when the last
 * checkpoint is no worse than `reference` under the target, else the latest
 * earlier one that is (or the baseline itself, as a checkpoint with no
 * passes), with why the later ones were dropped. `reference` is the input
 * itself where no debug info was set aside (the last word's comparison, so
 * its sizes serve both), else the baseline.
 */
function verify(judge: SizeJudge, reference: Uint8Array, baseline: Checkpoint, checkpoints: readonly Checkpoint[]): (Checkpoint & { why: string }) | null {
  const last = checkpoints[checkpoints.length - 1]!;
  if (judge.holds(reference, last.bytes)) return null;
  const why = `on the real measures the result grew (${judge.explainGrowth(reference, last.bytes)})`;
  for (let k = checkpoints.length - 2; k >= 0; k--) {
    if (judge.holds(reference, checkpoints[k]!.bytes)) return { ...checkpoints[k]!, why };
  }
  return { ...baseline, why };
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
  const checked = validate && (options.checked ?? false);
  const onProgress = options.onProgress;
  let total = 2 + passes.length + (validate ? 2 : 0);
  let done = 0;
  let phase = "read";
  const progress = (within = 0): void => {
    if (onProgress) onProgress(done + Math.min(Math.max(within, 0), 1), total, phase);
  };
  const startPhase = (name: string): void => {
    phase = name;
    progress();
  };
  const endPhase = (): void => {
    done++;
  };

  // Errors about content the caller gave us are the input's fault only if the
  // input was not validated; otherwise anything that goes wrong is ours.
  function blame(e: unknown, what: string, pass?: string): never {
    if (!validate && (e instanceof WasmDecodeError || e instanceof WasmValidationError)) throw e;
    if (e instanceof InternalError) throw e;
    throw new InternalError(`${what}: ${describe(e)}`, pass, { cause: e });
  }

  const tStart = now();
  const timings = { readMs: 0, validateInputMs: 0, passesMs: 0, writeMs: 0, validateOutputMs: 0, totalMs: 0 };

  // 1. Read and validate the input. Errors here are the input's.
  startPhase("read");
  let t = now();
  let m = readModule(bytes);
  const inputSections = scanSections(bytes);
  timings.readMs = ms(now() - t);
  endPhase();
  if (validate) {
    startPhase("validate input");
    t = now();
    decodeAllBodies(m);
    validateModule(m);
    timings.validateInputMs = ms(now() - t);
    endPhase();
  }
  // What the input needs and declares, before any pass: passes may add a
  // feature only where it is in here or the user enabled it.
  let inputFeatures: FeatureUse;
  try {
    inputFeatures = featureUse(m);
  } catch (e) {
    blame(e, "scanning the input's features failed");
  }

  // Debug info that names code offsets is set aside: it goes back at the end
  // only where it still holds, and the size judges need not compress it.
  const aside = setAsideDebugInfo(m);
  // the output says it went through wasm-compact (where the input has a producers section)
  recordProducer(m);
  const stripDwarf = options.stripDwarf ?? false;

  // 2. Write once to get the baseline every pass is measured against.
  startPhase("write");
  t = now();
  let current: Uint8Array;
  try {
    current = writeModule(m, { onProgress: (d, n) => progress(n > 0 ? d / n : 1) });
  } catch (e) {
    blame(e, "writing the module failed");
  }
  timings.writeMs = ms(now() - t);
  endPhase();

  // 3. Passes.
  const passReports: PassReport[] = [];
  const mapEntries: MergeMapEntry[] = [];
  let judge: SizeJudge;
  try {
    judge = new SizeJudge(target, measures);
  } catch (e) {
    throw new UsageError(describe(e));
  }
  // every pass compares against the module as read, and the result against
  // the input: their brotli sizes are kept for the last word, and computed
  // in the background while the first passes plan where the passes judge on
  // the real measures (an estimate-judged run needs them only if a pass
  // paid: then at verification, on the other core meanwhile)
  judge.pin(bytes);
  judge.pin(current);
  // Profile-guided mode: decide what is hot on the module as read, before any pass.
  const runNotes: string[] = [];
  let hot: HotCode | undefined;
  if (options.profile) {
    const r = hotCodeFromProfile(options.profile, bytes, m, options.hotThreshold);
    hot = r.hot;
    const s = r.summary;
    const cover = `${Math.round(s.threshold * 1000) / 10}% of executed instructions`;
    runNotes.push(
      s.hotBlocks === 0
        ? `profile: no block hot (threshold ${cover}); ${s.functionsRun} functions ran`
        : `profile: ${s.hotBlocks} of ${s.blocks} blocks hot (run ${s.cutoffCount}+ times, covering ${cover}) ` +
            `in ${s.hotFunctions} of ${s.functionsRun} functions that ran`,
    );
  }
  // No profile: a static estimate of execution frequency decides what is hot,
  // under every target (see profile/static-hot.ts), unless told otherwise.
  const outlineHot = options.outlineHot ?? options.loopsHot === false;
  if (!hot && !outlineHot) {
    const r = staticHotCode(m);
    hot = r.hot;
    const s = r.summary;
    runNotes.push(
      `no profile: a static estimate calls ${s.hotFunctions} of ${s.functions} functions hot (${percent(s.hotInstructions, s.instructions)} of the code); ` +
        "passes that add calls leave hot code alone (--outline-hot rewrites it too)",
    );
  }
  // Under a compressed target, a module above EXACT_MAX is judged on the
  // estimate while the passes run and verified on the real measures at the
  // end (see `verify`): a real brotli run of a mid-size module takes about a
  // second, and a pass would otherwise make 5-15 of them.
  const est = (target === "balanced" && bytes.length > EXACT_MAX) || (target === "brotli" && bytes.length > PORTFOLIO_MAX) ? judge.estimator() : null;
  if (!est) judge.prefetch([current, bytes]);
  else if (target === "balanced" && 4 * (bytes.length - current.length) > bytes.length) {
    // Most of the input is debug info set aside (web-tree-sitter's debug
    // build: 483 of 765 KB of DWARF), so the one real measure that must see
    // it, the input's, starts now on the other core: verification would
    // otherwise wait for it after the last pass. Should nothing pay, the
    // process waits at most that long for it at exit.
    judge.prefetch([bytes]);
  }
  const baseline: Checkpoint = { bytes: current, passes: 0, reports: 0, entries: 0, origins: m.functions.map((f) => f.origin) };
  // What an estimate-judged result is verified against. Where no debug info
  // was set aside, a checkpoint is returned as it is, so the last word's
  // comparison with the input is the verification itself: the input serves
  // as reference, and two real brotli runs (input, result: one on each core)
  // do what three did (the baseline differs from the input wherever the
  // rewrite changed a byte, e.g. the producers entry: brotli-wasm's 1 MB
  // took a third quality-11 run).
  const reference = aside.sections.length === 0 ? bytes : current;
  const checkpoints: Checkpoint[] = [];
  const sharedOptions = {
    ...(hot ? { hot } : {}),
    features: featureChoices,
    inputFeatures,
    ...(options.keepExportIdentity === undefined ? {} : { keepExportIdentity: options.keepExportIdentity }),
  };
  /** Runs one pass with `passJudge` deciding, keeps or undoes it, and reports it; true if it changed the module and was kept. */
  const runPass = (pass: Pass, passJudge: SizeJudge, phaseName: string): boolean => {
    startPhase(phaseName);
    const notes: string[] = [];
    const entries: MergeMapEntry[] = [];
    const origins = m.functions.map((f) => f.origin);
    const ctx: PassContext = {
      progress: (fraction) => progress(fraction),
      note: (message) => void notes.push(message),
      options: { judge: passJudge, ...sharedOptions },
      record: (entry) => void entries.push(entry),
      written: current,
    };
    const before = current.length;
    t = now();
    let result: PassResult;
    try {
      result = pass.run(m, ctx);
    } catch (e) {
      blame(e, `pass "${pass.name}" failed`, pass.name);
    }
    let after = before;
    let kept = true;
    if (result.changed) {
      let next: Uint8Array;
      try {
        next = writeModule(m);
      } catch (e) {
        blame(e, `writing the module after pass "${pass.name}" failed`, pass.name);
      }
      after = next.length;
      if (!pass.mayGrow && !passJudge.notWorse(current, next)) {
        // Undo: re-read the last good bytes (lazily, so this is cheap).
        kept = false;
        notes.push(`undone: the module grew (${passJudge.explainGrowth(current, next)}) under target ${target}${passJudge === judge ? "" : " (estimated)"}`);
        try {
          m = readModule(current);
        } catch (e) {
          blame(e, `re-reading the module to undo pass "${pass.name}" failed`, pass.name);
        }
        restoreOrigins(m, origins, mapEntries);
      } else {
        if (checked) {
          try {
            readAndValidate(next);
          } catch (e) {
            throw new InternalError(`pass "${pass.name}" produced an invalid module: ${describe(e)}`, pass.name, { cause: e });
          }
        }
        current = next;
      }
    }
    // a loop, not push(...entries): outline on esbuild records more entries than a call may take arguments
    if (kept) for (const e of entries) mapEntries.push(e);
    passReports.push({
      name: pass.name,
      bytesBefore: before,
      bytesAfter: kept ? after : before,
      timeMs: ms(now() - t),
      changed: result.changed,
      kept,
      stats: { ...(result.stats ?? {}) },
      notes,
    });
    endPhase();
    return result.changed && kept;
  };

  const tPasses = now();
  const paidOnEstimate: boolean[] = [];
  passes.forEach((pass, k) => {
    paidOnEstimate[k] = runPass(pass, est ?? judge, `pass ${pass.name}`);
    if (!paidOnEstimate[k] || !est) return;
    // not measured yet: verification needs the last one only, unless it fails
    // (each real brotli run of a mid-size module costs a third of what
    // wasm-opt -Oz takes on it)
    checkpoints.push({ bytes: current, passes: k + 1, reports: passReports.length, entries: mapEntries.length, origins: m.functions.map((f) => f.origin) });
    // Once the passes saved enough to be verified (gains only grow from one
    // checkpoint to the next), verification will need the real sizes of the
    // module as read and of the input: where the measures have another core
    // they start now, while the later passes run. Nothing is measured ahead
    // that may not be needed: a process cannot exit while a worker thread is
    // inside a compressor run, so a needless run costs its time at the end.
    if (target !== "balanced" || !tooLittleToVerify(est, baseline.bytes, current)) judge.prefetch([reference, bytes]);
  });
  if (est && checkpoints.length > 0) {
    // real brotli runs of the checkpoints, some perhaps still on the other core
    total++;
    startPhase("verify");
    const gain = baseline.bytes.length - checkpoints[checkpoints.length - 1]!.bytes.length;
    const tooLittle = target === "balanced" && tooLittleToVerify(est, baseline.bytes, checkpoints[checkpoints.length - 1]!.bytes);
    if (!tooLittle) judge.prefetch([reference, bytes]);
    const back = tooLittle
      ? { ...baseline, why: `it saved ${gain} bytes and under ${MIN_VERIFIED_SHARE * 100} % of the estimated gzip and brotli sizes: not worth verifying on the real measures` }
      : verify(judge, reference, baseline, checkpoints);
    endPhase();
    let how = "held";
    if (back) {
      // Back to the last checkpoint that holds. The passes after it are not
      // run again on the real measures: that took 2-3 times as long as
      // wasm-opt -Oz on the files where it happened (onig: 55 of 85 s, each
      // of outline's judgements a quality-11 run), for 0.1 % of raw bytes.
      current = back.bytes;
      try {
        m = readModule(current);
      } catch (e) {
        blame(e, "re-reading the module after verification failed");
      }
      mapEntries.length = back.entries;
      restoreOrigins(m, back.origins, mapEntries);
      for (const r of passReports.slice(back.reports)) {
        if (!r.changed || !r.kept) continue;
        r.kept = false;
        r.bytesAfter = r.bytesBefore;
        r.notes.push(`undone: ${back.why}`);
      }
      const kept = passes.slice(0, back.passes).filter((_, k) => paidOnEstimate[k]).map((p) => p.name);
      how = `failed (${back.why.replace(/^on the real measures /, "")}), so the result is the last state that holds (${kept.length > 0 ? `after ${kept.join(", ")}` : "the module as read"})`;
    }
    runNotes.push(
      tooLittle
        ? `under target ${target} the passes were judged on a fast brotli estimate and saved ${gain} bytes, under ${MIN_VERIFIED_SHARE * 100} % of the file and of its estimated gzip and brotli sizes: ` +
            "not worth two brotli quality-11 runs to verify, so the input is returned unchanged"
        : `under target ${target} the passes were judged on a fast brotli estimate and the result verified on the real measures: it ${how}`,
    );
  }
  timings.passesMs = ms(now() - tPasses);

  // 4. Validate the bytes we are about to return.
  let output: Module | null = null;
  if (validate) {
    startPhase("validate output");
    t = now();
    try {
      output = readAndValidate(current);
    } catch (e) {
      const last = passReports.filter((p) => p.changed && p.kept).map((p) => p.name);
      const by = last.length > 0 ? ` (passes that changed it: ${last.join(", ")})` : "";
      throw new InternalError(`the optimized module does not validate${by}: ${describe(e)}`, undefined, { cause: e });
    }
    timings.validateOutputMs = ms(now() - t);
    endPhase();
  }

  // 5. No new features: whatever the output uses beyond the input was allowed.
  const notes: string[] = [...runNotes];
  let outputFeatures: Set<WasmFeature>;
  try {
    if (!output) {
      output = readModule(current);
      decodeAllBodies(output);
    }
    outputFeatures = usedFeatures(output);
  } catch (e) {
    blame(e, "scanning the output's features failed");
  }
  const added = sortFeatures([...outputFeatures].filter((f) => !inputFeatures.used.has(f)));
  const unallowed = added.filter((f) => !inputFeatures.declared.has(f) && featureChoices[f] !== true);
  if (unallowed.length > 0) {
    throw new InternalError(`the optimized module uses ${unallowed.join(", ")}, which the input neither uses nor declares and the options do not enable`);
  }

  // 6. Debug info back where it holds, then the identity rule.
  const noPassPaid = est !== null && current === baseline.bytes;
  let debug: DebugOutcome;
  try {
    debug = restoreDebugInfo(bytes, current, aside, stripDwarf);
    current = debug.binary;
  } catch (e) {
    blame(e, "putting the debug sections back failed");
  }
  // the input as it is returned when nothing better is: only DWARF stripped on request
  const asInput = (): Uint8Array => (stripDwarf ? withoutCustomSections(bytes, (n) => debugKind(n) === "dwarf") : bytes.slice());
  let binary = current;
  let keptInput = false;
  if (current.length > bytes.length) {
    notes.push(`the rewritten module (${current.length} bytes) was larger than the input (${bytes.length} bytes); returned the input unchanged`);
    binary = asInput();
    keptInput = true;
  } else if (noPassPaid && !sameBytes(bytes, current)) {
    // No pass kept anything on an estimate-judged run: the only change is
    // the rewrite itself, not worth two real brotli runs of a large module
    // (esbuild.wasm as shipped: 100 s of CPU, and its brotli size grew)
    if (!passReports.some((r) => r.changed)) notes.push(`no pass paid under target ${target}: returned the input unchanged`);
    binary = asInput();
    keptInput = true;
  } else if (judge.compressed && !sameBytes(bytes, current) && !judge.holds(bytes, current)) {
    // The last word, on the real measures (brotli quality 11 at every size)
    // against the input itself: every decision above was relative to the
    // module before it, and on large modules to an estimate.
    notes.push(`under target ${target} the result was larger than the input on the real measures (${judge.explainGrowth(bytes, current)}); returned the input unchanged`);
    binary = asInput();
    keptInput = true;
  }
  let removedSections: RemovedSection[];
  if (!keptInput) {
    removedSections = debug.removed;
    notes.push(...debug.notes);
  } else removedSections = debug.removed.filter((s) => s.kind === "dwarf" && stripDwarf).map((s) => ({ ...s, why: "stripped" as const }));
  if (added.length > 0 && !keptInput) {
    const why = (f: WasmFeature): string => (inputFeatures.declared.has(f) ? "declared in the input's target_features section" : "enabled");
    notes.push(`features: the output uses ${added.map((f) => `${f} (${why(f)})`).join(", ")}, which the input did not use`);
  }
  const outputSections = keptInput ? inputSections : scanSections(binary);
  timings.totalMs = ms(now() - tStart);
  phase = "done";
  done = total;
  progress();

  const report: Report = {
    tool: { name: "wasm-compact", version: VERSION },
    sizes: {
      file: { before: bytes.length, after: binary.length },
      code: { before: sectionBytes(inputSections, 10), after: sectionBytes(outputSections, 10) },
      custom: { before: sectionBytes(inputSections, 0), after: sectionBytes(outputSections, 0) },
    },
    sections: { input: inputSections, output: outputSections },
    passes: passReports,
    validated: { input: validate, output: validate },
    keptInput,
    features: {
      input: sortFeatures(inputFeatures.used),
      declared: sortFeatures(inputFeatures.declared),
      output: keptInput ? sortFeatures(inputFeatures.used) : sortFeatures(outputFeatures),
    },
    mergeMap: keptInput ? [] : resolveMergeMap(m, mapEntries),
    removedSections,
    notes,
    timings,
  };
  return { binary, report };
}
