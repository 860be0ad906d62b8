// A deliberately wrong pass, for tests only: it shows that the behaviour
// oracle catches a transformation that keeps the module valid (and its size
// unchanged, so the pipeline keeps it) but changes what the program computes.
//
// In the function with the most distinct i32.const values (in practice the
// hot loop: a hash's compression function, a compressor's main loop), it
// swaps the immediates of the two i32.const instructions whose values have
// the largest magnitudes (typically round constants or masks).

import { decodeFunctionBody } from "../../src/binary/reader.js";
import { idOf } from "../../src/binary/opcodes/index.js";
import type { Module } from "../../src/ir/module.js";
import type { Pass } from "../../src/index.js";

export interface SwapSite {
  /** Index of the function among the module's defined functions. */
  func: number;
  /** Instruction indices of the two swapped i32.const. */
  at: [number, number];
  values: [number, number];
}

/** Finds the two i32.const to swap, or null if no function has two distinct ones. */
export function findSwapSite(m: Module): SwapSite | null {
  const I32_CONST = idOf("i32.const");
  let best: { func: number; distinct: number } | null = null;
  for (const [i, f] of m.functions.entries()) {
    const b = decodeFunctionBody(m, f);
    const values = new Set<number>();
    for (let k = 0; k < b.count; k++) if (b.ops[k] === I32_CONST) values.add(b.imm[b.immStart[k]!]!);
    if (values.size >= 2 && (best === null || values.size > best.distinct)) best = { func: i, distinct: values.size };
  }
  if (best === null) return null;
  const b = decodeFunctionBody(m, m.functions[best.func]!);
  // The first instruction holding each value, largest magnitudes first.
  const firstAt = new Map<number, number>();
  for (let k = 0; k < b.count; k++) {
    if (b.ops[k] !== I32_CONST) continue;
    const v = b.imm[b.immStart[k]!]!;
    if (!firstAt.has(v)) firstAt.set(v, k);
  }
  const byMagnitude = [...firstAt.keys()].sort((x, y) => Math.abs(y) - Math.abs(x) || y - x);
  const [v1, v2] = [byMagnitude[0]!, byMagnitude[1]!];
  return { func: best.func, at: [firstAt.get(v1)!, firstAt.get(v2)!], values: [v1, v2] };
}

/** Applies the swap to a module in place; returns what it did. */
export function swapConstants(m: Module): SwapSite | null {
  const site = findSwapSite(m);
  if (!site) return null;
  const f = m.functions[site.func]!;
  const b = decodeFunctionBody(m, f);
  b.imm[b.immStart[site.at[0]]!] = site.values[1];
  b.imm[b.immStart[site.at[1]]!] = site.values[0];
  f.dirty = true;
  return site;
}

/** The broken transformation as a pass (pass it to `optimize({ passes: [brokenPass] })`). */
export const brokenPass: Pass = {
  name: "test-swap-i32-constants",
  description: "TEST ONLY, WRONG ON PURPOSE: swaps two i32.const immediates in the function with the most distinct constants",
  run(m, ctx) {
    const site = swapConstants(m);
    if (!site) return { changed: false };
    ctx.note(`swapped i32.const ${site.values[0]} and ${site.values[1]} in defined function ${site.func} (instructions ${site.at[0]} and ${site.at[1]})`);
    return { changed: true, stats: { swapped: 1 } };
  },
};
