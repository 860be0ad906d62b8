// Stage 1 of the cache: the whole result of a run, keyed by everything it
// depends on (cache/key.ts). A hit is not trusted blindly: the stored output
// is validated again, checked for features the options do not allow, and
// must pass the size target's final check against this input (on the real
// measures under a compressed target), as the run that stored it did.
// Anything wrong with an entry makes it a miss with a note: a cache never
// makes a run fail or return something a run without it would not.

import { sameBytes } from "../binary/bytes.js";
import { normalizeChoices } from "../passes/features.js";
import { resolvePasses } from "../passes/registry.js";
import { SizeJudge, type SizeTarget } from "../size-target.js";
import type { Report } from "../report.js";
import type { OptimizeOptions, OptimizeResult } from "../pipeline.js";
import { decodeEntry, encodeEntry, packParts, unpackParts } from "../cache/entry.js";
import { resultKey } from "../cache/key.js";
import { sha256Parts, type HashParts } from "../cache/sha256.js";
import { count, newStats, type CacheOptions, type CacheStats } from "../cache/stats.js";
import { blamer, describe } from "./blame.js";
import { checkFeatures, validateOutput } from "./output-checks.js";
import { measuredOf, type Measured } from "./measured.js";
import { ms, now } from "./phases.js";

const KIND = "result";

interface Stored {
  report: Report;
  sourceMap: string | null;
  /** The real sizes the storing run measured of the input and the output (see measured.ts). */
  measured: Measured | null;
}

/** `compute` runs the pipeline without the cache; the result carries the cache's stats. */
export function withResultCache(bytes: Uint8Array, options: OptimizeOptions, cache: CacheOptions, compute: () => OptimizeResult): OptimizeResult & { cache: CacheStats } {
  const t0 = now();
  const stats = newStats();
  const hash = cache.sha256 ?? sha256Parts;
  const measures = options.measures ?? {};
  const target: SizeTarget = options.target ?? (measures.gzip && measures.brotli ? "balanced" : "raw");
  let keyed: ReturnType<typeof resultKey>;
  try {
    keyed = resultKey({
      bytes,
      passes: resolvePasses(options.passes, target),
      target,
      measures,
      measuresId: cache.measuresId,
      buildId: cache.buildId,
      validate: options.validate ?? true,
      checked: options.checked ?? false,
      keepExportIdentity: options.keepExportIdentity,
      features: normalizeChoices(options.features ?? {}),
      profile: options.profile,
      hotThreshold: options.hotThreshold,
      outlineHot: options.outlineHot === true || options.loopsHot === false,
      stripDwarf: options.stripDwarf ?? false,
      inputSourceMap: options.inputSourceMap,
      sourceMapUrl: options.sourceMapUrl,
    }, hash);
  } catch {
    // a bad option: the run itself reports it
    keyed = { uncacheable: "the options are not usable" };
  }
  if ("uncacheable" in keyed) {
    stats.result = "off";
    stats.notes.push(`cache: not used: ${keyed.uncacheable}`);
    return finish(compute(), stats);
  }
  const key = keyed.key;
  const storeKey = `${KIND}-${key}`;

  let raw: Uint8Array | undefined;
  try {
    raw = cache.store.get(storeKey);
  } catch (e) {
    stats.notes.push(`cache: reading the stored result failed (${describe(e)}); computed it again`);
  }
  if (raw !== undefined) {
    const hit = useStored(raw, key, bytes, options, target, cache.remeasureBrotli ?? false, hash, stats);
    if (hit) {
      count(stats.hits, KIND);
      stats.result = "hit";
      hit.report.timings = { readMs: 0, validateInputMs: 0, passesMs: 0, writeMs: 0, validateOutputMs: hit.report.timings.validateOutputMs, totalMs: ms(now() - t0) };
      options.onProgress?.(1, 1, "done");
      return finish(hit, stats);
    }
  }
  count(stats.misses, KIND);
  stats.result = "miss";
  const result = compute();
  try {
    const stored: Stored = { report: result.report, sourceMap: result.sourceMap ?? null, measured: measuredOf(result) ?? null };
    cache.store.set(storeKey, encodeEntry(KIND, key, packParts(stored, result.binary), hash));
    stats.writes++;
  } catch (e) {
    stats.notes.push(`cache: storing the result failed (${describe(e)})`);
  }
  return finish(result, stats);
}

function finish(result: OptimizeResult, stats: CacheStats): OptimizeResult & { cache: CacheStats } {
  result.report.notes.push(...stats.notes);
  return { ...result, cache: stats };
}

/** The stored result if the entry is intact and its output passes every final check again; else null, with a note. */
function useStored(raw: Uint8Array, key: string, bytes: Uint8Array, options: OptimizeOptions, target: SizeTarget, remeasure: boolean, hash: HashParts, stats: CacheStats): OptimizeResult | null {
  const decoded = decodeEntry(raw, KIND, key, hash);
  if ("problem" in decoded) {
    stats.notes.push(`cache: the stored result for this input was ignored: ${decoded.problem}`);
    return null;
  }
  try {
    const { json, bytes: binary } = unpackParts(decoded.payload);
    const stored = json as Stored;
    const t = now();
    const problem = checkOutput(bytes, binary, stored.report, options, target, remeasure ? null : stored.measured);
    if (problem) {
      stats.notes.push(`cache: the stored result for this input was ignored: ${problem}`);
      return null;
    }
    stored.report.timings.validateOutputMs = ms(now() - t);
    return { binary, report: stored.report, ...(stored.sourceMap === null ? {} : { sourceMap: stored.sourceMap }) };
  } catch (e) {
    stats.notes.push(`cache: the stored result for this input was ignored: it could not be read back (${describe(e)})`);
    return null;
  }
}

/**
 * Why `binary` may not be returned for `bytes` under these options, or null:
 * the final checks of a run, made again. `measured`: brotli sizes of these
 * bytes to take instead of measuring them (raw and gzip are measured anew).
 */
function checkOutput(bytes: Uint8Array, binary: Uint8Array, report: Report, options: OptimizeOptions, target: SizeTarget, measured: Measured | null): string | null {
  if (sameBytes(bytes, binary)) return null;
  if (binary.length > bytes.length) return `its output (${binary.length} bytes) is larger than the input (${bytes.length})`;
  const validate = options.validate ?? true;
  try {
    const output = validate ? validateOutput(binary, []) : null;
    // what the input uses and declares, as the storing run found it in these exact bytes (decoding the input again cost 9 % of a warm run)
    const input = { used: new Set(report.features.input), declared: new Set(report.features.declared) };
    checkFeatures(output, binary, input, normalizeChoices(options.features ?? {}), blamer(validate));
  } catch (e) {
    return describe(e);
  }
  if (target !== "raw") {
    const m = options.measures ?? {};
    const recorded = (x: Uint8Array): number | undefined => (x === bytes ? measured?.input.brotli : x === binary ? measured?.output.brotli : undefined);
    const brotli = m.brotli ? { brotli: (x: Uint8Array): number => recorded(x) ?? m.brotli!(x) } : {};
    const judge = new SizeJudge(target, { ...(m.gzip ? { gzip: m.gzip } : {}), ...brotli });
    // what must be measured: both at once where the measures have a second core
    const todo = [bytes, binary].filter((x) => recorded(x) === undefined);
    if (m.brotli && todo.length > 0) m.prefetch?.(todo);
    if (!judge.holds(bytes, binary)) return `under target ${target} its output is larger than the input on the real measures (${judge.explainGrowth(bytes, binary)})`;
  }
  return null;
}
