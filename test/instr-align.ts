// "The same instruction" in an input and an output, found without the
// optimizer's own bookkeeping: per function (by name), the two instruction
// sequences are aligned (longest common subsequence of opcodes and their
// non-index immediates). The debug-info tests (source maps, DWARF) compare
// what the input's and the output's debug info say about aligned pairs.

import { decodeAllBodies } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import { funcTypeIndex, type Module } from "../src/ir/module.js";

export interface Instr {
  key: string;
  offset: number;
  /** Part of a call site to code a pass extracted (see markGlue): it has no input instruction of its own. */
  glue?: boolean;
  /** A glue call: how many results its callee returns. */
  results?: number;
}

/**
 * Each named defined function's instructions: a key (opcode and immediates,
 * callees by name, locals left out) and its file offset. `extracted` names
 * functions a pass created from code it took out of others (the merge map's
 * "extracted" entries): the call sites to them are marked as glue. `folded`
 * renames callees (the merge map's "folded" entries: a call to the function
 * now calls the one it was folded into).
 */
export function instructions(m: Module, extracted: ReadonlySet<string> = new Set(), folded: ReadonlyMap<string, string> = new Map()): Map<string, Instr[]> {
  decodeAllBodies(m);
  const out = new Map<string, Instr[]>();
  const nameOf = (fi: number): string => {
    let n = m.names?.functions.get(fi) ?? `#${fi}`;
    for (let k = 0; k < 8 && folded.has(n); k++) n = folded.get(n)!;
    return n;
  };
  m.functions.forEach((f, k) => {
    const name = m.names?.functions.get(m.numImportedFuncs + k);
    if (!name || !f.body) return;
    const b = f.body;
    const list: Instr[] = [];
    for (let i = 0; i < b.count; i++) {
      const name = OPS[b.ops[i]!]!.name;
      const w = b.imm[b.immStart[i]!];
      // callees by name (indices change); constants and globals as they are; locals left out (cleanup renumbers them)
      const key = name === "call" || name === "return_call" ? `${name} ${nameOf(w!)}` : name === "i32.const" || name.startsWith("global.") ? `${name} ${w}` : name;
      list.push({ key, offset: b.offsets ? b.offsets[i]! : 0 });
    }
    if (extracted.size > 0) markGlue(m, list, extracted);
    out.set(name, list);
  });
  return out;
}

/** Pairs of indices (a, b) of a longest common subsequence of keys. */
export function align(a: readonly Instr[], b: readonly Instr[]): [number, number][] {
  const n = a.length;
  const m = b.length;
  const w = m + 1;
  const len = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      len[i * w + j] = a[i]!.key === b[j]!.key ? len[(i + 1) * w + j + 1]! + 1 : Math.max(len[(i + 1) * w + j]!, len[i * w + j + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i]!.key === b[j]!.key && len[i * w + j] === len[(i + 1) * w + j + 1]! + 1) {
      pairs.push([i++, j++]);
    } else if (len[(i + 1) * w + j]! >= len[i * w + j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/**
 * Marks the instructions of each call site to an extracted function: the
 * call and the `local.get`s just before it (at most one per parameter: the
 * locals the site passes). What follows the call (`local.set`s or `drop`s
 * of results handed back in locals, a `return` or `unreachable`) may be the
 * site's or the host's own next instructions, which look the same (dlmalloc
 * in shapes-Oz-g.wasm: a call to outlined$13 returns two values, the site
 * stores one, the host's own `local.set` takes the other); it is left to
 * the comparison (test/debug-oracle.ts), which gets the callee's result
 * count. Glue
 * gets a key no input instruction has, so the alignment never pairs it with
 * an input instruction that moved into the new function. A stack operand the
 * host's own code pushed with a `local.get` just before the call is marked
 * too; the check expects of glue the location of the first input instruction
 * the alignment leaves unpaired there, which is then that same `local.get`.
 */
function markGlue(m: Module, list: Instr[], extracted: ReadonlySet<string>): void {
  const byName = new Map<string, number>();
  for (const [fi, n] of m.names?.functions ?? []) byName.set(n, fi);
  const mark = (k: number): void => {
    list[k]!.glue = true;
    list[k]!.key = `glue ${list[k]!.key}`;
  };
  for (let c = 0; c < list.length; c++) {
    const m1 = /^(call|return_call) (.*)$/.exec(list[c]!.key);
    if (!m1 || !extracted.has(m1[2]!)) continue;
    const callee = byName.get(m1[2]!);
    const t = callee === undefined ? undefined : m.types[funcTypeIndex(m, callee)]?.composite;
    const [params, results] = t?.kind === "func" ? [t.params.length, t.results.length] : [0, 0];
    for (let k = c - 1, n = 0; k >= 0 && n < params && list[k]!.key === "local.get"; k--, n++) mark(k);
    mark(c);
    list[c]!.results = results;
  }
}
