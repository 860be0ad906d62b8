// The behaviour oracle's unit of work: one npm package that ships WebAssembly,
// driven through its own JavaScript API by a real workload.
//
// The runner (run-corpus.ts) asks a workload for its original module(s),
// optimizes each, then runs the workload twice in fresh child processes, once
// with the original modules and once with the optimized ones, and compares the
// two outputs exactly. A workload never modifies node_modules: it hands the
// package the bytes through the package's own options (wasmBinary, init(bytes)
// ...) or through a copy of the package in a temporary folder.

/** A deterministic, JSON-serializable value: what a run produced. */
export type Output = null | boolean | number | string | Output[] | { [key: string]: Output };

/** One WebAssembly module a workload needs, named as in the corpus (test/corpus/corpus.ts). */
export interface WasmModule {
  name: string;
  bytes: Uint8Array;
}

/** Handed to `run`: where a workload records failed cross-checks against an independent implementation. */
export interface RunContext {
  /**
   * Records a failed cross-check when `ok` is false (say, a digest that
   * differs from node:crypto's). A failed check in the run with the original
   * modules means the workload itself is wrong; the runner reports that as an
   * error. Failed checks are also compared between the two runs.
   */
  check(ok: boolean, what: string): void;
}

export interface Workload {
  /** Short name, used by `--only` (usually the npm package's name). */
  name: string;
  /** "big" members run only with `npm run corpus -- --all`. */
  size: "small" | "big";
  /** One line: what the workload exercises. */
  description: string;
  /** Extra Node.js options for the child process that runs the workload (say, --experimental-wasm-modules). */
  nodeOptions?: readonly string[];
  /** The original module(s), in the order `run` expects them. */
  wasm(): WasmModule[];
  /**
   * Runs the workload with the given modules (same order as `wasm()`), each
   * time on fresh instances: nothing is shared with an earlier run.
   */
  run(wasm: readonly Uint8Array[], ctx: RunContext): Promise<Output>;
}
