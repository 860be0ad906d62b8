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
// Platform-neutral: Uint8Array in and out, no Node APIs. One run under one
// target is pipeline/once.ts (its steps named there); this file holds the
// options, the result, and the brotli target's portfolio of runs.

import { plainBytes } from "./binary/bytes.js";
import type { Pass } from "./passes/pass.js";
import type { FeatureChoices } from "./passes/features.js";
import { InternalError } from "./errors.js";
import type { Report } from "./report.js";
import type { SizeMeasures, SizeTarget } from "./size-target.js";
import type { Profile } from "./profile/profile.js";
import { describe } from "./pipeline/blame.js";
import { ms } from "./pipeline/phases.js";
import { optimizeOnce } from "./pipeline/once.js";
import { PORTFOLIO_MAX } from "./pipeline/verify.js";
import type { SourceMapV3 } from "./source-map.js";
import { withResultCache } from "./pipeline/result-cache.js";
import { measuredOf, recordMeasured } from "./pipeline/measured.js";
import { debugKind, withoutCustomSections } from "./debug-info.js";
import type { CacheOptions, CacheStats } from "./cache/stats.js";

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
  /**
   * Reuse work across runs (see cache/): a run on an input and options seen
   * before returns the stored output once it passes the final checks again
   * (it validates, adds no feature that is not allowed, and holds under the
   * size target against this input). The store is injected (the CLI's
   * `--cache DIR` is a directory); entries from another version, corrupt or
   * truncated ones are ignored with a note. The output is byte-identical to
   * a run without a cache.
   */
  cache?: CacheOptions;
}

export interface OptimizeResult {
  binary: Uint8Array;
  report: Report;
  /** The output's source map (JSON), when `inputSourceMap` was given. */
  sourceMap?: string;
  /** With `options.cache`: what came from the cache and what did not (on a hit, the report is the stored run's, with this run's total time). */
  cache?: CacheStats;
}


/**
 * Optimizes a WebAssembly binary for size. Throws WasmDecodeError or
 * WasmValidationError if the input is malformed or invalid, UnknownPassError
 * for an unknown pass name, and InternalError if the optimizer failed.
 * Under target "brotli" (modules up to 4 MiB) it runs the pipeline four
 * times, once under each target's judge (see `portfolio`).
 */
export function optimize(input: Uint8Array, options: OptimizeOptions = {}): OptimizeResult {
  // never the caller's subclass (see plainBytes): nothing may write to the input
  const bytes = plainBytes(input);
  const { cache, ...rest } = options;
  if (cache) return withResultCache(bytes, rest, cache, () => optimizeUncached(bytes, rest));
  return optimizeUncached(bytes, rest);
}

function optimizeUncached(bytes: Uint8Array, options: OptimizeOptions): OptimizeResult {
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
  let best: { result: OptimizeResult; brotli: number; length: number; target: SizeTarget } | null = null;
  let firstBrotli = 0;
  let inputBrotli: number | undefined;
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
    // judged without the debug info the passes were judged without: the DWARF each search's code
    // gets rewritten into would decide (interp -g: a search 61 brotli bytes larger won on its DWARF)
    const code = withoutCustomSections(result.binary, (n) => debugKind(n) !== null);
    const size = brotli(code);
    if (i === 0) {
      firstBrotli = size;
      inputBrotli = measuredOf(result)?.input.brotli;
    }
    if (!best || size < best.brotli || (size === best.brotli && code.length < best.length)) best = { result, brotli: size, length: code.length, target };
  }
  const report = best!.result.report;
  if (best!.target !== "brotli") {
    notes.push(`target brotli: the search judged under target ${best!.target} ended lower (brotli ${best!.brotli} bytes) than the one judged under brotli (${firstBrotli}); its result is returned`);
  }
  report.notes.push(...notes);
  report.timings.totalMs = ms(totalMs);
  onProgress?.(targets.length, targets.length, "done");
  // the brotli sizes of the whole binaries: the input's as the brotli-judged search measured it
  if (inputBrotli !== undefined) {
    const whole = best!.length === best!.result.binary.length ? best!.brotli : brotli(best!.result.binary);
    recordMeasured(best!.result, { input: { brotli: inputBrotli }, output: { brotli: whole } });
  }
  return best!.result;
}
