// The format of the opcode table: the single source of truth for reader,
// writer, validator, printer and the passes' effect analysis (analysis/effects.ts).

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

/**
 * Effect bits, for the passes' reordering and trap-class analysis
 * (analysis/effects.ts refines them with the immediates). Every row with
 * TRAP also carries the class bits (TRAP_*) that say why it may trap; use
 * the `Trap` masks below in rows so that the two never part.
 */
export const Eff = {
  NONE: 0,
  TRAP: 1, // may trap; the TRAP_* bits give the classes
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
  /** memory or data-segment bounds; misaligned atomic access; wait on an unshared memory */
  TRAP_MEMORY: 1 << 17,
  /** table or element-segment bounds (call_indirect's index among them) */
  TRAP_TABLE: 1 << 18,
  /** integer division or remainder by zero; signed division overflow */
  TRAP_DIV: 1 << 19,
  /** the `unreachable` instruction */
  TRAP_UNREACHABLE: 1 << 20,
  /** null reference (also a null table slot or exnref), failed cast */
  TRAP_NULL_CAST: 1 << 21,
  /** call_indirect's signature check */
  TRAP_SIGNATURE: 1 << 22,
  /** non-saturating float-to-int truncation (NaN, out of range) */
  TRAP_FLOAT_INT: 1 << 23,
  /** array index, length or allocation size (GC) */
  TRAP_ARRAY: 1 << 24,
  /** leaves the function normally: return, return_call* */
  RETURN: 1 << 25,
  /** control never reaches the next instruction (br, br_table, return*, throw*, unreachable) */
  UNCONDITIONAL: 1 << 26,
} as const;

/** All trap-class bits. */
export const TRAP_CLASSES =
  Eff.TRAP_MEMORY | Eff.TRAP_TABLE | Eff.TRAP_DIV | Eff.TRAP_UNREACHABLE | Eff.TRAP_NULL_CAST | Eff.TRAP_SIGNATURE | Eff.TRAP_FLOAT_INT | Eff.TRAP_ARRAY;

/** TRAP together with one class bit, for table rows. */
export const Trap = {
  MEMORY: Eff.TRAP | Eff.TRAP_MEMORY,
  TABLE: Eff.TRAP | Eff.TRAP_TABLE,
  DIV: Eff.TRAP | Eff.TRAP_DIV,
  UNREACHABLE: Eff.TRAP | Eff.TRAP_UNREACHABLE,
  NULL_CAST: Eff.TRAP | Eff.TRAP_NULL_CAST,
  SIGNATURE: Eff.TRAP | Eff.TRAP_SIGNATURE,
  FLOAT_INT: Eff.TRAP | Eff.TRAP_FLOAT_INT,
  ARRAY: Eff.TRAP | Eff.TRAP_ARRAY,
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
