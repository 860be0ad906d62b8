// wabt's feature flags for a set of our features (wasm-opt's names), so a
// module can be validated under exactly the features its input had.

import type { WasmFeature } from "../../src/analysis/feature-names.js";
import { WABT_FEATURES, type WabtFeatures } from "./external.js";

/** The wabt flags each feature needs; features wabt does not know map to none. */
const WABT_FLAGS: Record<WasmFeature, readonly string[]> = {
  "sign-ext": ["sign_extension"],
  "threads": ["threads"],
  "mutable-globals": ["mutable_globals"],
  "nontrapping-float-to-int": ["sat_float_to_int"],
  "simd": ["simd"],
  "bulk-memory": ["bulk_memory"],
  "exception-handling": ["exceptions"],
  "tail-call": ["tail_call"],
  "reference-types": ["reference_types"],
  "multivalue": ["multi_value"],
  "gc": ["gc", "function_references"],
  "memory64": ["memory64"],
  "relaxed-simd": ["relaxed_simd"],
  "extended-const": ["extended_const"],
  "multimemory": ["multi_memory"],
  "custom-page-sizes": [],
  "wide-arithmetic": [],
};

/** Every wabt flag off (wabt turns several on by default) except those `features` need. */
export function wabtFeaturesFor(features: Iterable<WasmFeature>): WabtFeatures {
  const flags: Record<string, boolean> = Object.fromEntries(Object.keys(WABT_FEATURES).map((k) => [k, false]));
  for (const f of features) for (const flag of WABT_FLAGS[f]) flags[flag] = true;
  return flags;
}
