// Removing globals: the global index space shrinks, and every reference
// follows — global.get/global.set in bodies and constant expressions, and
// exports. The name section's global names are dropped (not remapped), as
// they were when cleanup did this by hand.

import { bodyOf } from "../binary/reader.js";
import { mapWords } from "./body.js";
import { GLOBAL_WORDS } from "./imm-layout.js";
import { constExprs, type Module } from "./module.js";

/**
 * Removes the defined globals whose `keep` entry (indexed by global index,
 * imports first) is 0; imported globals must be kept. Nothing may reference
 * a removed global. Returns how many were removed.
 */
export function removeGlobals(m: Module, keep: Uint8Array): number {
  const nImp = m.numImportedGlobals;
  const total = nImp + m.globals.length;
  if (keep.length !== total) throw new Error(`removeGlobals: map has ${keep.length} entries, module has ${total} globals`);
  for (let i = 0; i < nImp; i++) if (!keep[i]) throw new Error("removeGlobals: imported globals cannot be removed");
  const map = new Int32Array(total);
  let next = 0;
  for (let i = 0; i < total; i++) map[i] = keep[i] ? next++ : -1;
  const removed = total - next;
  if (removed === 0) return 0;
  const fix = (old: number): number => {
    const n = map[old];
    if (n === undefined || n < 0) throw new Error(`removeGlobals: global ${old} is removed but still referenced`);
    return n;
  };
  for (const f of m.functions) {
    const body = bodyOf(m, f);
    const rewritten = mapWords(body, GLOBAL_WORDS, fix);
    if (rewritten !== body) {
      f.body = rewritten;
      f.dirty = true;
    }
  }
  for (const x of constExprs(m)) x.body = mapWords(x.body, GLOBAL_WORDS, fix);
  for (const e of m.exports) if (e.kind === "global") e.index = fix(e.index);
  m.globals = m.globals.filter((_, i) => keep[nImp + i]);
  if (m.names) {
    // global names (subsection 7) are keyed by index: drop rather than mislabel
    m.names.other = m.names.other.filter((o) => o.id !== 7);
    m.names.dirty = true;
  }
  return removed;
}
