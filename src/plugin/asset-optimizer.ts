// One emitted .wasm asset in, the bytes to emit out: the part of the plugin
// every bundler shares. The bundler-specific hooks (rollup-hooks.ts,
// webpack-hooks.ts, esbuild-hooks.ts) find the assets and put the result back.
//
// What can happen to an asset:
// - optimized: optimize() with the plugin's options, gzip/brotli measured by
//   Node's zlib with brotli on a second core, as the CLI does, so the bytes
//   are the CLI's for the same options;
// - invalid input: kept as it is with a warning, or the build fails
//   (failOnInvalid);
// - the optimizer failed (InternalError, or any other unexpected exception:
//   a bug): kept as it is with a warning; the build goes on;
// - not a core module (a component): left alone with a note.
// A UsageError from optimize() (a mistake in the options that only a module
// shows; the options are checked when the plugin is made) fails the build.
//
// Rebuilds (watch mode) meet the same bytes again: results are remembered by
// the SHA-256 of the input for as long as the plugin lives, and only those
// the latest build used are kept.
//
// The persistent cache of issue 17 (summaries and decisions keyed by function
// content, reused across runs) does not exist yet. Where it will go: compute()
// is the one place that calls optimize(), so it hands the cache to optimize()
// there; the plugin's option for it is the directory (default: the bundler's
// own cache folder, node_modules/.cache/wasm-compact); the memo above stays
// as the in-process layer in front of it (a hit there needs no optimize()).

import { createHash } from "node:crypto";
import { optimize, type OptimizeOptions } from "../pipeline.js";
import { WasmDecodeError, WasmValidationError } from "../binary/errors.js";
import { UsageError } from "../errors.js";
import { fingerprint } from "../profile/fingerprint.js";
import { parallelNodeMeasures } from "../cli/compress-pool.js";
import { summaryLine, type AssetResult } from "./asset-result.js";
import type { LoadedProfile, ResolvedOptions } from "./options.js";

/** Where a bundler wants a plugin's messages (lines without a "wasm-compact: " prefix: the bundler names the plugin, or the hook adds it). */
export interface BuildLog {
  info(line: string): void;
  warn(line: string): void;
}

/** Thrown to fail the build (failOnInvalid, or an option the module showed to be wrong). */
export class WasmCompactPluginError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WasmCompactPluginError";
  }
}

interface Remembered {
  bytes: Uint8Array;
  result: AssetResult;
}

export class AssetOptimizer {
  private memo = new Map<string, Remembered>();
  private used = new Map<string, Remembered>();
  private readonly matched = new Set<LoadedProfile>();
  private readonly warnedUnmatched = new Set<LoadedProfile>();

  constructor(readonly options: ResolvedOptions) {}

  /** Whether the output file `fileName` is one to optimize. */
  wants(fileName: string): boolean {
    return this.options.include(fileName);
  }

  /** The bytes to emit for asset `name` (the input itself when it is kept). */
  process(name: string, input: Uint8Array, log: BuildLog): Uint8Array {
    const key = createHash("sha256").update(input).digest("hex");
    let entry = this.used.get(key) ?? this.memo.get(key);
    if (!entry) entry = this.compute(name, input);
    else entry = { bytes: entry.bytes, result: entry.result.status === "optimized" ? { ...entry.result, name, reused: true } : { ...entry.result, name } };
    this.used.set(key, entry);
    this.report(entry.result, log);
    // a kept asset is this very input (a remembered one is equal bytes from an earlier build)
    return entry.result.status === "optimized" && !entry.result.report.keptInput ? entry.bytes : input;
  }

  /** Ends one build: forgets results the build did not use, warns about profiles no asset matched yet. */
  finishBuild(log: BuildLog): void {
    this.memo = this.used;
    this.used = new Map();
    for (const p of this.options.profiles) {
      if (this.matched.has(p) || this.warnedUnmatched.has(p)) continue;
      this.warnedUnmatched.add(p);
      log.warn(`profile ${p.path} matches no emitted .wasm (it was recorded on a module of another build); it was not used`);
    }
  }

  private compute(name: string, input: Uint8Array): Remembered {
    const before = input.length;
    if (isComponentHeader(input)) {
      return { bytes: input, result: { name, status: "skipped", before, message: "a WebAssembly component, not a core module: left as it is" } };
    }
    const o = this.options;
    const fp = o.profiles.length > 0 ? fingerprint(input) : undefined;
    const profile = o.profiles.find((p) => p.profile.fingerprint === fp);
    if (profile) this.matched.add(profile);
    const opts: OptimizeOptions = {
      target: o.target,
      passes: o.passes,
      features: o.features,
      keepExportIdentity: o.keepExportIdentity,
      ...(o.outlineHot ? { outlineHot: true } : {}),
      ...(o.stripDwarf ? { stripDwarf: true } : {}),
      ...(profile ? { profile: profile.profile } : {}),
      ...(profile && o.hotThreshold !== undefined ? { hotThreshold: o.hotThreshold } : {}),
    };
    const parallel = parallelNodeMeasures();
    const t0 = performance.now();
    try {
      const { binary, report } = optimize(input, { ...opts, measures: parallel.measures });
      const result: AssetResult = { name, status: "optimized", before, after: binary.length, ms: performance.now() - t0, report, ...(profile ? { profile: profile.path } : {}) };
      return { bytes: binary, result };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (e instanceof WasmDecodeError || e instanceof WasmValidationError) {
        if (o.failOnInvalid) throw new WasmCompactPluginError(`${name}: not a valid WebAssembly module: ${message}`, { cause: e });
        return { bytes: input, result: { name, status: "invalid", before, message } };
      }
      if (e instanceof UsageError) throw new WasmCompactPluginError(`${name}: ${message}`, { cause: e });
      return { bytes: input, result: { name, status: "internal-error", before, message } };
    } finally {
      void parallel.pool.close();
    }
  }

  private report(r: AssetResult, log: BuildLog): void {
    switch (r.status) {
      case "optimized":
        if (!this.options.quiet) log.info(summaryLine(r));
        break;
      case "invalid":
        log.warn(`${r.name}: not a valid WebAssembly module, emitted as it is: ${r.message}`);
        break;
      case "internal-error":
        log.warn(`${r.name}: the optimizer failed (a bug in wasm-compact; please report it with this file), emitted as it is: ${r.message}`);
        break;
      case "skipped":
        if (!this.options.quiet) log.info(`${r.name}: ${r.message}`);
        break;
    }
    this.options.onAsset?.(r);
  }
}

/** A component's preamble: magic, then version 13 and layer 1 (a core module has version 1, layer 0). */
function isComponentHeader(b: Uint8Array): boolean {
  return b.length >= 8 && b[0] === 0 && b[1] === 0x61 && b[2] === 0x73 && b[3] === 0x6d && b[6] === 1 && b[7] === 0;
}
