// What became of each function: the input's defined functions matched to the
// output's, for the per-function report. The merge map is exact for folded,
// merged and extracted functions. For the others the output does not say
// which input function it was (passes remove and reorder functions), so they
// are matched by a name both modules give one function only, then by export
// name, then by a body that is byte-identical and unique on both sides.
// What stays unmatched is said so, never guessed.

import type { FuncLabel, MergeMapEntry } from "./passes/merge-map.js";
import type { FunctionSize, ModuleFunctions } from "./function-sizes.js";

export type Fate =
  /** In the output (matched by `matchedBy`). */
  | "kept"
  /** Removed; its references reach `into`. */
  | "folded"
  /** Its body now calls `into` (merge-functions). */
  | "thunk"
  /** Not in the output and nothing references it there (the output's names say so). */
  | "removed"
  /** A function a pass created (outlined or folded blocks). */
  | "new"
  /** The report cannot tell which output function it became, or which input function this was. */
  | "unmatched";

export type MatchedBy = "merge map" | "name" | "export" | "identical body";

export interface FunctionRow {
  /** The input function (absent for an output function with no known input). */
  input?: { index: number; size: number };
  /** The output function (absent when it is gone or unmatched). */
  output?: { index: number; size: number };
  /** The input's name, else the output's. */
  name?: string;
  fate: Fate;
  matchedBy?: MatchedBy;
  /** folded, thunk: the function it became. */
  into?: FuncLabel;
  /** Functions created from code of this one (outline, fold-blocks), with the number of places that call each. */
  extracted: { into: FuncLabel; sites: number }[];
}

/** One row per input defined function, then one per output function no input row holds. */
export function functionRows(mergeMap: readonly MergeMapEntry[], input: ModuleFunctions, output: ModuleFunctions): FunctionRow[] {
  const outBy = new Map<number, FunctionSize>();
  for (const f of output.functions) outBy.set(f.index, f);
  const inBy = new Map<number, FunctionSize>();
  for (const f of input.functions) inBy.set(f.index, f);

  const rows = new Map<number, FunctionRow>(); // by input index
  const taken = new Set<number>(); // output indices a row holds
  const created = new Set<number>(); // output indices of functions passes created
  const place = (row: FunctionRow, outIndex: number | undefined, by: MatchedBy): void => {
    if (outIndex === undefined || taken.has(outIndex)) return;
    const f = outBy.get(outIndex);
    if (!f) return;
    row.output = { index: outIndex, size: f.size };
    row.matchedBy = by;
    taken.add(outIndex);
  };
  for (const f of input.functions) {
    rows.set(f.index, { input: { index: f.index, size: f.size }, ...(f.name !== undefined ? { name: f.name } : {}), fate: "unmatched", extracted: [] });
  }
  for (const e of mergeMap) {
    if (e.into.origin < 0 && e.into.output !== undefined) created.add(e.into.output);
    const row = rows.get(e.function.origin);
    if (!row) continue;
    if (e.became === "extracted") {
      row.extracted.push({ into: e.into, sites: e.sites ?? 1 });
      if (row.fate === "unmatched") {
        row.fate = "kept";
        place(row, e.function.output, "merge map");
      }
    } else {
      row.fate = e.became;
      row.into = e.into;
      delete row.output;
      delete row.matchedBy;
      if (e.became === "thunk") place(row, e.function.output, "merge map");
    }
  }
  for (const i of created) taken.add(i);

  const open = (): FunctionRow[] => [...rows.values()].filter((r) => r.fate === "unmatched");
  const matchBy = (by: MatchedBy, keysOf: (f: FunctionSize) => string[]): void => {
    const unique = (fs: Iterable<FunctionSize>, skip: (f: FunctionSize) => boolean): Map<string, number> => {
      const seen = new Map<string, number>(); // key -> index, or -1 when several have it
      for (const f of fs) {
        if (skip(f)) continue;
        for (const k of keysOf(f)) seen.set(k, seen.has(k) ? -1 : f.index);
      }
      return seen;
    };
    const pending = open();
    const inKeys = unique(pending.map((r) => inBy.get(r.input!.index)!), () => false);
    const outKeys = unique(output.functions, (f) => taken.has(f.index));
    for (const r of pending) {
      for (const k of keysOf(inBy.get(r.input!.index)!)) {
        const o = outKeys.get(k);
        if (inKeys.get(k) !== r.input!.index || o === undefined || o < 0 || taken.has(o)) continue;
        r.fate = "kept";
        place(r, o, by);
        break;
      }
    }
  };
  matchBy("name", (f) => (f.name !== undefined ? [f.name] : []));
  matchBy("export", (f) => f.exports);
  matchBy("identical body", (f) => [bodyKey(f.body)]);
  // With names on both sides, a named input function whose name the output lacks was removed.
  if (output.named) {
    const outNames = new Set(output.functions.map((f) => f.name));
    for (const r of open()) if (r.name !== undefined && !outNames.has(r.name)) r.fate = "removed";
  }

  const out: FunctionRow[] = [...rows.values()];
  for (const f of output.functions) {
    if (taken.has(f.index) && !created.has(f.index)) continue;
    out.push({ output: { index: f.index, size: f.size }, ...(f.name !== undefined ? { name: f.name } : {}), fate: created.has(f.index) ? "new" : "unmatched", extracted: [] });
  }
  return out;
}

/** A string key for a body's bytes (latin-1, one char per byte). */
function bodyKey(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 4096) s += String.fromCharCode(...b.subarray(i, i + 4096));
  return s;
}
