// Looking up and adding plain function types, and the type of a function index.

import type { Module } from "./module.js";
import type { ValType } from "./types.js";

/** An existing plain (final, no supertype, singleton group) function type with these params/results, or -1. */
export function findFuncType(m: Module, params: readonly ValType[], results: readonly ValType[]): number {
  for (const g of m.recGroups) {
    if (g.count !== 1 || g.explicit) continue;
    const t = m.types[g.start]!;
    const c = t.composite;
    if (c.kind !== "func" || !t.final || t.supertypes.length) continue;
    if (c.params.length === params.length && c.results.length === results.length &&
        c.params.every((p, i) => p === params[i]) && c.results.every((r, i) => r === results[i])) return g.start;
  }
  return -1;
}

/** The index of a plain function type with these params/results, adding one at the end if there is none. */
export function ensureFuncType(m: Module, params: readonly ValType[], results: readonly ValType[]): number {
  const found = findFuncType(m, params, results);
  if (found >= 0) return found;
  const index = m.types.length;
  m.types.push({ composite: { kind: "func", params: [...params], results: [...results] }, final: true, supertypes: [], form: "bare" });
  m.recGroups.push({ start: index, count: 1, explicit: false });
  return index;
}

/** Bytes a new plain function type adds to the type section (numeric/abstract-ref value types). */
export function funcTypeCost(params: readonly ValType[], results: readonly ValType[]): number {
  const leb = (n: number) => (n < 0x80 ? 1 : n < 0x4000 ? 2 : 3);
  return 1 + leb(params.length) + params.length + leb(results.length) + results.length;
}

/** Type index of every function, imports included, indexed by function index (built once per use site: imports need a scan). */
export function funcTypeTable(m: Module): Int32Array {
  const out = new Int32Array(m.numImportedFuncs + m.functions.length);
  let k = 0;
  for (const imp of m.imports) if (imp.desc.kind === "func") out[k++] = imp.desc.typeIndex;
  m.functions.forEach((f, i) => (out[m.numImportedFuncs + i] = f.typeIndex));
  return out;
}
