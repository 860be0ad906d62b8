// Names of the WebAssembly features a module may need, as wasm-opt spells
// them (`--enable-multivalue`), with the other spellings users and
// toolchains write: our older `multi-value`, and LLVM's names as found in a
// module's `target_features` custom section (`simd128`, `atomics`,
// `nontrapping-fptoint`).

/** Every feature the detector (analysis/feature-use.ts) can find, in wasm-opt's spelling and order. */
export const WASM_FEATURES = [
  "sign-ext",
  "threads",
  "mutable-globals",
  "nontrapping-float-to-int",
  "simd",
  "bulk-memory",
  "exception-handling",
  "tail-call",
  "reference-types",
  "multivalue",
  "gc",
  "memory64",
  "relaxed-simd",
  "extended-const",
  "multimemory",
  "custom-page-sizes",
  "wide-arithmetic",
] as const;

export type WasmFeature = (typeof WASM_FEATURES)[number];

/** Other spellings accepted by --enable/--disable and the `features` option. */
const ALIASES: Readonly<Record<string, WasmFeature>> = {
  "multi-value": "multivalue",
  "multi-memory": "multimemory",
  "simd128": "simd",
  "atomics": "threads",
  "nontrapping-fptoint": "nontrapping-float-to-int",
  "sat-float-to-int": "nontrapping-float-to-int",
  "sign-extension": "sign-ext",
  "exceptions": "exception-handling",
  "tail-calls": "tail-call",
};

/** The canonical name for a user-given spelling, or null if it names no feature. */
export function featureByName(name: string): WasmFeature | null {
  if ((WASM_FEATURES as readonly string[]).includes(name)) return name as WasmFeature;
  return ALIASES[name] ?? null;
}

/**
 * LLVM's target_features names (llvm/lib/Target/WebAssembly/WebAssembly.td)
 * that declare one of our features. `bulk-memory-opt` (memory.copy and
 * memory.fill only) and `call-indirect-overlong` (an encoding detail) declare
 * less than a whole feature here and are not mapped.
 */
const TARGET_FEATURE_NAMES: Readonly<Record<string, WasmFeature>> = {
  "atomics": "threads",
  "bulk-memory": "bulk-memory",
  "exception-handling": "exception-handling",
  "extended-const": "extended-const",
  "gc": "gc",
  "memory64": "memory64",
  "multimemory": "multimemory",
  "multivalue": "multivalue",
  "mutable-globals": "mutable-globals",
  "nontrapping-fptoint": "nontrapping-float-to-int",
  "reference-types": "reference-types",
  "relaxed-simd": "relaxed-simd",
  "sign-ext": "sign-ext",
  "simd128": "simd",
  "tail-call": "tail-call",
  "wide-arithmetic": "wide-arithmetic",
  "custom-page-sizes": "custom-page-sizes",
};

/** The feature a target_features entry name declares, or null. */
export function featureOfTargetName(name: string): WasmFeature | null {
  return TARGET_FEATURE_NAMES[name] ?? null;
}

/** Features in WASM_FEATURES order (for stable reports). */
export function sortFeatures(fs: Iterable<WasmFeature>): WasmFeature[] {
  const set = new Set(fs);
  return WASM_FEATURES.filter((f) => set.has(f));
}
