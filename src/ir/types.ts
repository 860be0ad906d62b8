// Value, heap and composite types. Value types are plain numbers so that the
// validator's operand stack can be a typed array and comparisons are cheap.
//
// ValType encoding:
//   numeric and vector types: their binary byte (I32 = 0x7f ... V128 = 0x7b)
//   packed storage types (struct/array fields only): I8 = 0x78, I16 = 0x77
//   reference types: REF_BASE + (heap + HEAP_BIAS) * 2 + (nullable ? 1 : 0)
// HeapType encoding: a concrete type index (>= 0), or an abstract heap type as
// the negative number its s33 encoding reads as (FUNC = 0x70 read as s33 = -16 ...).

export type ValType = number;
export type HeapType = number;

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F32 = 0x7d;
export const F64 = 0x7c;
export const V128 = 0x7b;
export const I8 = 0x78;
export const I16 = 0x77;

// Abstract heap types (value = signed 7-bit reading of the type byte).
export const HT_NOEXN = -0x0c; // 0x74
export const HT_NOFUNC = -0x0d; // 0x73
export const HT_NOEXTERN = -0x0e; // 0x72
export const HT_NONE = -0x0f; // 0x71
export const HT_FUNC = -0x10; // 0x70
export const HT_EXTERN = -0x11; // 0x6f
export const HT_ANY = -0x12; // 0x6e
export const HT_EQ = -0x13; // 0x6d
export const HT_I31 = -0x14; // 0x6c
export const HT_STRUCT = -0x15; // 0x6b
export const HT_ARRAY = -0x16; // 0x6a
export const HT_EXN = -0x17; // 0x69

export const REF_BASE = 0x1000;
const HEAP_BIAS = 0x20;

export function isAbstractHeap(h: HeapType): boolean {
  return h < 0 && h >= HT_EXN && h <= HT_NOEXN;
}

export function refType(heap: HeapType, nullable: boolean): ValType {
  return REF_BASE + (heap + HEAP_BIAS) * 2 + (nullable ? 1 : 0);
}
export function isRef(t: ValType): boolean {
  return t >= REF_BASE;
}
export function heapOf(t: ValType): HeapType {
  return ((t - REF_BASE) >> 1) - HEAP_BIAS;
}
export function isNullable(t: ValType): boolean {
  return (t & 1) === 1;
}
export function isNumeric(t: ValType): boolean {
  return t >= V128 && t <= I32;
}

export const FUNCREF = refType(HT_FUNC, true);
export const EXTERNREF = refType(HT_EXTERN, true);
export const ANYREF = refType(HT_ANY, true);
export const EXNREF = refType(HT_EXN, true);

const ABSTRACT_NAMES: Record<number, string> = {
  [HT_NOEXN]: "noexn",
  [HT_NOFUNC]: "nofunc",
  [HT_NOEXTERN]: "noextern",
  [HT_NONE]: "none",
  [HT_FUNC]: "func",
  [HT_EXTERN]: "extern",
  [HT_ANY]: "any",
  [HT_EQ]: "eq",
  [HT_I31]: "i31",
  [HT_STRUCT]: "struct",
  [HT_ARRAY]: "array",
  [HT_EXN]: "exn",
};

export function heapTypeName(h: HeapType): string {
  return h >= 0 ? String(h) : (ABSTRACT_NAMES[h] ?? `heap?${h}`);
}

export function valTypeName(t: ValType): string {
  switch (t) {
    case I32: return "i32";
    case I64: return "i64";
    case F32: return "f32";
    case F64: return "f64";
    case V128: return "v128";
    case I8: return "i8";
    case I16: return "i16";
  }
  if (isRef(t)) {
    const h = heapOf(t);
    if (isNullable(t) && h < 0) return `${heapTypeName(h)}ref`;
    return `(ref ${isNullable(t) ? "null " : ""}${heapTypeName(h)})`;
  }
  return `type?${t}`;
}

/** Byte width of a value type when stored (for struct/array packing and costs). */
export function storageSize(t: ValType): number {
  switch (t) {
    case I8: return 1;
    case I16: return 2;
    case I32: case F32: return 4;
    case I64: case F64: return 8;
    case V128: return 16;
  }
  return 8;
}

// ---- composite / defined types ----

export interface FieldType {
  type: ValType; // may be I8 / I16 (packed)
  mutable: boolean;
}

export type CompositeType =
  | { kind: "func"; params: ValType[]; results: ValType[] }
  | { kind: "struct"; fields: FieldType[] }
  | { kind: "array"; element: FieldType };

/** One entry of the type index space. */
export interface SubType {
  composite: CompositeType;
  final: boolean;
  supertypes: number[]; // type indices (0 or 1 in the current spec)
  /** How it was encoded: bare composite (0x60...), `sub final` (0x4f) or `sub` (0x50). Kept so identity output is byte-identical. */
  form: "bare" | "sub" | "subfinal";
}

/** A recursion group: a run of consecutive type indices. */
export interface RecGroup {
  start: number; // first type index
  count: number;
  /** true if written as `0x4e n ...`; a group of one may be written either way. */
  explicit: boolean;
}

export interface Limits {
  min: bigint | number;
  max: bigint | number | null;
  shared: boolean;
  /** memory64 / table64: index type is i64 */
  is64: boolean;
  /** custom-page-sizes proposal: log2 of the page size, when given */
  pageSizeLog2?: number;
}

export function funcTypeEquals(a: CompositeType, b: CompositeType): boolean {
  if (a.kind !== "func" || b.kind !== "func") return false;
  return arrEq(a.params, b.params) && arrEq(a.results, b.results);
}

function arrEq(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
