// Classic compaction that the other passes rely on and re-run after
// themselves: remove functions nothing reachable uses, globals nothing
// reads or writes, types nothing uses, and instructions after an unconditional transfer of
// control. Exports, imports, the start function, table contents and segments
// are kept as they are: everything the host can see stays.

import { bodyOf } from "../binary/reader.js";
import { Eff, idOf, opSet } from "../binary/opcodes/index.js";
import { controlTree } from "../analysis/control-tree.js";
import { OP_EFFECTS } from "../analysis/effects.js";
import { BodyBuilder, type Body } from "../ir/body.js";
import { FUNC_WORDS, GLOBAL_WORDS } from "../ir/imm-layout.js";
import { removeGlobals } from "../ir/renumber-globals.js";
import { constExprs, type Module } from "../ir/module.js";
import { fillHolesOrder, redirectFunctions } from "../ir/renumber.js";
import { mapModuleTypeRefs, mapSubTypeRefs, redirectTypes } from "../ir/renumber-types.js";
import type { Pass, PassContext, PassResult } from "./pass.js";
import { removeParams } from "./params.js";

// tables by op id: every instruction of every body is looked up
/** Instructions that close an arm: one right after a transfer means nothing is dead there (no control tree needed). */
const ENDERS = opSet(["end", "else", "catch", "catch_all", "delegate"]);
/** Instructions after which the rest of the block is unreachable. */
const UNCONDITIONAL = Uint8Array.from(OP_EFFECTS, (e) => (e & Eff.UNCONDITIONAL ? 1 : 0));


function forEachWord(body: Body, table: readonly (readonly number[] | null)[], fn: (at: number) => void): void {
  for (let i = 0; i < body.count; i++) {
    const at = table[body.ops[i]!];
    if (at) for (const off of at) fn(body.immStart[i]! + off);
  }
}

/** Removes defined functions unreachable from exports, start, tables and constant expressions. */
export function removeDeadFunctions(m: Module): number {
  const nImp = m.numImportedFuncs;
  const total = nImp + m.functions.length;
  const live = new Uint8Array(total);
  const work: number[] = [];
  const mark = (f: number) => {
    if (!live[f]) {
      live[f] = 1;
      work.push(f);
    }
  };
  for (const e of m.exports) if (e.kind === "func") mark(e.index);
  if (m.start !== null) mark(m.start);
  for (const e of m.elements) if (e.items.kind === "funcs") e.items.funcs.forEach(mark);
  for (const x of constExprs(m)) forEachWord(x.body, FUNC_WORDS, (p) => mark(x.body.imm[p]!));
  while (work.length) {
    const f = work.pop()!;
    if (f < nImp) continue;
    const fn = m.functions[f - nImp]!;
    const body = bodyOf(m, fn);
    forEachWord(body, FUNC_WORDS, (p) => mark(body.imm[p]!));
  }
  const target = new Int32Array(total);
  let removed = 0;
  for (let i = 0; i < total; i++) {
    target[i] = i < nImp || live[i] ? i : -1;
    if (target[i] < 0) removed++;
  }
  if (removed) redirectFunctions(m, target, fillHolesOrder(nImp, target));
  return removed;
}

/** Removes defined globals that are not exported and never read or written. */
export function removeDeadGlobals(m: Module): number {
  const nImp = m.numImportedGlobals;
  const total = nImp + m.globals.length;
  const used = new Uint8Array(total);
  for (let i = 0; i < nImp; i++) used[i] = 1;
  for (const e of m.exports) if (e.kind === "global") used[e.index] = 1;
  const bodies = m.functions.map((f) => bodyOf(m, f));
  const exprs = constExprs(m);
  for (const b of bodies) forEachWord(b, GLOBAL_WORDS, (p) => (used[b.imm[p]!] = 1));
  for (const x of exprs) forEachWord(x.body, GLOBAL_WORDS, (p) => (used[x.body.imm[p]!] = 1));
  return removeGlobals(m, used);
}

/**
 * Removes types nothing outside the type section uses, directly or through
 * a used type (fields, params, supertypes). A recursion group goes only
 * whole: removing part of one changes its other members' identity.
 */
export function removeDeadTypes(m: Module): number {
  const total = m.types.length;
  if (total === 0) return 0;
  const groupOf = new Int32Array(total);
  m.recGroups.forEach((g, k) => groupOf.fill(k, g.start, g.start + g.count));
  const live = new Uint8Array(m.recGroups.length);
  const work: number[] = [];
  const mark = (t: number): number => {
    const g = groupOf[t]!;
    if (!live[g]) {
      live[g] = 1;
      work.push(g);
    }
    return t;
  };
  const close = (): void => {
    while (work.length) {
      const g = m.recGroups[work.pop()!]!;
      for (let i = g.start; i < g.start + g.count; i++) mapSubTypeRefs(m.types[i]!, mark);
    }
  };
  // Signatures alone usually use every type: then no body needs a walk.
  for (const f of m.functions) mark(f.typeIndex);
  for (const imp of m.imports) if (imp.desc.kind === "func") mark(imp.desc.typeIndex);
  close();
  if (live.every((x) => x === 1)) return 0;
  mapModuleTypeRefs(m, mark);
  close();
  const target = new Int32Array(total);
  let removed = 0;
  for (let i = 0; i < total; i++) {
    target[i] = live[groupOf[i]!] ? i : -1;
    if (target[i] < 0) removed++;
  }
  if (removed) redirectTypes(m, target);
  return removed;
}

/** Drops instructions between an unconditional transfer and the end of its block. Returns instructions removed. */
export function removeUnreachableCode(body: Body): { body: Body; removed: number } {
  let hit = false;
  for (let i = 0; i < body.count; i++) {
    if (UNCONDITIONAL[body.ops[i]!] && i + 1 < body.count && !ENDERS[body.ops[i + 1]!]) {
      hit = true;
      break;
    }
  }
  if (!hit) return { body, removed: 0 };
  const tree = controlTree(body);
  const b = new BodyBuilder(body.count, body.offsets !== null);
  let removed = 0;
  for (let i = 0; i < body.count; i++) {
    const op = body.ops[i]!;
    b.begin(op, body.offsets ? body.offsets[i]! : 0);
    for (let p = body.immStart[i]!; p < body.immStart[i + 1]!; p++) b.word(body.imm[p]!);
    if (!UNCONDITIONAL[op]) continue;
    // skip to the end/else/catch of the current arm, over nested blocks
    const j = tree.armEnd(i);
    removed += j - (i + 1);
    i = j - 1;
  }
  return { body: b.finish(), removed };
}

export interface CleanupStats {
  functionsRemoved: number;
  globalsRemoved: number;
  instructionsRemoved: number;
  constantsPropagated: number;
  deadParamsRemoved: number;
  typesRemoved: number;
}

export function cleanup(m: Module): CleanupStats {
  let instructionsRemoved = 0;
  for (const f of m.functions) {
    const body = bodyOf(m, f);
    const r = removeUnreachableCode(body);
    if (r.removed) {
      f.body = r.body;
      f.dirty = true;
      instructionsRemoved += r.removed;
    }
  }
  // removing a global can free the functions its initializer referenced
  let functionsRemoved = 0;
  let globalsRemoved = 0;
  for (;;) {
    const f = removeDeadFunctions(m);
    const g = removeDeadGlobals(m);
    functionsRemoved += f;
    globalsRemoved += g;
    if (g === 0) break;
  }
  const params = removeParams(m);
  // last: removing functions and parameters is what leaves types unused
  const typesRemoved = removeDeadTypes(m);
  return { functionsRemoved, globalsRemoved, instructionsRemoved, ...params, typesRemoved };
}

export const cleanupPass: Pass = {
  name: "cleanup",
  description: "remove unreachable functions, unused globals and types, code after unconditional branches, constant and unused parameters",
  run(m: Module, _ctx: PassContext): PassResult {
    const s = cleanup(m);
    const changed = s.functionsRemoved + s.globalsRemoved + s.instructionsRemoved + s.constantsPropagated + s.deadParamsRemoved + s.typesRemoved > 0;
    return { changed, stats: { ...s } };
  },
};
