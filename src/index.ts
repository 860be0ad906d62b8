// wasm-compact: a code-size optimizer for WebAssembly binaries.
// Platform-neutral library entry: Uint8Array in, Uint8Array out.

export { optimize, type OptimizeOptions, type OptimizeResult } from "./pipeline.js";
export {
  formatSizeTable,
  percentChange,
  scanSections,
  type PassReport,
  type Report,
  type SectionInfo,
  type SizeChange,
} from "./report.js";
export type { Pass, PassContext, PassResult } from "./passes/pass.js";
export { DEFAULT_PIPELINE, RAW_PIPELINE, defaultPipeline, getPass, listPasses, registerPass, unregisterPass } from "./passes/registry.js";
export { InternalError, UnknownPassError, UsageError } from "./errors.js";
export { SizeJudge, SIZE_TARGETS, type SizeMeasures, type SizeTarget } from "./size-target.js";
export { WasmDecodeError, WasmValidationError } from "./binary/errors.js";
export { VERSION } from "./version.js";
// Reusing work across runs: the injected store and what a cached run reports.
export { MemoryCacheStore, type CacheStore } from "./cache/store.js";
export type { CacheOptions, CacheStats } from "./cache/stats.js";
export type { HotCode, PassOptions } from "./passes/pass.js";
// Feature discipline: names, what a module uses and declares, what passes may add.
export { WASM_FEATURES, featureByName, type WasmFeature } from "./analysis/feature-names.js";
export { declaredFeatures, usedFeatures } from "./analysis/feature-use.js";
export { mayIntroduce, type FeatureChoices } from "./passes/features.js";
// Profile-guided mode: instrument, turn counts into a profile, decide what is hot.
export { instrument, COUNTER_EXPORT, COUNT_EXPORT, type InstrumentOptions, type InstrumentResult } from "./profile/instrument.js";
export { MAP_SECTION, decodeProfileMap, type ProfileMap } from "./profile/profile-map.js";
export { formatProfile, parseProfile, profileFromCounts, type Profile, type ProfileFunction } from "./profile/profile.js";
export { DEFAULT_HOT_THRESHOLD, hotCodeFromProfile, type HotSummary } from "./profile/hot-code.js";
export { ProfileError } from "./profile/errors.js";
export { fingerprint } from "./profile/fingerprint.js";
