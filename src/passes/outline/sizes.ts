// Exact encoded sizes of single instructions, for the outliner's cost model.

import { ByteWriter, s32Size, u32Size } from "../../binary/bytes.js";
import { encodeInstructions } from "../../binary/code-writer.js";
import { Imm, OPS } from "../../binary/opcodes/index.js";
import type { Body } from "../../ir/body.js";

/** Per op: 0 = needs the general encoder, 1 = opcode only, 2 = opcode + one u32, 3 = opcode + one s32. */
const SHAPE = new Uint8Array(OPS.length);
const OPCODE_SIZE = new Uint8Array(OPS.length);
const U32_IMMS = new Set<number>([Imm.Label, Imm.Func, Imm.Type, Imm.Table, Imm.Memory, Imm.Global, Imm.Local, Imm.Tag, Imm.Data, Imm.Elem, Imm.Field]);
for (const d of OPS) {
  const id = d.id!;
  OPCODE_SIZE[id] = d.prefix === 0 ? 1 : 1 + u32Size(d.code);
  if (d.imms.length === 0) SHAPE[id] = 1;
  else if (d.imms.length === 1 && U32_IMMS.has(d.imms[0]!)) SHAPE[id] = 2;
  else if (d.imms.length === 1 && d.imms[0] === Imm.I32) SHAPE[id] = 3;
}

const scratch = new ByteWriter(64);

/** Encoded size of instruction i of body. */
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
  scratch.len = 0;
  encodeInstructions(scratch, body, i, i + 1);
  return scratch.len;
}
