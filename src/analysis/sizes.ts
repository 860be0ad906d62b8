// Exact encoded byte sizes, computed from the immediates without encoding:
// an instruction, a range, a whole body, a function's local declarations and
// its code-section entry. The writer (binary/code-writer.ts, binary/writer.ts)
// produces exactly these sizes; test/sizes.test.ts checks it on random bodies.

import { s32Size, s33Size, s64WordsSize, u32Size, u64WordsSize } from "../binary/bytes.js";
import { Imm, OPS } from "../binary/opcodes/index.js";
import { BLOCK_EMPTY, type Body } from "../ir/body.js";
import type { Func } from "../ir/module.js";
import { heapOf, isNullable, isRef, type ValType } from "../ir/types.js";

/** Per op: bytes of the opcode (prefix and LEB128 sub-opcode included). */
const OPCODE_SIZE = new Uint8Array(OPS.length);
/** Per op: 1 = no immediates, 2 = one u32 immediate, 3 = one s32 immediate, 0 = anything else (the general loop). */
const SHAPE = new Uint8Array(OPS.length);
const U32_IMMS = new Set<number>([Imm.Label, Imm.Func, Imm.Type, Imm.Table, Imm.Memory, Imm.Global, Imm.Local, Imm.Tag, Imm.Data, Imm.Elem, Imm.Field, Imm.Count]);
const IMMS = OPS.map((d) => d.imms);
for (const d of OPS) {
  const id = d.id!;
  OPCODE_SIZE[id] = d.prefix === 0 ? 1 : 1 + u32Size(d.code);
  if (d.imms.length === 0) SHAPE[id] = 1;
  else if (d.imms.length === 1 && U32_IMMS.has(d.imms[0]!)) SHAPE[id] = 2;
  else if (d.imms.length === 1 && d.imms[0] === Imm.I32) SHAPE[id] = 3;
}

/** Bytes of a value type as binary/type-writer.ts writes it. */
export function valTypeSize(t: ValType): number {
  if (!isRef(t)) return 1;
  const h = heapOf(t);
  if (h < 0 && isNullable(t)) return 1;
  return 1 + s33Size(h);
}

/** Encoded size of instruction i of `body`. */
export function instrSize(body: Body, i: number): number {
  const op = body.ops[i]!;
  switch (SHAPE[op]) {
    case 1:
      return OPCODE_SIZE[op]!;
    case 2:
      return OPCODE_SIZE[op]! + u32Size(body.imm[body.immStart[i]!]!);
    case 3:
      return OPCODE_SIZE[op]! + s32Size(body.imm[body.immStart[i]!]!);
  }
  return OPCODE_SIZE[op]! + immsSize(IMMS[op]!, body.imm, body.immStart[i]!);
}

/** Bytes of immediates `imms` whose words start at imm[p] (the layout of ir/body.ts). */
function immsSize(imms: readonly number[], imm: Int32Array, p: number): number {
  let n = 0;
  for (let k = 0; k < imms.length; k++) {
    switch (imms[k]) {
      case Imm.BlockType: {
        const v = imm[p++]!;
        n += v === BLOCK_EMPTY ? 1 : v < 0 ? s33Size(-v - 1) : valTypeSize(v);
        break;
      }
      case Imm.I32:
        n += s32Size(imm[p++]!);
        break;
      case Imm.I64:
        n += s64WordsSize(imm[p]!, imm[p + 1]!);
        p += 2;
        break;
      case Imm.F32:
        n += 4;
        p++;
        break;
      case Imm.F64:
        n += 8;
        p += 2;
        break;
      case Imm.V128:
        n += 16;
        p += 4;
        break;
      case Imm.MemArg: {
        const align = imm[p]!;
        const mem = imm[p + 1]!;
        n += mem !== 0 ? u32Size(align | 0x40) + u32Size(mem) : u32Size(align);
        n += u64WordsSize(imm[p + 2]!, imm[p + 3]!);
        p += 4;
        break;
      }
      case Imm.LabelTable: {
        const count = imm[p++]!;
        n += u32Size(count);
        for (let j = 0; j <= count; j++) n += u32Size(imm[p++]!);
        break;
      }
      case Imm.ValTypes: {
        const count = imm[p++]!;
        n += u32Size(count);
        for (let j = 0; j < count; j++) n += valTypeSize(imm[p++]!);
        break;
      }
      case Imm.HeapType:
        n += s33Size(imm[p++]!);
        break;
      case Imm.Lane:
      case Imm.CastFlags:
      case Imm.ZeroByte:
        n += 1;
        p++;
        break;
      case Imm.Shuffle:
        n += 16;
        p += 16;
        break;
      case Imm.Catches: {
        const count = imm[p++]!;
        n += u32Size(count);
        for (let j = 0; j < count; j++) {
          const kind = imm[p]!;
          n += 1 + (kind < 2 ? u32Size(imm[p + 1]!) : 0) + u32Size(imm[p + 2]!);
          p += 3;
        }
        break;
      }
      default:
        n += u32Size(imm[p++]!);
    }
  }
  return n;
}

/** Encoded size of instructions [from, to) of `body`. */
export function rangeSize(body: Body, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) n += instrSize(body, i);
  return n;
}

/** Encoded size of all of `body`'s instructions, its final `end` included. */
export function codeSize(body: Body): number {
  return rangeSize(body, 0, body.count);
}

/**
 * Bytes of a function's local declarations as binary/writer.ts writes them:
 * adjacent groups of one type merged, empty groups left out.
 */
export function localDeclsSize(locals: readonly { count: number; type: ValType }[]): number {
  let groups = 0;
  let n = 0;
  let lastType = -1;
  let lastCount = 0;
  for (const g of locals) {
    if (g.count === 0) continue;
    if (groups > 0 && g.type === lastType) {
      n += u32Size(lastCount + g.count) - u32Size(lastCount);
      lastCount += g.count;
      continue;
    }
    groups++;
    n += u32Size(g.count) + valTypeSize(g.type);
    lastType = g.type;
    lastCount = g.count;
  }
  return u32Size(groups) + n;
}

/** Bytes of a code-section entry (local declarations + instructions), without its size prefix. */
export function funcEntrySize(locals: readonly { count: number; type: ValType }[], body: Body): number {
  return localDeclsSize(locals) + codeSize(body);
}

/** Bytes of `f`'s code-section entry as the writer writes it (its original bytes while untouched), without the size prefix. */
export function funcEntrySizeOf(f: Func): number {
  if (f.raw && !f.dirty) return f.raw.length;
  return funcEntrySize(f.locals, f.body!);
}

/** Bytes a defined function with type `typeIndex` and an `entrySize`-byte code entry costs in the function and code sections. */
export function functionCostOf(typeIndex: number, entrySize: number): number {
  return u32Size(typeIndex) + u32Size(entrySize) + entrySize;
}

/** Bytes defined function `f` costs in the function and code sections. */
export function functionCost(f: Func): number {
  return functionCostOf(f.typeIndex, funcEntrySizeOf(f));
}
