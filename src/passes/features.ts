// Which WebAssembly features a pass may introduce. The output must run
// wherever the input ran, so a pass adds code that needs a feature only when
// the input already uses it or declares it in its target_features section,
// or the user enabled it (`--enable`, the `features` option). Passes ask
// `mayIntroduce` before they add:
//   multivalue   functions or blocks with several results (outline, fold-blocks)
//   tail-call    return_call in thunks and outlined or folded tails
// Nothing else a pass adds needs a feature: merge-functions and fuse-branches
// append slots to table 0 (or create table 0) with an MVP element segment and
// call them with call_indirect on table 0; new parameters are numbers or types the
// input already has; no pass adds a second table, a typed select, a
// passive segment or a global that crosses the module boundary. The
// pipeline checks the output (report.features) and fails if one slipped in.

import { featureUse, type FeatureUse } from "../analysis/feature-use.js";
import { WASM_FEATURES, featureByName, type WasmFeature } from "../analysis/feature-names.js";
import { UsageError } from "../errors.js";
import type { Module } from "../ir/module.js";
import type { PassOptions } from "./pass.js";

/**
 * User choices by feature name (wasm-opt's spelling or an alias such as
 * `multi-value`): true allows, false forbids, absent: allowed iff the input
 * uses or declares it.
 */
export type FeatureChoices = Readonly<Record<string, boolean>>;

/** The choices by canonical name; throws UsageError for a name that is no feature, or one both enabled and disabled. */
export function normalizeChoices(choices: FeatureChoices): Partial<Record<WasmFeature, boolean>> {
  const out: Partial<Record<WasmFeature, boolean>> = {};
  for (const [name, value] of Object.entries(choices)) {
    const f = featureByName(name);
    if (!f) throw new UsageError(`unknown feature "${name}" (use ${WASM_FEATURES.join(", ")})`);
    if (out[f] !== undefined && out[f] !== value) throw new UsageError(`feature ${f} is both enabled and disabled`);
    out[f] = value;
  }
  return out;
}

// For passes run outside the pipeline (tests, other tools), which gives
// inputFeatures: the answer for a module object. Passes add only features
// they may, so an answer stays right as the module changes.
const useOf = new WeakMap<Module, FeatureUse>();

/** May a pass add code that needs `feature` to this module? */
export function mayIntroduce(m: Module, options: PassOptions | undefined, feature: WasmFeature): boolean {
  const choice = options?.features?.[feature];
  if (choice !== undefined) return choice;
  let use = options?.inputFeatures;
  if (!use) {
    use = useOf.get(m) ?? featureUse(m);
    useOf.set(m, use);
  }
  return use.used.has(feature) || use.declared.has(feature);
}
