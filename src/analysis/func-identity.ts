// Which functions' identities the host can observe. Folding two functions
// into one is invisible inside wasm (funcref has no equality), but the host
// sees function objects: exports, and function references that reach it
// through an exported or imported table, a global, or a boundary signature.

import { idOf } from "../binary/opcodes/index.js";
import type { Module } from "../ir/module.js";
import { isRef, type ValType } from "../ir/types.js";
import { FUNC_WORDS } from "../ir/imm-layout.js";

const REF_FUNC = idOf("ref.func");

/** Functions named in element segments or by ref.func anywhere (their references can be stored and passed around). */
export function referencedFunctions(m: Module): Set<number> {
  const out = new Set<number>();
  const scan = (body: { count: number; ops: Uint16Array; immStart: Uint32Array; imm: Int32Array }) => {
    for (let i = 0; i < body.count; i++) {
      if (body.ops[i] === REF_FUNC) out.add(body.imm[body.immStart[i]! + FUNC_WORDS[REF_FUNC]![0]!]!);
    }
  };
  for (const e of m.elements) {
    if (e.items.kind === "funcs") for (const f of e.items.funcs) out.add(f);
    else for (const x of e.items.exprs) scan(x.body);
  }
  for (const g of m.globals) scan(g.init.body);
  for (const t of m.tables) if (t.init) scan(t.init.body);
  for (const f of m.functions) if (f.body) scan(f.body);
  return out;
}

/** True if function references can reach the host at all. */
export function funcRefsEscape(m: Module): boolean {
  const refTyped = (ts: readonly ValType[]) => ts.some(isRef);
  const typeEscapes = (typeIndex: number) => {
    const c = m.types[typeIndex]?.composite;
    return !c || c.kind !== "func" || refTyped(c.params) || refTyped(c.results);
  };
  for (const imp of m.imports) {
    const d = imp.desc;
    if (d.kind === "table") return true;
    if (d.kind === "global" && isRef(d.type.type)) return true;
    if (d.kind === "func" && typeEscapes(d.typeIndex)) return true;
    if (d.kind === "tag") return true;
  }
  const nImp = m.numImportedFuncs;
  for (const e of m.exports) {
    if (e.kind === "table") return true;
    if (e.kind === "global") {
      const g = e.index < m.numImportedGlobals ? null : m.globals[e.index - m.numImportedGlobals];
      if (!g || isRef(g.type.type)) return true;
    }
    if (e.kind === "func" && e.index >= nImp && typeEscapes(m.functions[e.index - nImp]!.typeIndex)) return true;
    if (e.kind === "tag") return true;
  }
  return false;
}

/**
 * Per function index: 1 if folding it into another function would be visible
 * to the host. With `keepExportIdentity` off, exports and funcrefs escaping
 * to the host may become the same function object (the documented default).
 */
export function observableIdentity(m: Module, keepExportIdentity: boolean): Uint8Array {
  const total = m.numImportedFuncs + m.functions.length;
  const out = new Uint8Array(total);
  for (let i = 0; i < m.numImportedFuncs; i++) out[i] = 1;
  if (!keepExportIdentity) return out;
  for (const e of m.exports) if (e.kind === "func") out[e.index] = 1;
  if (funcRefsEscape(m)) for (const f of referencedFunctions(m)) out[f] = 1;
  return out;
}
