// Encodes a Body back to bytes with minimal LEB128 encodings, driven by the
// opcode table (the inverse of code-reader.ts).

import { ByteWriter } from "./bytes.js";
import { Imm, OPS } from "./opcodes/index.js";
import { BLOCK_EMPTY, type Body } from "../ir/body.js";
import { writeHeapType, writeValType } from "./type-writer.js";

const IMMS = OPS.map((d) => d.imms);
const PREFIX = OPS.map((d) => d.prefix);
const CODE = OPS.map((d) => d.code);

/** Writes instructions [from, to) of `body`. */
export function encodeInstructions(w: ByteWriter, body: Body, from = 0, to = body.count): void {
  const { ops, immStart, imm } = body;
  for (let i = from; i < to; i++) {
    const id = ops[i]!;
    const prefix = PREFIX[id]!;
    if (prefix === 0) w.u8(CODE[id]!);
    else {
      w.u8(prefix);
      w.u32(CODE[id]!);
    }
    const imms = IMMS[id]!;
    if (imms.length === 0) continue;
    let p = immStart[i]!;
    for (let k = 0; k < imms.length; k++) {
      switch (imms[k]) {
        case Imm.BlockType: {
          const v = imm[p++]!;
          if (v === BLOCK_EMPTY) w.u8(0x40);
          else if (v < 0) w.s33(-v - 1);
          else writeValType(w, v);
          break;
        }
        case Imm.I32:
          w.s32(imm[p++]!);
          break;
        case Imm.I64:
          w.s64Words(imm[p]!, imm[p + 1]!);
          p += 2;
          break;
        case Imm.F32:
          w.u32Fixed(imm[p++]!);
          break;
        case Imm.F64:
          w.u32Fixed(imm[p++]!);
          w.u32Fixed(imm[p++]!);
          break;
        case Imm.V128:
          for (let j = 0; j < 4; j++) w.u32Fixed(imm[p++]!);
          break;
        case Imm.MemArg: {
          const align = imm[p]!;
          const mem = imm[p + 1]!;
          if (mem !== 0) {
            w.u32(align | 0x40);
            w.u32(mem);
          } else w.u32(align);
          w.u64Words(imm[p + 2]!, imm[p + 3]!);
          p += 4;
          break;
        }
        case Imm.LabelTable: {
          const n = imm[p++]!;
          w.u32(n);
          for (let j = 0; j <= n; j++) w.u32(imm[p++]!);
          break;
        }
        case Imm.ValTypes: {
          const n = imm[p++]!;
          w.u32(n);
          for (let j = 0; j < n; j++) writeValType(w, imm[p++]!);
          break;
        }
        case Imm.HeapType:
          writeHeapType(w, imm[p++]!);
          break;
        case Imm.Lane:
        case Imm.CastFlags:
        case Imm.ZeroByte:
          w.u8(imm[p++]!);
          break;
        case Imm.Shuffle:
          for (let j = 0; j < 16; j++) w.u8(imm[p++]!);
          break;
        case Imm.Catches: {
          const n = imm[p++]!;
          w.u32(n);
          for (let j = 0; j < n; j++) {
            const kind = imm[p]!;
            w.u8(kind);
            if (kind < 2) w.u32(imm[p + 1]!);
            w.u32(imm[p + 2]!);
            p += 3;
          }
          break;
        }
        default:
          w.u32(imm[p++]!);
      }
    }
  }
}
