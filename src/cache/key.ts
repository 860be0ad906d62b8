// The result cache's key: everything the output of `optimize` depends on.
// The input's bytes, every option that changes what the passes do or what
// is returned (passes, target, features, profile and hot threshold, source
// map in and its URL, DWARF, export identity, validation), which measures
// were given and which compressors they are (by the caller's id: the core
// cannot look inside a function), the tool version and the cache format.
// onProgress is left out; `checked` is in although it changes no output: a
// run that asks to validate after every pass is a debugging run, and runs
// the passes.

import type { Pass } from "../passes/pass.js";
import { isBuiltinPass } from "../passes/registry.js";
import type { SizeMeasures, SizeTarget } from "../size-target.js";
import type { Profile } from "../profile/profile.js";
import type { SourceMapV3 } from "../source-map.js";
import type { WasmFeature } from "../analysis/feature-names.js";
import { VERSION } from "../version.js";
import { CACHE_FORMAT } from "./entry.js";
import { sha256Parts, type HashParts } from "./sha256.js";

export interface KeyInputs {
  bytes: Uint8Array;
  passes: readonly Pass[];
  target: SizeTarget;
  measures: SizeMeasures;
  measuresId: string | undefined;
  buildId: string | undefined;
  validate: boolean;
  checked: boolean;
  keepExportIdentity: boolean | undefined;
  features: Partial<Record<WasmFeature, boolean>>;
  profile: Profile | undefined;
  hotThreshold: number | undefined;
  outlineHot: boolean;
  stripDwarf: boolean;
  inputSourceMap: string | SourceMapV3 | undefined;
  sourceMapUrl: string | undefined;
}

/** The key (64 hex digits), or why this run cannot be cached. */
export function resultKey(k: KeyInputs, hash: HashParts = sha256Parts): { key: string } | { uncacheable: string } {
  const foreign = k.passes.filter((p) => !isBuiltinPass(p));
  if (foreign.length > 0) {
    return { uncacheable: `pass ${foreign.map((p) => JSON.stringify(p.name)).join(", ")} is not built in, so its output is not fixed by the version` };
  }
  const given = (["gzip", "brotli", "brotliFast", "brotliEstimate"] as const).filter((n) => k.measures[n] !== undefined);
  if (given.length > 0 && k.measuresId === undefined) return { uncacheable: "compressed-size measures were given without cache.measuresId naming them" };
  const features = Object.entries(k.features).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const options = {
    format: CACHE_FORMAT,
    version: VERSION,
    build: k.buildId ?? null,
    passes: k.passes.map((p) => p.name),
    target: k.target,
    measures: given,
    measuresId: given.length > 0 ? k.measuresId : null,
    validate: k.validate,
    checked: k.checked,
    keepExportIdentity: k.keepExportIdentity ?? null,
    features,
    hotThreshold: k.hotThreshold ?? null,
    outlineHot: k.outlineHot,
    stripDwarf: k.stripDwarf,
    sourceMapUrl: k.sourceMapUrl ?? null,
  };
  // each part length-prefixed, so no two different runs hash the same text
  const parts: Uint8Array[] = [];
  const part = (label: string, data: Uint8Array | string): void => {
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    parts.push(new TextEncoder().encode(`${label} ${bytes.length}:`), bytes);
  };
  part("options", JSON.stringify(options));
  part("profile", k.profile ? JSON.stringify(k.profile) : "");
  part("source map", k.inputSourceMap === undefined ? "" : typeof k.inputSourceMap === "string" ? k.inputSourceMap : JSON.stringify(k.inputSourceMap));
  part("input", k.bytes);
  return { key: hash(parts) };
}
