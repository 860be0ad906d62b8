// The type system over a module's type section (WebAssembly 3.0):
// iso-recursive canonicalization of recursion groups, declared subtyping,
// validity of type definitions, and fast subtype / equality tests on the
// numeric ValType encoding of ir/types.ts.
//
// Canonical identity: two type indices denote the same type iff their
// recursion groups are structurally identical (references inside the group
// compared by relative position, references outside it by canonical
// identity) and they sit at the same position in the group. `canon[i]` is
// the smallest type index with the same identity, so equality is one
// comparison of two array entries.

import { WasmValidationError } from "../binary/errors.js";
import type { Module } from "../ir/module.js";
import {
  HT_ANY,
  HT_ARRAY,
  HT_EQ,
  HT_EXN,
  HT_EXTERN,
  HT_FUNC,
  HT_I31,
  HT_NOEXN,
  HT_NOEXTERN,
  HT_NOFUNC,
  HT_NONE,
  HT_STRUCT,
  I16,
  I32,
  I8,
  REF_BASE,
  heapOf,
  isAbstractHeap,
  isRef,
  refType,
  valTypeName,
  type CompositeType,
  type FieldType,
  type HeapType,
  type RecGroup,
  type SubType,
  type ValType,
} from "../ir/types.js";

/** The bottom value type of the validation algorithm (operands of unreachable code). */
export const BOT: ValType = 0;
/** The bottom heap type (a reference whose heap type is unknown in unreachable code). */
export const HT_BOT: HeapType = -0x20;
/** (ref bot): what ref.as_non_null etc. produce from a BOT operand. */
export const REF_BOT: ValType = refType(HT_BOT, false);

export const KIND_FUNC = 0;
export const KIND_STRUCT = 1;
export const KIND_ARRAY = 2;

const EMPTY: readonly ValType[] = [];

export interface TypeContext {
  readonly types: readonly SubType[];
  /** Number of types. */
  readonly count: number;
  /** Per type index: KIND_FUNC / KIND_STRUCT / KIND_ARRAY. */
  readonly kind: Uint8Array;
  /** Per type index: smallest type index with the same canonical identity. */
  readonly canon: Int32Array;
  /** Per type index: declared supertype index, or -1. */
  readonly superOf: Int32Array;
  /** Per type index: length of the declared supertype chain. */
  readonly depth: Int32Array;
  /** Per type index: params / results of func types (empty for others). */
  readonly params: readonly (readonly ValType[])[];
  readonly results: readonly (readonly ValType[])[];
}

function fail(reason: string): never {
  throw new WasmValidationError(reason, 0);
}

// ---- abstract heap type lattice ----

/** SUB_ABS[(a + 32) * 32 + (b + 32)] = 1 iff abstract heap a <: abstract heap b. */
const SUB_ABS = new Uint8Array(32 * 32);
function setAbs(a: HeapType, b: HeapType): void {
  SUB_ABS[(a + 32) * 32 + (b + 32)] = 1;
}
{
  const all = [HT_ANY, HT_EQ, HT_I31, HT_STRUCT, HT_ARRAY, HT_NONE, HT_FUNC, HT_NOFUNC, HT_EXTERN, HT_NOEXTERN, HT_EXN, HT_NOEXN];
  for (const h of all) {
    setAbs(h, h);
    setAbs(HT_BOT, h);
  }
  setAbs(HT_BOT, HT_BOT);
  for (const h of [HT_EQ, HT_I31, HT_STRUCT, HT_ARRAY, HT_NONE]) setAbs(h, HT_ANY);
  for (const h of [HT_I31, HT_STRUCT, HT_ARRAY, HT_NONE]) setAbs(h, HT_EQ);
  setAbs(HT_NONE, HT_I31);
  setAbs(HT_NONE, HT_STRUCT);
  setAbs(HT_NONE, HT_ARRAY);
  setAbs(HT_NOFUNC, HT_FUNC);
  setAbs(HT_NOEXTERN, HT_EXTERN);
  setAbs(HT_NOEXN, HT_EXN);
}

// ---- construction and validation of the type section ----

/**
 * Builds the type context of a module's type section and validates every
 * type definition (throws WasmValidationError on the first invalid one).
 */
export function buildTypeContext(m: Pick<Module, "types" | "recGroups">): TypeContext {
  const types = m.types;
  const n = types.length;
  const kind = new Uint8Array(n);
  const canon = new Int32Array(n);
  const superOf = new Int32Array(n).fill(-1);
  const depth = new Int32Array(n);
  const params: (readonly ValType[])[] = new Array(n);
  const results: (readonly ValType[])[] = new Array(n);
  const ctx: TypeContext = { types, count: n, kind, canon, superOf, depth, params, results };

  for (let i = 0; i < n; i++) {
    const c = types[i]!.composite;
    kind[i] = c.kind === "func" ? KIND_FUNC : c.kind === "struct" ? KIND_STRUCT : KIND_ARRAY;
    params[i] = c.kind === "func" ? c.params : EMPTY;
    results[i] = c.kind === "func" ? c.results : EMPTY;
  }

  const groups = normalizedGroups(m.recGroups, n);
  const keys = new Map<string, number>();
  for (const g of groups) {
    const end = g.start + g.count;
    // 1. references: every type index used must be defined by the end of this group
    for (let i = g.start; i < end; i++) {
      const st = types[i]!;
      checkComposite(st.composite, end);
      if (st.supertypes.length > 1) fail(`multiple supertypes for type ${i}`);
      for (const s of st.supertypes) {
        if (s >= n) fail(`unknown type ${s}`);
        if (s >= i) fail(`unknown type ${s}: forward use of type ${s} in sub type definition of type ${i}`);
      }
    }
    // 2. declared supertype chains (supertypes come before their subtypes)
    for (let i = g.start; i < end; i++) {
      const st = types[i]!;
      if (st.supertypes.length === 1) {
        const s = st.supertypes[0]!;
        superOf[i] = s;
        depth[i] = depth[s]! + 1;
      }
    }
    // 3. canonical identity of the group
    const key = groupKey(ctx, g.start, end);
    const rep = keys.get(key);
    if (rep === undefined) {
      keys.set(key, g.start);
      for (let i = g.start; i < end; i++) canon[i] = i;
    } else {
      for (let i = g.start; i < end; i++) canon[i] = rep + (i - g.start);
    }
    // 4. each declared supertype: not final, and the composite types match
    for (let i = g.start; i < end; i++) {
      const s = superOf[i]!;
      if (s < 0) continue;
      const sup = types[s]!;
      if (sup.final) fail(`sub type ${i} has final super type ${s}`);
      if (!compositeMatches(ctx, types[i]!.composite, sup.composite)) fail(`sub type ${i} does not match super type ${s}`);
    }
  }
  return ctx;
}

function normalizedGroups(groups: readonly RecGroup[], n: number): readonly RecGroup[] {
  let next = 0;
  let ok = true;
  for (const g of groups) {
    if (g.start !== next || g.count < 0) {
      ok = false;
      break;
    }
    next += g.count;
  }
  if (ok && next === n) return groups;
  // Inconsistent or missing groups (a module built by hand): one group per type.
  const out: RecGroup[] = [];
  for (let i = 0; i < n; i++) out.push({ start: i, count: 1, explicit: false });
  return out;
}

function checkValType(t: ValType, limit: number): void {
  if (t >= REF_BASE) {
    const h = heapOf(t);
    if (h >= 0) {
      if (h >= limit) fail(`unknown type ${h}`);
    } else if (!isAbstractHeap(h)) fail(`invalid heap type ${h}`);
  } else if (!((t >= 0x7b && t <= 0x7f))) {
    fail(`invalid value type ${t}`);
  }
}

function checkStorageType(t: ValType, limit: number): void {
  if (t === I8 || t === I16) return;
  checkValType(t, limit);
}

function checkComposite(c: CompositeType, limit: number): void {
  if (c.kind === "func") {
    for (const t of c.params) checkValType(t, limit);
    for (const t of c.results) checkValType(t, limit);
  } else if (c.kind === "struct") {
    for (const f of c.fields) checkStorageType(f.type, limit);
  } else {
    checkStorageType(c.element.type, limit);
  }
}

/** Structural key of a recursion group: internal references by position, external by canonical index. */
function groupKey(ctx: TypeContext, start: number, end: number): string {
  const parts: string[] = [String(end - start)];
  const ref = (idx: number): string => (idx >= start ? `r${idx - start}` : `c${ctx.canon[idx]!}`);
  const vt = (t: ValType): string => {
    if (t < REF_BASE) return String(t);
    const h = heapOf(t);
    const nul = (t & 1) === 1 ? "n" : "";
    return h >= 0 ? `${nul}${ref(h)}` : `${nul}a${h}`;
  };
  const ft = (f: FieldType): string => `${f.mutable ? "m" : ""}${vt(f.type)}`;
  for (let i = start; i < end; i++) {
    const st = ctx.types[i]!;
    let s = st.final ? "F" : "O";
    for (const sup of st.supertypes) s += `<${ref(sup)}`;
    const c = st.composite;
    if (c.kind === "func") s += `f(${c.params.map(vt).join(",")})(${c.results.map(vt).join(",")})`;
    else if (c.kind === "struct") s += `s(${c.fields.map(ft).join(",")})`;
    else s += `a(${ft(c.element)})`;
    parts.push(s);
  }
  return parts.join(";");
}

function compositeMatches(ctx: TypeContext, sub: CompositeType, sup: CompositeType): boolean {
  if (sub.kind === "func") {
    if (sup.kind !== "func") return false;
    if (sub.params.length !== sup.params.length || sub.results.length !== sup.results.length) return false;
    for (let i = 0; i < sub.params.length; i++) if (!isSubtype(ctx, sup.params[i]!, sub.params[i]!)) return false;
    for (let i = 0; i < sub.results.length; i++) if (!isSubtype(ctx, sub.results[i]!, sup.results[i]!)) return false;
    return true;
  }
  if (sub.kind === "struct") {
    if (sup.kind !== "struct") return false;
    if (sub.fields.length < sup.fields.length) return false;
    for (let i = 0; i < sup.fields.length; i++) if (!fieldMatches(ctx, sub.fields[i]!, sup.fields[i]!)) return false;
    return true;
  }
  if (sup.kind !== "array") return false;
  return fieldMatches(ctx, sub.element, sup.element);
}

function fieldMatches(ctx: TypeContext, a: FieldType, b: FieldType): boolean {
  if (a.mutable !== b.mutable) return false;
  if (a.mutable) return storageTypesEqual(ctx, a.type, b.type);
  return isStorageSubtype(ctx, a.type, b.type);
}

// ---- queries ----

/** Heap type subtyping (concrete indices compared canonically, declared supertypes transitively). */
export function isHeapSubtype(ctx: TypeContext, a: HeapType, b: HeapType): boolean {
  if (a === b) return true;
  if (a >= 0) {
    if (b >= 0) {
      const canon = ctx.canon;
      const cb = canon[b]!;
      if (canon[a] === cb) return true;
      let d = ctx.depth[a]! - ctx.depth[b]!;
      if (d <= 0) return false;
      let x = a;
      const sup = ctx.superOf;
      while (d-- > 0) x = sup[x]!;
      return canon[x] === cb;
    }
    const k = ctx.kind[a]!;
    switch (b) {
      case HT_FUNC:
        return k === KIND_FUNC;
      case HT_ANY:
      case HT_EQ:
        return k !== KIND_FUNC;
      case HT_STRUCT:
        return k === KIND_STRUCT;
      case HT_ARRAY:
        return k === KIND_ARRAY;
    }
    return false;
  }
  if (b >= 0) {
    if (a === HT_BOT) return true;
    if (a === HT_NONE) return ctx.kind[b] !== KIND_FUNC;
    if (a === HT_NOFUNC) return ctx.kind[b] === KIND_FUNC;
    return false;
  }
  return SUB_ABS[(a + 32) * 32 + (b + 32)] === 1;
}

/** Value type subtyping (BOT is below every type). */
export function isSubtype(ctx: TypeContext, a: ValType, b: ValType): boolean {
  if (a === b || a === BOT) return true;
  if (a < REF_BASE || b < REF_BASE) return false;
  if ((a & 1) === 1 && (b & 1) === 0) return false;
  return isHeapSubtype(ctx, heapOf(a), heapOf(b));
}

/** Storage type subtyping: packed types only match themselves. */
export function isStorageSubtype(ctx: TypeContext, a: ValType, b: ValType): boolean {
  if (a === I8 || a === I16 || b === I8 || b === I16) return a === b;
  return isSubtype(ctx, a, b);
}

export function heapTypesEqual(ctx: TypeContext, a: HeapType, b: HeapType): boolean {
  if (a === b) return true;
  if (a < 0 || b < 0) return false;
  return ctx.canon[a] === ctx.canon[b];
}

/** Value type equality (concrete types compared by canonical identity). */
export function typesEqual(ctx: TypeContext, a: ValType, b: ValType): boolean {
  if (a === b) return true;
  if (a < REF_BASE || b < REF_BASE) return false;
  if ((a & 1) !== (b & 1)) return false;
  return heapTypesEqual(ctx, heapOf(a), heapOf(b));
}

export function storageTypesEqual(ctx: TypeContext, a: ValType, b: ValType): boolean {
  return typesEqual(ctx, a, b);
}

/** The value type with every concrete heap index replaced by its canonical representative. */
export function canonicalValType(ctx: TypeContext, t: ValType): ValType {
  if (t < REF_BASE) return t;
  const h = heapOf(t);
  if (h < 0) return t;
  return refType(ctx.canon[h]!, (t & 1) === 1);
}

/** Params and results of function type `typeIndex`; throws if it is not a function type. */
export function funcType(ctx: TypeContext, typeIndex: number): { params: readonly ValType[]; results: readonly ValType[] } {
  if (!(typeIndex >= 0 && typeIndex < ctx.count)) fail(`unknown type ${typeIndex >>> 0}`);
  if (ctx.kind[typeIndex] !== KIND_FUNC) fail(`type mismatch: type ${typeIndex} is not a function type`);
  return { params: ctx.params[typeIndex]!, results: ctx.results[typeIndex]! };
}

export function isFuncType(ctx: TypeContext, typeIndex: number): boolean {
  return typeIndex >= 0 && typeIndex < ctx.count && ctx.kind[typeIndex] === KIND_FUNC;
}

/** Numeric, vector, or nullable reference: has a default value (locals, struct.new_default ...). */
export function isDefaultable(t: ValType): boolean {
  return t < REF_BASE || (t & 1) === 1;
}

/** Unpacks a storage type (i8 / i16 to i32). */
export function unpacked(t: ValType): ValType {
  return t === I8 || t === I16 ? I32 : t;
}

/** The top of a heap type's hierarchy: any, func, extern or exn. */
export function topHeapType(ctx: TypeContext, h: HeapType): HeapType {
  if (h >= 0) return ctx.kind[h] === KIND_FUNC ? HT_FUNC : HT_ANY;
  switch (h) {
    case HT_FUNC:
    case HT_NOFUNC:
      return HT_FUNC;
    case HT_EXTERN:
    case HT_NOEXTERN:
      return HT_EXTERN;
    case HT_EXN:
    case HT_NOEXN:
      return HT_EXN;
    case HT_BOT:
      return HT_BOT;
  }
  return HT_ANY;
}

/** Is `t` a valid value type in this context (concrete heap types must be defined)? */
export function isValidValType(ctx: TypeContext, t: ValType): boolean {
  if (t >= REF_BASE) {
    const h = heapOf(t);
    return h >= 0 ? h < ctx.count : isAbstractHeap(h);
  }
  return t >= 0x7b && t <= 0x7f;
}

export function isValidHeapType(ctx: TypeContext, h: HeapType): boolean {
  return h >= 0 ? h < ctx.count : isAbstractHeap(h);
}

/** Name of a value type for messages (BOT and (ref bot) included). */
export function typeName(t: ValType): string {
  if (t === BOT) return "bot";
  if (isRef(t) && heapOf(t) === HT_BOT) return (t & 1) === 1 ? "(ref null bot)" : "(ref bot)";
  return valTypeName(t);
}
