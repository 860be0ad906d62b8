// One general mechanism for changing a function index space: remove, reorder
// or redirect functions, and every reference follows — calls, ref.func,
// element segments, exports, the start function, constant expressions and the
// name section (function and local names). Bodies that reference no moved
// function keep their original bytes.

import { FUNC_WORDS } from "./imm-layout.js";
import { bodyOf } from "../binary/reader.js";
import { ByteReader, ByteWriter } from "../binary/bytes.js";
import { mapWords } from "./body.js";
import { constExprs, type Module } from "./module.js";

/**
 * The index map of a redirection (functions or types): index i goes where
 * its target goes (`target[i]`, -1: removed), and a kept index t (`target[t]
 * === t`, `kept` of them) to `newIndex[t]`. Null when no index changes; the
 * map throws for a removed index that is still referenced.
 */
export function redirection(target: Int32Array, newIndex: Int32Array, kept: number, caller: string, noun: string): ((old: number) => number) | null {
  const total = target.length;
  const map = new Int32Array(total).fill(-1);
  for (let i = 0; i < total; i++) {
    const t = target[i]!;
    if (t < 0) continue;
    if (target[t] !== t) throw new Error(`${caller}: ${i} is redirected to ${t}, which is not kept`);
    map[i] = newIndex[t]!;
  }
  if (kept === total && map.every((v, i) => v === i)) return null;
  return (old) => {
    const n = map[old];
    if (n === undefined || n < 0) throw new Error(`${caller}: ${noun} ${old} is removed but still referenced`);
    return n;
  };
}

/**
 * Redirects, removes and reorders functions. `target[i]` is the function that
 * references to function i should now reach (i itself to keep it, another
 * index to fold i into that one), or -1 to remove i (which must then be
 * unreferenced). Imported functions cannot be removed or redirected. Kept
 * functions keep their relative order, or take `order` (old indices of the
 * kept defined functions, in their new order); every reference (calls,
 * ref.func, elements, exports, start, const expressions, names) follows.
 */
export function redirectFunctions(m: Module, target: Int32Array, order?: readonly number[]): void {
  const nImp = m.numImportedFuncs;
  const total = nImp + m.functions.length;
  if (target.length !== total) throw new Error(`redirectFunctions: map has ${target.length} entries, module has ${total} functions`);
  for (let i = 0; i < nImp; i++) if (target[i] !== i) throw new Error("redirectFunctions: imported functions cannot move");
  const kept: number[] = [];
  for (let i = nImp; i < total; i++) if (target[i] === i) kept.push(i);
  if (order) {
    const sorted = [...order].sort((a, b) => a - b);
    if (sorted.length !== kept.length || sorted.some((v, k) => v !== kept[k])) {
      throw new Error("redirectFunctions: the order must list exactly the kept defined functions");
    }
  }
  const newIndex = new Int32Array(total).fill(-1);
  for (let i = 0; i < nImp; i++) newIndex[i] = i;
  const finalOrder = order ?? kept;
  finalOrder.forEach((old, k) => (newIndex[old] = nImp + k));
  const fix = redirection(target, newIndex, nImp + kept.length, "redirectFunctions", "function");
  if (!fix) return;
  for (let i = 0; i < m.functions.length; i++) {
    if (target[nImp + i] !== nImp + i) continue; // removed or folded: its body goes away
    const f = m.functions[i]!;
    const body = bodyOf(m, f);
    const rewritten = mapWords(body, FUNC_WORDS, fix);
    if (rewritten !== body) {
      f.body = rewritten;
      f.dirty = true;
    }
  }
  for (const e of m.elements) if (e.items.kind === "funcs") e.items.funcs = e.items.funcs.map(fix);
  for (const e of constExprs(m)) e.body = mapWords(e.body, FUNC_WORDS, fix);
  for (const e of m.exports) if (e.kind === "func") e.index = fix(e.index);
  if (m.start !== null) m.start = fix(m.start);

  m.functions = finalOrder.map((old) => m.functions[old - nImp]!);

  if (m.names) {
    // names follow the kept functions; a folded function's name is lost
    // (the merge map records it).
    const fnames = new Map<number, string>();
    for (const [i, name] of m.names.functions) if (i < total && newIndex[i]! >= 0) fnames.set(newIndex[i]!, name);
    const lnames = new Map<number, Map<number, string>>();
    for (const [i, l] of m.names.locals) if (i < total && newIndex[i]! >= 0) lnames.set(newIndex[i]!, l);
    m.names.functions = fnames;
    m.names.locals = lnames;
    // label names are keyed by function index too
    m.names.other = m.names.other.flatMap((o) => {
      if (o.id !== LABEL_NAMES) return [o];
      const bytes = remapIndirectNames(o.bytes, newIndex);
      return bytes ? [{ id: o.id, bytes }] : [];
    });
    m.names.dirty = true;
  }
}

/** Puts the defined functions in `order` (old indices, each once); every reference follows. */
export function reorderFunctions(m: Module, order: readonly number[]): void {
  const target = new Int32Array(m.numImportedFuncs + m.functions.length);
  for (let i = 0; i < target.length; i++) target[i] = i;
  redirectFunctions(m, target, order);
}

const LABEL_NAMES = 3;

/**
 * An indirect name map (function index -> index -> name) with the function
 * indices renumbered, removed functions dropped, in the new index order.
 * Null if it is malformed (it is then dropped rather than left wrong).
 */
function remapIndirectNames(bytes: Uint8Array, newIndex: Int32Array): Uint8Array | null {
  try {
    const r = new ByteReader(bytes);
    const entries: { index: number; names: Uint8Array }[] = [];
    for (let n = r.count(); n > 0; n--) {
      const f = r.u32();
      const start = r.pos;
      for (let k = r.count(); k > 0; k--) {
        r.u32();
        r.name();
      }
      const to = f < newIndex.length ? newIndex[f]! : -1;
      if (to >= 0) entries.push({ index: to, names: bytes.subarray(start, r.pos) });
    }
    if (!r.atEnd()) return null;
    entries.sort((a, b) => a.index - b.index);
    const w = new ByteWriter(bytes.length + 16);
    w.u32(entries.length);
    for (const e of entries) {
      w.u32(e.index);
      w.bytes(e.names);
    }
    return w.finish();
  } catch {
    return null;
  }
}

/**
 * An order for redirectFunctions that moves as few functions as possible:
 * each removed function's index is taken by one of the last kept functions,
 * instead of shifting every later function down. Function indices appear in
 * every call, so this keeps most of the module's bytes (and what a
 * compressor already saw) as they were.
 */
export function fillHolesOrder(nImp: number, target: Int32Array): number[] {
  const kept: number[] = [];
  for (let i = nImp; i < target.length; i++) if (target[i] === i) kept.push(i);
  const count = kept.length;
  const end = nImp + count; // new index space: [nImp, end)
  // kept functions beyond the new end move into the holes below it
  const movers = kept.filter((i) => i >= end).reverse();
  const order: number[] = [];
  for (let pos = nImp; pos < end; pos++) order.push(target[pos] === pos ? pos : movers.pop()!);
  return order;
}
