// "The same instruction" in an input and an output, found without the
// optimizer's own bookkeeping: per function (by name), the two instruction
// sequences are aligned (longest common subsequence of opcodes and their
// non-index immediates). The debug-info tests (source maps, DWARF) compare
// what the input's and the output's debug info say about aligned pairs.

import { decodeAllBodies } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import type { Module } from "../src/ir/module.js";

export interface Instr {
  key: string;
  offset: number;
}

/** Each named defined function's instructions: a key (opcode and immediates, callees by name, locals left out) and its file offset. */
export function instructions(m: Module): Map<string, Instr[]> {
  decodeAllBodies(m);
  const out = new Map<string, Instr[]>();
  const nameOf = (fi: number): string => m.names?.functions.get(fi) ?? `#${fi}`;
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
