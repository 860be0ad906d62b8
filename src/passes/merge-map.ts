// The merge map: for every folded or merged original function, what it
// became, and for every function that code was extracted from (outline,
// fold-blocks), which new function now holds that code. Entries name
// functions by their index in the input module (their origin) and name;
// resolveMergeMap adds where each ended up in the output, so a stack trace
// through merged or extracted code can be symbolicated.

import type { Module } from "../ir/module.js";

export interface FuncLabel {
  /** Index in the input module; negative for a function a pass created. */
  origin: number;
  name?: string;
  /** Index in the output module (filled in by resolveMergeMap; absent if the function is gone). */
  output?: number;
}

export interface MergeMapEntry {
  function: FuncLabel;
  /**
   * folded: removed, its references now reach `into`; thunk: its body now
   * calls `into` with `args`; extracted: `sites` pieces of its code were
   * moved into `into`, a function a pass created, and are called from there.
   */
  became: "folded" | "thunk" | "extracted";
  into: FuncLabel;
  /** Extra arguments the thunk passes, as text ("i32.const 5", "callee 12 (name)"). */
  args?: string[];
  /** extracted: how many places of `function` now call `into`. */
  sites?: number;
  /**
   * extracted: some of those places tail-call `into` (return_call), so a
   * stack trace inside `into` may not show `function` as its caller.
   */
  tail?: boolean;
}

/** A call site a pass made to code it extracted: the host's and the callee's current indices, and whether it is a tail call. */
export interface ExtractedCall {
  host: number;
  callee: number;
  tail: boolean;
}

/** Entries for code extracted into new functions: one per (host, new function) pair. */
export function extractedEntries(m: Module, calls: readonly ExtractedCall[]): MergeMapEntry[] {
  const by = new Map<string, MergeMapEntry>();
  for (const c of calls) {
    const key = `${c.host}>${c.callee}`;
    const e = by.get(key);
    if (e) {
      e.sites!++;
      if (c.tail) e.tail = true;
    } else {
      by.set(key, { function: funcLabel(m, c.host), became: "extracted", into: funcLabel(m, c.callee), sites: 1, ...(c.tail ? { tail: true } : {}) });
    }
  }
  return [...by.values()];
}

const created = new WeakMap<Module, number>();

/** A fresh origin for a function a pass creates. */
export function newOrigin(m: Module): number {
  const n = (created.get(m) ?? 0) + 1;
  created.set(m, n);
  return -n;
}

/** Label of function `index` in the module as it is now. */
export function funcLabel(m: Module, index: number): FuncLabel {
  const origin = index < m.numImportedFuncs ? index : m.functions[index - m.numImportedFuncs]!.origin;
  const name = m.names?.functions.get(index);
  return name === undefined ? { origin } : { origin, name };
}

/** Fills in output indices from the final module. */
export function resolveMergeMap(m: Module, entries: readonly MergeMapEntry[]): MergeMapEntry[] {
  const out = new Map<number, number>();
  for (let i = 0; i < m.numImportedFuncs; i++) out.set(i, i);
  m.functions.forEach((f, i) => out.set(f.origin, m.numImportedFuncs + i));
  const fix = (l: FuncLabel): FuncLabel => {
    const o = out.get(l.origin);
    return o === undefined ? { ...l } : { ...l, output: o };
  };
  return entries.map((e) => ({ ...e, function: fix(e.function), into: fix(e.into) }));
}
