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
export { DEFAULT_PIPELINE, getPass, listPasses, registerPass, unregisterPass } from "./passes/registry.js";
export { InternalError, UnknownPassError, UsageError } from "./errors.js";
export { SizeJudge, SIZE_TARGETS, type SizeMeasures, type SizeTarget } from "./size-target.js";
export { WasmDecodeError, WasmValidationError } from "./binary/errors.js";
export { VERSION } from "./version.js";
