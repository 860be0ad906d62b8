// What replacing slices by calls costs and saves, in exact bytes (DIGEST
// §1.8's model), and which classes of equal slices to take:
//   per occurrence: the bytes of the instructions that die with it (those
//   all of whose uses are inside the slice), minus the call site
//   (local.get of each stop value's local, and the call);
//   per class: minus the new function (function and code section entries)
//   and its type when the module has no equal one.
// Also the paper's preset (3 < I <= 20, P <= 1, C >= 10), which takes a
// class on those counts alone; the exact model then says what it costs.

import { u32Size } from "../../binary/bytes.js";
import { idOf } from "../../binary/opcodes/index.js";
import type { Module } from "../../ir/module.js";
import { findFuncType, funcTypeCost } from "../../ir/func-types.js";
import { functionCostOf, instrSize } from "../../analysis/sizes.js";
import type { CanonicalSlice } from "./canon.js";
import type { FunctionSlicer, Slice } from "./identify.js";

const LOCAL_SET = idOf("local.set");
const LOCAL_TEE = idOf("local.tee");

/** What happens to the parent when a slice's criterion becomes a call. */
export interface Removal {
  /** Instructions of the parent that die (the criterion included: the call replaces it), ascending. */
  dead: number[];
  /** local.tee instructions that stay for their other readers but whose pushed value died: they become local.set (same size). */
  teeToSet: number[];
  /** Bytes of `dead`. */
  bytes: number;
}

/**
 * The instructions that die with slice s: the largest subset of the slice
 * in which every instruction's every use (the instruction popping its value;
 * for a local.set/tee, every local.get of its value and every φ using it) is
 * in the subset or is the criterion. The φs the slice's γs stand for are
 * members too (a φ's uses: the local.gets and φs reading it). An if whose
 * value is a γ goes as a whole, with everything in its arms, or stays; null
 * when it would have to stay while the slice's use of its value goes.
 */
export function removal(fs: FunctionSlicer, s: Slice): Removal | null {
  const { ops } = fs.body;
  const phiElement = (v: number): number => -(v + 1);
  const members = new Set<number>([...s.instrs, ...s.phis.map(phiElement)]);
  const dead = new Set(members);
  /** Per if/else/end of an if construct in the slice: what it goes with (the end's consumer, everything inside, itself). */
  const nests = new Map<number, number[]>();
  for (const i of s.constructs) {
    const e = fs.tree.end[fs.tree.constructOf[i]!]!;
    const group = [fs.consumerOf(e)]; // a slice operation: the end is in the slice because one pops its value
    for (let k = i; k <= e; k++) group.push(k);
    for (const k of [i, fs.tree.firstArm(fs.tree.constructOf[i]!), e]) nests.set(k, group);
  }
  /** The uses of each member, or null for "used outside for sure". */
  const usesOf = new Map<number, number[] | null>();
  for (const x of members) {
    if (x === s.criterion) continue;
    const u: number[] = [];
    let outside = false;
    const valueUses = (v: number): void => {
      u.push(...fs.ssa.getsOf(v));
      for (const p of fs.ssa.phisUsing(v)) u.push(phiElement(p));
    };
    const nest = nests.get(x);
    if (x < 0) valueUses(-x - 1);
    else if (nest) u.push(...nest);
    else {
      const op = ops[x]!;
      if (op !== LOCAL_SET) {
        const k = fs.consumerOf(x);
        if (k < 0) outside = true;
        else u.push(k);
      }
      if (op === LOCAL_SET || op === LOCAL_TEE) valueUses(fs.ssa.defined[x]!);
    }
    if (outside || u.some((y) => !members.has(y))) {
      usesOf.set(x, null);
      dead.delete(x);
    } else usesOf.set(x, u);
  }
  // greatest fixpoint: drop any member one of whose uses stays
  for (let changed = true; changed; ) {
    changed = false;
    for (const x of dead) {
      if (x === s.criterion) continue;
      if (usesOf.get(x)!.some((y) => y !== s.criterion && !dead.has(y))) {
        dead.delete(x);
        changed = true;
      }
    }
  }
  // a value on the stack goes with the instruction that pops it (only an if nest can fail to)
  for (const i of s.instrs) {
    if (dead.has(i) || ops[i] === LOCAL_TEE || ops[i] === LOCAL_SET) continue;
    const k = fs.consumerOf(i);
    if (k >= 0 && (k === s.criterion || dead.has(k))) return null;
  }
  const teeToSet: number[] = [];
  for (const i of s.instrs) {
    if (dead.has(i) || ops[i] !== LOCAL_TEE) continue;
    const k = fs.consumerOf(i);
    if (k === s.criterion || dead.has(k)) teeToSet.push(i);
  }
  const out = [...dead].filter((x) => x >= 0).sort((a, b) => a - b);
  let bytes = 0;
  for (const i of out) bytes += instrSize(fs.body, i);
  return { dead: out, teeToSet, bytes };
}

/** Bytes of the call site: a local.get of each parameter's local, and `call funcIndex`. */
export function callSiteBytes(s: Slice, c: CanonicalSlice, funcIndex: number): number {
  let n = 1 + u32Size(funcIndex);
  for (const k of c.paramStops) n += 1 + u32Size(s.stops[k]!.local);
  return n;
}

/** One slice ready to be weighed: where it is, its canonical form and what dies with it. */
export interface Occurrence {
  slice: Slice;
  canon: CanonicalSlice;
  removal: Removal;
}

/** Occurrences with equal canonical forms. */
export interface SliceClass {
  key: string;
  canon: CanonicalSlice;
  occs: Occurrence[];
}

/** Groups occurrences by canonical form, in order of first occurrence. */
export function classesOf(occs: readonly Occurrence[]): SliceClass[] {
  const byKey = new Map<string, SliceClass>();
  for (const o of occs) {
    let c = byKey.get(o.canon.key);
    if (!c) byKey.set(o.canon.key, (c = { key: o.canon.key, canon: o.canon, occs: [] }));
    c.occs.push(o);
  }
  return [...byKey.values()];
}

/** The paper's preset: I (operations but constants), P (parameters) and C (occurrences). */
export interface Preset {
  minSize: number; // exclusive
  maxSize: number;
  maxParams: number;
  minCount: number;
}

export const PAPER_PRESET: Preset = { minSize: 3, maxSize: 20, maxParams: 1, minCount: 10 };

export interface ChosenClass {
  cls: SliceClass;
  /** The occurrences taken (disjoint from those of classes taken before). */
  occs: Occurrence[];
  /** Exact bytes saved (negative: the module grows). */
  benefit: number;
  /** The new function's index. */
  funcIndex: number;
  /** Whether it needs a new type. */
  newType: boolean;
}

/** Bytes saved by replacing `occs` with calls to one new function (index funcIndex) of `c`. */
export function classBenefit(m: Module, c: CanonicalSlice, occs: readonly Occurrence[], funcIndex: number, plannedTypes: ReadonlySet<string>): { benefit: number; newType: boolean } {
  const existing = findFuncType(m, c.params, [c.result]);
  const newType = existing < 0 && !plannedTypes.has(`${c.params.join(",")}>${c.result}`);
  // a type still to be added gets an index at the end (planned ones may come first: this bounds its width)
  const typeIndex = existing >= 0 ? existing : m.types.length + plannedTypes.size;
  let benefit = -functionCostOf(typeIndex, c.entrySize) - (newType ? funcTypeCost(c.params, [c.result]) : 0);
  for (const o of occs) benefit += o.removal.bytes - callSiteBytes(o.slice, c, funcIndex);
  return { benefit, newType };
}

/**
 * Classes to take, greedily by exact benefit (or, with a preset, every class
 * the preset admits, by occurrence count): an occurrence whose slice shares
 * an instruction with one already taken is left out, and a class is weighed
 * again on what is left. Without a preset only classes that save bytes are
 * taken.
 */
export function chooseClasses(m: Module, classes: readonly SliceClass[], preset?: Preset): ChosenClass[] {
  const firstIndex = m.numImportedFuncs + m.functions.length;
  const plannedTypes = new Set<string>();
  const taken = new Map<number, Set<number>>(); // per function: instructions in taken slices
  const free = (o: Occurrence): boolean => {
    const t = taken.get(o.slice.func);
    return !t || o.slice.instrs.every((i) => !t.has(i));
  };
  const admits = (c: SliceClass, n: number): boolean =>
    !preset || (c.canon.params.length <= preset.maxParams && n >= preset.minCount && sizeOf(c) > preset.minSize && sizeOf(c) <= preset.maxSize);
  const score = (c: SliceClass): number =>
    preset ? c.occs.length : classBenefit(m, c.canon, c.occs, firstIndex, plannedTypes).benefit;
  const order = classes.filter((c) => admits(c, c.occs.length)).map((c) => ({ c, s: score(c) })).sort((a, b) => b.s - a.s);
  const out: ChosenClass[] = [];
  for (const { c } of order) {
    const occs = c.occs.filter(free);
    if (occs.length === 0 || !admits(c, occs.length)) continue;
    const funcIndex = firstIndex + out.length;
    const { benefit, newType } = classBenefit(m, c.canon, occs, funcIndex, plannedTypes);
    if (!preset && benefit <= 0) continue;
    out.push({ cls: c, occs, benefit, funcIndex, newType });
    if (newType) plannedTypes.add(`${c.canon.params.join(",")}>${c.canon.result}`);
    for (const o of occs) {
      let t = taken.get(o.slice.func);
      if (!t) taken.set(o.slice.func, (t = new Set()));
      for (const i of o.slice.instrs) t.add(i);
    }
  }
  return out;
}

function sizeOf(c: SliceClass): number {
  return c.occs[0]!.slice.size;
}
