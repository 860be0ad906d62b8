// What a pass is. A pass is small, named and independent: it takes the module
// and a context and says what it changed. The pipeline, not the pass, decides
// ordering, byte accounting, validation and rollback.

import type { Module } from "../ir/module.js";
import type { MergeMapEntry } from "./merge-map.js";
import type { SizeJudge } from "../size-target.js";
import type { Func } from "../ir/module.js";
import type { FeatureUse } from "../analysis/feature-use.js";
import type { WasmFeature } from "../analysis/feature-names.js";

/**
 * What a profile says is hot (profile-guided mode, `--profile FILE`).
 * Passes that add calls or indirection (outline, fold-blocks,
 * merge-functions) keep their rewrites away from hot code. Answers are about
 * the function as it is now: when its body changed since it was profiled,
 * instruction-level answers fall back to the function-level one.
 */
export interface HotCode {
  /** True if any of this function's code ran often enough to count as hot. */
  isHotFunction(f: Func): boolean;
  /** True if instruction `instr` (an index into f's decoded body) is hot. */
  isHotInstruction(f: Func, instr: number): boolean;
}

/** Options the passes share (set from the CLI or `optimize` options). */
export interface PassOptions {
  /** Keep every function identity the host can observe (exports, funcrefs reaching the host) distinct. */
  keepExportIdentity?: boolean;
  /** What counts as smaller; passes that weigh candidates ask it (absent: exact raw bytes). */
  judge?: SizeJudge;
  /** Hot code from a profile (absent: no profile, every function may be rewritten). */
  hot?: HotCode;
  /** The user's feature choices by canonical name: true allows a feature, false forbids it (see features.ts; ask through mayIntroduce). */
  features?: Partial<Record<WasmFeature, boolean>>;
  /** What the input uses and declares, found once on the module as read (absent: mayIntroduce scans the module it is given). */
  inputFeatures?: FeatureUse;
}

export interface PassContext {
  /** Progress within this pass, as a fraction from 0 to 1 (optional to call). */
  progress(fraction: number): void;
  /** A human-readable remark that goes into the report under this pass. */
  note(message: string): void;
  /** Shared pass options. */
  options?: PassOptions;
  /** Records what became of a folded or merged function, or where code extracted from a function went (for `--map`). */
  record?(entry: MergeMapEntry): void;
  /**
   * The module as the pipeline last wrote it: writeModule(module) gives these
   * bytes until the pass changes the module, so a pass that needs them need
   * not write them again.
   */
  written?: Uint8Array;
}

export interface PassResult {
  /**
   * False if the module was left exactly as it was. The pipeline then skips
   * re-measuring; a pass that changed anything must return true.
   */
  changed: boolean;
  /** Pass-specific counters for the report, e.g. `{ functionsFolded: 12 }`. */
  stats?: Record<string, number>;
}

export interface Pass {
  /** Short name used on the command line (`--passes name`): lower-case, digits, dashes. */
  readonly name: string;
  /** One line for `--help` and the README. */
  readonly description: string;
  /**
   * An enabling pass whose growth later passes are expected to win back (say,
   * one that splits functions so that parts can be merged). The pipeline does
   * not undo such a pass when it makes the module larger; the identity rule
   * at the end (never return more bytes than the input) still holds.
   */
  readonly mayGrow?: boolean;
  /**
   * The pass only reorders functions (layout): it chooses, and the pipeline
   * checks its result, with the judge's `forOrders()`, which on an
   * estimate-judged run is cheaper than the judge itself.
   */
  readonly ordersOnly?: boolean;
  run(module: Module, ctx: PassContext): PassResult;
}
