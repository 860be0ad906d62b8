// The bundler plugin's options, and their check. Everything a mistake in the
// config can get wrong is checked when the plugin is created (unknown pass,
// target or feature, unreadable profile), so a bad config fails the build at
// once instead of after the first asset has been optimized.

import { readFileSync } from "node:fs";
import { UnknownPassError, UsageError } from "../errors.js";
import { SIZE_TARGETS, type SizeTarget } from "../size-target.js";
import { resolvePasses } from "../passes/registry.js";
import { WASM_FEATURES, featureByName, type WasmFeature } from "../analysis/feature-names.js";
import type { FeatureChoices } from "../passes/features.js";
import { parseProfile, type Profile } from "../profile/profile.js";
import type { AssetResult } from "./asset-result.js";

export interface WasmCompactPluginOptions {
  /** What counts as smaller: "raw", "gzip", "brotli" or "balanced" (default, as the CLI's --target). */
  target?: SizeTarget;
  /** Passes to run in this order, or ["none"] (default: the default pipeline, as --passes). */
  passes?: readonly string[];
  /** Features passes may add although an asset neither uses nor declares them (as --enable). */
  enable?: readonly string[];
  /** Features passes must not add (as --disable). */
  disable?: readonly string[];
  /** Let passes that add calls rewrite hot code too (as --outline-hot). */
  outlineHot?: boolean;
  /** Keep every function identity JavaScript can see distinct (as --keep-export-identity). */
  keepExportIdentity?: boolean;
  /** Remove DWARF whether or not the code changed (as --strip-dwarf). */
  stripDwarf?: boolean;
  /**
   * Profile files (from `wasm-compact instrument` and `wasm-compact profile`).
   * A profile names the exact module it was recorded on, so each is used for
   * the asset whose bytes it was recorded for; other assets are optimized
   * without one. A profile that no asset of a build matches is warned about.
   */
  profile?: string | readonly string[];
  /** With `profile`: the share of executed instructions hot code covers, 0..1 (as --hot-threshold). */
  hotThreshold?: number;
  /**
   * An asset that is not a valid WebAssembly module is kept as it is, with a
   * warning; with `failOnInvalid: true` it fails the build instead.
   */
  failOnInvalid?: boolean;
  /** No summary line per asset (warnings are still reported). */
  quiet?: boolean;
  /** Which emitted files to optimize, by output file name (default: names ending in ".wasm"). */
  include?: RegExp | ((fileName: string) => boolean);
  /** Called once per asset with what became of it (sizes, the optimizer's report). */
  onAsset?: (result: AssetResult) => void;
}

/** A profile file, read and parsed. */
export interface LoadedProfile {
  path: string;
  profile: Profile;
}

export interface ResolvedOptions {
  target: SizeTarget;
  passes: readonly string[] | undefined;
  features: FeatureChoices;
  outlineHot: boolean;
  keepExportIdentity: boolean;
  stripDwarf: boolean;
  profiles: LoadedProfile[];
  hotThreshold: number | undefined;
  failOnInvalid: boolean;
  quiet: boolean;
  include: (fileName: string) => boolean;
  onAsset: ((result: AssetResult) => void) | undefined;
}

const KNOWN = new Set([
  "target", "passes", "enable", "disable", "outlineHot", "keepExportIdentity", "stripDwarf",
  "profile", "hotThreshold", "failOnInvalid", "quiet", "include", "onAsset",
]);

/** Checks the options and reads the profiles; throws UsageError (or ProfileError) on a mistake. */
export function resolveOptions(options: WasmCompactPluginOptions = {}): ResolvedOptions {
  const unknown = Object.keys(options).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) throw new UsageError(`wasm-compact: unknown option${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")} (known: ${[...KNOWN].join(", ")})`);
  const target = options.target ?? "balanced";
  if (!(SIZE_TARGETS as readonly string[]).includes(target)) throw new UsageError(`wasm-compact: target: unknown size target "${target}" (use ${SIZE_TARGETS.join(", ")})`);
  if (options.passes !== undefined) {
    try {
      resolvePasses(options.passes, target);
    } catch (e) {
      if (e instanceof UnknownPassError) throw new UnknownPassError(e.names, e.known, `wasm-compact: passes: ${e.message}`);
      throw e;
    }
  }
  const paths = options.profile === undefined ? [] : typeof options.profile === "string" ? [options.profile] : [...options.profile];
  if (options.hotThreshold !== undefined) {
    if (paths.length === 0) throw new UsageError("wasm-compact: hotThreshold needs profile");
    if (!(options.hotThreshold >= 0 && options.hotThreshold <= 1)) throw new UsageError(`wasm-compact: hotThreshold: expected a number from 0 to 1, got ${String(options.hotThreshold)}`);
  }
  const include = options.include ?? /\.wasm$/;
  return {
    target,
    passes: options.passes,
    features: featureChoices(options.enable, options.disable),
    outlineHot: options.outlineHot ?? false,
    keepExportIdentity: options.keepExportIdentity ?? false,
    stripDwarf: options.stripDwarf ?? false,
    profiles: paths.map(loadProfile),
    hotThreshold: options.hotThreshold,
    failOnInvalid: options.failOnInvalid ?? false,
    quiet: options.quiet ?? false,
    include: typeof include === "function" ? include : (name) => include.test(name),
    onAsset: options.onAsset,
  };
}

function featureChoices(enable: readonly string[] = [], disable: readonly string[] = []): FeatureChoices {
  const choices: Partial<Record<WasmFeature, boolean>> = {};
  const take = (option: string, names: readonly string[], value: boolean): void => {
    for (const name of names) {
      const f = featureByName(name);
      if (!f) throw new UsageError(`wasm-compact: ${option}: unknown feature "${name}" (use ${WASM_FEATURES.join(", ")})`);
      if (choices[f] !== undefined && choices[f] !== value) throw new UsageError(`wasm-compact: feature ${f} is both enabled and disabled`);
      choices[f] = value;
    }
  };
  take("enable", enable, true);
  take("disable", disable, false);
  return choices;
}

function loadProfile(path: string): LoadedProfile {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new UsageError(`wasm-compact: profile ${path}: cannot read: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    return { path, profile: parseProfile(text) };
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`wasm-compact: profile ${path}: ${e.message}`);
    throw e;
  }
}
