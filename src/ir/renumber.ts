// One general mechanism for changing a function index space: remove, reorder
// or redirect functions, and every reference follows — calls, ref.func,
// element segments, exports, the start function, constant expressions and the
// name section (function and local names). Bodies that reference no moved
// function keep their original bytes.

import { Imm, OPS } from "../binary/opcodes/index.js";
import { decodeFunctionBody } from "../binary/reader.js";
import type { Body } from "./body.js";
import type { ConstExpr, Module } from "./module.js";

/** Per op id: word offsets (within the instruction's immediates) that hold function indices. */
const FUNC_WORDS: (number[] | null)[] = OPS.map((d) => {
  let off = 0;
  const at: number[] = [];
  for (const k of d.imms) {
    if (k === Imm.Func) at.push(off);
    // every op with a Func immediate has only fixed-width immediates before it
    off += k === Imm.I64 || k === Imm.F64 ? 2 : k === Imm.V128 || k === Imm.MemArg ? 4 : 1;
  }
  return at.length ? at : null;
});

/**
 * Applies `map` (old function index -> new index, or -1 for removed) to the
 * whole module. Defined functions are reordered to match the new indices;
 * imported functions must map to themselves. Throws if a removed function is
 * still referenced.
 */
export function renumberFunctions(m: Module, map: Int32Array): void {
  const nImp = m.numImportedFuncs;
  const total = nImp + m.functions.length;
  if (map.length !== total) throw new Error(`renumberFunctions: map has ${map.length} entries, module has ${total} functions`);
  for (let i = 0; i < nImp; i++) if (map[i] !== i) throw new Error("renumberFunctions: imported functions cannot move");
  const fix = (old: number): number => {
    const n = map[old];
    if (n === undefined || n < 0) throw new Error(`renumberFunctions: function ${old} is removed but still referenced`);
    return n;
  };
  const identity = map.every((v, i) => v === i);
  if (identity) return;

  // bodies: decode only those that mention a function index
  for (let i = 0; i < m.functions.length; i++) {
    const f = m.functions[i]!;
    if (map[nImp + i] === -1) continue;
    const body = f.body ?? decodeFunctionBody(m, f);
    if (rewriteBody(body, fix)) f.dirty = true;
  }
  const exprs: ConstExpr[] = [];
  for (const g of m.globals) exprs.push(g.init);
  for (const t of m.tables) if (t.init) exprs.push(t.init);
  for (const e of m.elements) {
    if (e.mode.kind === "active") exprs.push(e.mode.offset);
    if (e.items.kind === "exprs") exprs.push(...e.items.exprs);
    else e.items.funcs = e.items.funcs.map(fix);
  }
  for (const e of exprs) rewriteBody(e.body, fix);
  for (const e of m.exports) if (e.kind === "func") e.index = fix(e.index);
  if (m.start !== null) m.start = fix(m.start);

  // reorder the defined functions
  const kept = new Array(total - nImp).fill(null);
  let count = 0;
  for (let i = nImp; i < total; i++) {
    const n = map[i]!;
    if (n < 0) continue;
    if (n < nImp || n >= total || kept[n - nImp] !== null) throw new Error(`renumberFunctions: bad target ${n} for ${i}`);
    kept[n - nImp] = m.functions[i - nImp];
    count++;
  }
  for (let i = 0; i < count; i++) if (kept[i] === null) throw new Error("renumberFunctions: new indices are not dense");
  m.functions = kept.slice(0, count);

  if (m.names) {
    const fnames = new Map<number, string>();
    for (const [i, name] of m.names.functions) if (map[i] !== undefined && map[i]! >= 0) fnames.set(map[i]!, name);
    const lnames = new Map<number, Map<number, string>>();
    for (const [i, l] of m.names.locals) if (map[i] !== undefined && map[i]! >= 0) lnames.set(map[i]!, l);
    m.names.functions = fnames;
    m.names.locals = lnames;
    // label names are keyed by function index too; they cannot be remapped
    // without parsing, so they are dropped rather than left wrong.
    m.names.other = m.names.other.filter((o) => o.id !== 3);
    m.names.dirty = true;
  }
}

/** Rewrites function indices in place; returns true if anything changed. */
function rewriteBody(body: Body, fix: (old: number) => number): boolean {
  let changed = false;
  const { ops, immStart, imm } = body;
  for (let i = 0; i < body.count; i++) {
    const at = FUNC_WORDS[ops[i]!];
    if (!at) continue;
    for (const off of at) {
      const p = immStart[i]! + off;
      const n = fix(imm[p]!);
      if (n !== imm[p]) {
        imm[p] = n;
        changed = true;
      }
    }
  }
  return changed;
}
