// The format of the opcode table: the single source of truth for reader,
// writer, validator, printer and (later) the passes' effect analysis.

/**
 * Immediate kinds. Each is stored in a decoded body as a fixed or
 * self-describing run of 32-bit words (see ir/body.ts for the layout).
 */
export const Imm = {
  /** 1 word: BLOCK_EMPTY, a ValType, or -(typeIndex + 1) */
  BlockType: 1,
  /** 1 word: relative label depth */
  Label: 2,
  /** br_table: n, n labels, default -> n + 2 words */
  LabelTable: 3,
  Func: 4,
  Type: 5,
  Table: 6,
  Memory: 7,
  Global: 8,
  Local: 9,
  Tag: 10,
  Data: 11,
  Elem: 12,
  /** struct field index (u32) */
  Field: 13,
  /** 1 word (s32) */
  I32: 14,
  /** 2 words: lo, hi (s64) */
  I64: 15,
  /** 1 word: raw IEEE bits */
  F32: 16,
  /** 2 words: raw IEEE bits lo, hi */
  F64: 17,
  /** 4 words: little-endian 32-bit chunks */
  V128: 18,
  /** 1 word: lane index byte */
  Lane: 19,
  /** 16 words: one lane byte each */
  Shuffle: 20,
  /** 4 words: alignment log2, memory index, offset lo, offset hi (u64) */
  MemArg: 21,
  /** select t*: n, then n ValTypes */
  ValTypes: 22,
  /** 1 word: HeapType */
  HeapType: 23,
  /** br_on_cast(_fail): 1 word flags byte (bit0: source nullable, bit1: target nullable) */
  CastFlags: 24,
  /** try_table: n, then n * 3 words: catch kind (0..3), tag index (0 for *_all), label */
  Catches: 25,
  /** a reserved 0x00 byte (atomic.fence); 1 word, always 0 */
  ZeroByte: 26,
  /** 1 word: an element count (u32), e.g. array.new_fixed's operand count */
  Count: 27,
} as const;
export type ImmKind = (typeof Imm)[keyof typeof Imm];

/** Effect bits, for the passes' reordering and trap-class analysis. */
export const Eff = {
  NONE: 0,
  TRAP: 1, // may trap (div by zero, out-of-bounds, null, cast failure, unreachable)
  READ_MEM: 2,
  WRITE_MEM: 4,
  CALL: 8, // calls arbitrary code (any effect)
  BRANCH: 16, // transfers control non-locally (br, br_if, br_table, return, throw ...)
  READ_GLOBAL: 32,
  WRITE_GLOBAL: 64,
  READ_TABLE: 128,
  WRITE_TABLE: 256,
  ALLOC: 512, // allocates GC objects (identity observable via ref.eq)
  THROW: 1024,
  ATOMIC: 2048, // ordering-sensitive (atomics, fences)
  READ_LOCAL: 4096,
  WRITE_LOCAL: 8192,
  STRUCTURE: 16384, // block/loop/if/else/end/try...: shapes control flow
  READ_GC: 32768, // reads mutable GC object state
  WRITE_GC: 65536,
} as const;

export type Feature =
  | "mvp"
  | "sign-ext"
  | "sat-trunc"
  | "bulk-memory"
  | "reference-types"
  | "multi-value"
  | "simd"
  | "relaxed-simd"
  | "threads"
  | "tail-call"
  | "exceptions-legacy"
  | "exceptions"
  | "typed-funcref"
  | "gc"
  | "memory64"
  | "multi-memory"
  | "extended-const"
  | "wide-arithmetic";

export interface OpDef {
  /** text-format mnemonic, e.g. "i32.add" */
  name: string;
  /** 0 for a one-byte opcode, else the prefix byte (0xfb, 0xfc, 0xfd, 0xfe) */
  prefix: number;
  /** the opcode byte, or the u32 sub-opcode after the prefix */
  code: number;
  imms: readonly ImmKind[];
  /**
   * Fixed stack signature "params -> results" with tokens i32 i64 f32 f64 v128,
   * and `a` for the address type of the instruction's memory (i32, or i64 for
   * memory64). Absent for instructions the validator types by hand.
   */
  sig?: string;
  effects: number;
  feature: Feature;
  /** Filled in by the table builder: the op's index in OPS. */
  id?: number;
}

/** Row helper: keeps table files short and readable. */
export function op(
  prefix: number,
  code: number,
  name: string,
  imms: readonly ImmKind[],
  sig: string | undefined,
  effects: number,
  feature: Feature,
): OpDef {
  return sig === undefined
    ? { name, prefix, code, imms, effects, feature }
    : { name, prefix, code, imms, sig, effects, feature };
}
