// New functions made by a call-adding pass: what one costs in exact bytes
// before it exists, and adding it (type interned, locals declared, origin
// for the merge map, name).

import { u32Size } from "../binary/bytes.js";
import type { Body } from "../ir/body.js";
import { ensureFuncType, findFuncType, funcTypeCost } from "../ir/func-types.js";
import type { Func, Module } from "../ir/module.js";
import type { ValType } from "../ir/types.js";
import { functionCostOf } from "../analysis/sizes.js";
import { newOrigin } from "../passes/merge-map.js";

/** A function to add. Its type is the plain function type params -> results. */
export interface NewFunction {
  params: readonly ValType[];
  results: readonly ValType[];
  /** Declared locals (after the parameters), run-length as written; copied. */
  locals: Func["locals"];
  body: Body;
}

export interface AddOptions {
  /** On a trial copy (see trial.ts): no origin is drawn and no name is given. */
  trial: boolean;
  /** Name-section entry, given when the module has a name section. */
  name?: string;
}

/** Appends `nf` to `m` (adding its type if there is none) and returns its function index. */
export function addFunction(m: Module, nf: NewFunction, o: AddOptions): number {
  const locals = nf.locals.map((l) => ({ ...l }));
  const f: Func = {
    typeIndex: ensureFuncType(m, nf.params, nf.results),
    locals,
    localCount: locals.reduce((n, l) => n + l.count, 0),
    raw: null,
    rawOffset: 0,
    codeOffset: 0,
    body: nf.body,
    dirty: true,
    origin: o.trial ? -1 : newOrigin(m),
  };
  const index = m.numImportedFuncs + m.functions.length;
  m.functions.push(f);
  if (!o.trial && o.name !== undefined && m.names) {
    m.names.functions.set(index, o.name);
    m.names.dirty = true;
  }
  return index;
}

/** Local declarations for locals of types `types`, in order: runs of one type share a declaration. */
export function groupLocals(types: readonly ValType[]): Func["locals"] {
  const out: Func["locals"] = [];
  for (const t of types) {
    const last = out[out.length - 1];
    if (last && last.type === t) last.count++;
    else out.push({ count: 1, type: t });
  }
  return out;
}

/** Bytes of a name-section entry for function `index` with an ASCII name of `nameLength` (< 128) characters. */
export function nameEntryBytes(index: number, nameLength: number): number {
  return u32Size(index) + 1 + nameLength;
}

/**
 * Bytes a new function adds outside its call sites: `typeBytes` for its type
 * if that is new, its function-section entry (the type index), its code entry
 * of `entryBytes` (locals and instructions, see sizes.ts funcEntrySize) with
 * its size prefix, and `nameBytes` for a name.
 */
export function newFunctionBytes(typeIndex: number, typeBytes: number, entryBytes: number, nameBytes: number): number {
  return typeBytes + functionCostOf(typeIndex, entryBytes) + nameBytes;
}

function signatureKey(params: readonly ValType[], results: readonly ValType[]): string {
  return `${params.join(",")}>${results.join(",")}`;
}

/**
 * The signatures of the new functions a pass plans, so each one's type is
 * counted once and indices are estimated as the types will be added. The
 * module's types must not change while it is in use (plan, then apply).
 */
export class SignaturePlan {
  private readonly existing = new Map<string, number>();
  private readonly planned = new Set<string>();

  constructor(private readonly m: Module) {}

  /** An existing plain function type with this signature, or -1. */
  find(params: readonly ValType[], results: readonly ValType[]): number {
    const key = signatureKey(params, results);
    let t = this.existing.get(key);
    if (t === undefined) this.existing.set(key, (t = findFuncType(this.m, params, results)));
    return t;
  }

  /**
   * Bytes of a new function with this signature and code entry (see
   * newFunctionBytes): an existing type is used; a new type gets the index
   * after the existing types and those planned, and is paid for by the first
   * function planned with it.
   */
  functionBytes(params: readonly ValType[], results: readonly ValType[], entryBytes: number, nameBytes: number): number {
    const existing = this.find(params, results);
    if (existing >= 0) return newFunctionBytes(existing, 0, entryBytes, nameBytes);
    const typeBytes = this.planned.has(signatureKey(params, results)) ? 0 : funcTypeCost(params, results);
    return newFunctionBytes(this.m.types.length + this.planned.size, typeBytes, entryBytes, nameBytes);
  }

  /** Records that a function with this signature will be added (counted as new even when the type exists: see fold-blocks). */
  plan(params: readonly ValType[], results: readonly ValType[]): void {
    this.planned.add(signatureKey(params, results));
  }
}
