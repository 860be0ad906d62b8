// Compact instruction storage: one op id per instruction plus a flat pool of
// 32-bit immediate words, instead of one object per instruction, so that a
// 50 MB module fits in memory and decodes fast.
//
// Immediate word layout per ImmKind (see binary/opcodes/defs.ts):
//   BlockType  1  BLOCK_EMPTY | ValType | -(typeIndex + 1)
//   Label, Func, Type, Table, Memory, Global, Local, Tag, Data, Elem, Field, Lane, ZeroByte  1
//   Count      1   u32 element count (array.new_fixed)
//   LabelTable 1 + n + 1   n, labels..., default
//   I32 1, F32 1 (bits), I64 2 (lo, hi), F64 2 (bits lo, hi), V128 4 (LE chunks)
//   Shuffle    16 (one lane byte each)
//   MemArg     4   align log2, memory index, offset lo, offset hi
//   ValTypes   1 + n
//   HeapType   1
//   CastFlags  1
//   Catches    1 + 3n  n, then (kind, tag, label) per catch
//
// Instruction i has op id ops[i] and immediates imm[immStart[i] .. immStart[i+1]).

export const BLOCK_EMPTY = 0x40;

// A Body is never changed once built (decoded, or finished by a builder):
// analyses cache what they derive from a body by its identity, and trial
// copies of a module share bodies. A pass that changes a body builds a new
// one (BodyBuilder, or mapWords for immediates only).

export interface Body {
  /** Number of instructions (the final `end` included). */
  count: number;
  /** Op id per instruction: an index into OPS (binary/opcodes). */
  ops: Uint16Array;
  /** Start of each instruction's immediates in `imm`; length count + 1. */
  immStart: Uint32Array;
  imm: Int32Array;
  /**
   * File offset of each instruction when decoded from a file (error messages
   * name it); a pass that builds a body carries each instruction's over, and
   * gives glue the offset of the code it replaced (source maps follow it).
   * 0: no origin.
   */
  offsets: Uint32Array | null;
}

/** Builds a Body one instruction at a time (used by the reader and by passes). */
export class BodyBuilder {
  count = 0;
  ops: Uint16Array;
  immStart: Uint32Array;
  imm: Int32Array;
  immLen = 0;
  offsets: Uint32Array | null;

  constructor(capacityHint = 16, withOffsets = false) {
    const cap = Math.max(4, capacityHint);
    this.ops = new Uint16Array(cap);
    this.immStart = new Uint32Array(cap + 1);
    this.imm = new Int32Array(cap);
    this.offsets = withOffsets ? new Uint32Array(cap) : null;
  }

  /** Starts instruction `op`; push its immediate words with `word`. */
  begin(op: number, offset = 0): void {
    if (this.count + 1 >= this.ops.length) this.growOps();
    this.ops[this.count] = op;
    this.immStart[this.count] = this.immLen;
    if (this.offsets) this.offsets[this.count] = offset;
    this.count++;
  }

  word(w: number): void {
    if (this.immLen >= this.imm.length) {
      const n = new Int32Array(this.imm.length * 2);
      n.set(this.imm);
      this.imm = n;
    }
    this.imm[this.immLen++] = w;
  }

  /** Reserves `n` words and returns the index of the first (for readers that fill in place). */
  reserve(n: number): number {
    while (this.immLen + n > this.imm.length) {
      const a = new Int32Array(this.imm.length * 2);
      a.set(this.imm);
      this.imm = a;
    }
    const at = this.immLen;
    this.immLen += n;
    return at;
  }

  private growOps(): void {
    const cap = this.ops.length * 2;
    const ops = new Uint16Array(cap);
    ops.set(this.ops);
    this.ops = ops;
    const st = new Uint32Array(cap + 1);
    st.set(this.immStart);
    this.immStart = st;
    if (this.offsets) {
      const o = new Uint32Array(cap);
      o.set(this.offsets);
      this.offsets = o;
    }
  }

  finish(): Body {
    this.immStart[this.count] = this.immLen;
    // Copy to exact size when the capacity is well above what was used, so
    // a decoded module does not keep its over-allocation alive.
    const n = this.count;
    const loose = this.ops.length > n + (n >> 2) + 8;
    const cut = <T extends Uint16Array | Uint32Array | Int32Array>(a: T, len: number): T =>
      (loose ? a.slice(0, len) : a.subarray(0, len)) as T;
    return {
      count: n,
      ops: cut(this.ops, n),
      immStart: cut(this.immStart, n + 1),
      imm: this.imm.length > this.immLen + (this.immLen >> 2) + 8 ? this.imm.slice(0, this.immLen) : this.imm.subarray(0, this.immLen),
      offsets: this.offsets ? cut(this.offsets, n) : null,
    };
  }
}

/** The file offset instruction `i` of `body` came from, or 0 if it has none (glue a pass made). */
export function originOf(body: Body, i: number): number {
  return body.offsets ? body.offsets[i]! : 0;
}

/**
 * `body` with immediate words rewritten: for an instruction with op id `op`,
 * the words at offsets `sites[op]` from its first immediate go through `fn`.
 * Returns `body` itself when no word changes, else a new Body that shares
 * everything but the immediates with it.
 */
export function mapWords(body: Body, sites: readonly (readonly number[] | null)[], fn: (word: number) => number): Body {
  const { ops, immStart } = body;
  let imm: Int32Array | null = null;
  for (let i = 0; i < body.count; i++) {
    const at = sites[ops[i]!];
    if (!at) continue;
    for (const off of at) {
      const p = immStart[i]! + off;
      const w = (imm ?? body.imm)[p]!;
      const n = fn(w);
      if (n === w) continue;
      imm ??= body.imm.slice();
      imm[p] = n;
    }
  }
  return imm ? { ...body, imm } : body;
}
