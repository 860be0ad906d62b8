// Random instructions for tests of per-instruction analyses (sizes, effects):
// any op of the table with immediates of the right layout (ir/body.ts) and
// values across the encodings' size classes. The bodies need not validate.

import { Imm, OPS, type ImmKind } from "../src/binary/opcodes/index.js";
import { BLOCK_EMPTY, BodyBuilder, type Body } from "../src/ir/body.js";
import { I32, I64, F32, F64, V128, HT_EXN, HT_NOEXN, refType, type ValType } from "../src/ir/types.js";

/** A seeded generator of floats in [0, 1) (mulberry32; the bench's). */
export { rng } from "../bench/stats.js";

export type Rand = () => number;

export function int(r: Rand, n: number): number {
  return Math.floor(r() * n);
}

/** A 32-bit word from one of the LEB128 size classes (small, medium, large, negative, extreme). */
export function word(r: Rand): number {
  switch (int(r, 6)) {
    case 0: return int(r, 64);
    case 1: return int(r, 1 << 14);
    case 2: return int(r, 1 << 28);
    case 3: return -int(r, 1 << 20) - 1;
    case 4: return [0, -1, 0x7fffffff, -0x80000000, 63, 64, -64, -65][int(r, 8)]!;
    default: return (r() * 4294967296) | 0;
  }
}

/** A small unsigned index, sometimes one that needs 2-5 LEB bytes. */
export function index(r: Rand): number {
  return int(r, 4) === 0 ? word(r) >>> 1 : int(r, 8);
}

function heapType(r: Rand): number {
  return int(r, 2) ? HT_EXN + int(r, HT_NOEXN - HT_EXN + 1) : int(r, 3) ? int(r, 200) : int(r, 1 << 20);
}

export function valType(r: Rand): ValType {
  const k = int(r, 7);
  return k < 5 ? [I32, I64, F32, F64, V128][k]! : refType(heapType(r), int(r, 2) === 1);
}

/** Immediate words of kind `k`. */
export function immWords(k: ImmKind, r: Rand): number[] {
  switch (k) {
    case Imm.BlockType: {
      const c = int(r, 3);
      return [c === 0 ? BLOCK_EMPTY : c === 1 ? valType(r) : -(index(r) & 0x7fffffff) - 1];
    }
    case Imm.Label: return [int(r, 5)];
    case Imm.LabelTable: {
      const n = int(r, 4);
      return [n, ...Array.from({ length: n + 1 }, () => int(r, 5))];
    }
    case Imm.I32: return [word(r)];
    case Imm.I64: return int(r, 2) ? [word(r), word(r)] : [word(r), word(r) >> 31];
    case Imm.F32: return [word(r)];
    case Imm.F64: return [word(r), word(r)];
    case Imm.V128: return [word(r), word(r), word(r), word(r)];
    case Imm.Lane: return [int(r, 16)];
    case Imm.Shuffle: return Array.from({ length: 16 }, () => int(r, 32));
    case Imm.MemArg: return [int(r, 5), int(r, 3) === 0 ? index(r) : 0, word(r), int(r, 3) === 0 ? word(r) : 0];
    case Imm.ValTypes: {
      const n = int(r, 3);
      return [n, ...Array.from({ length: n }, () => valType(r))];
    }
    case Imm.HeapType: return [heapType(r)];
    case Imm.CastFlags: return [int(r, 4)];
    case Imm.Catches: {
      const n = int(r, 3);
      const out = [n];
      for (let j = 0; j < n; j++) {
        const kind = int(r, 4);
        out.push(kind, kind < 2 ? index(r) : 0, int(r, 5));
      }
      return out;
    }
    case Imm.ZeroByte: return [0];
    default: return [index(r)];
  }
}

/** Appends op `op` with random immediates (or `words`) to `b`. */
export function addInstr(b: BodyBuilder, op: number, r: Rand, words?: readonly number[]): void {
  b.begin(op);
  const ws = words ?? OPS[op]!.imms.flatMap((k) => immWords(k, r));
  for (const w of ws) b.word(w);
}

/** A body of `n` instructions, op ids from `pick`. */
export function randomBody(r: Rand, n: number, pick: () => number): Body {
  const b = new BodyBuilder(n);
  for (let i = 0; i < n; i++) addInstr(b, pick(), r);
  return b.finish();
}
