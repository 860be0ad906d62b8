// Where each kind of immediate sits among an instruction's words, derived
// from the opcode table once. Passes use this to find function indices,
// local indices and constants without per-op special cases.

import { Imm, OPS, type ImmKind } from "../binary/opcodes/index.js";

/** Fixed word width of an immediate kind, or -1 if it is self-describing (vectors). */
export function immWidth(k: ImmKind): number {
  switch (k) {
    case Imm.I64:
    case Imm.F64:
      return 2;
    case Imm.V128:
    case Imm.MemArg:
      return 4;
    case Imm.Shuffle:
      return 16;
    case Imm.LabelTable:
    case Imm.ValTypes:
    case Imm.Catches:
      return -1;
    default:
      return 1;
  }
}

/** Number of words the immediate of kind `k` starting at word `w` of `imm` takes (layout in ir/body.ts). */
export function immWordCount(k: ImmKind, imm: Int32Array, w: number): number {
  switch (k) {
    case Imm.LabelTable:
      return imm[w]! + 2;
    case Imm.ValTypes:
      return 1 + imm[w]!;
    case Imm.Catches:
      return 1 + 3 * imm[w]!;
    default:
      return immWidth(k);
  }
}

/** Per op id: word offsets of immediates of `kind`, or null (only ops whose earlier immediates are fixed-width). */
function offsetsOf(kind: ImmKind): (readonly number[] | null)[] {
  return OPS.map((d) => {
    let off = 0;
    const at: number[] = [];
    for (const k of d.imms) {
      if (k === kind) at.push(off);
      const w = immWidth(k);
      if (w < 0) break;
      off += w;
    }
    return at.length ? at : null;
  });
}

/** Function-index immediates (call, return_call, ref.func). */
export const FUNC_WORDS = offsetsOf(Imm.Func);
/** Local-index immediates (local.get/set/tee). */
export const LOCAL_WORDS = offsetsOf(Imm.Local);
/** Type-index immediates (call_indirect, call_ref, struct.new ...); block types are separate. */
export const TYPE_WORDS = offsetsOf(Imm.Type);
/** Label immediates (br, br_if, br_on_* ...; not br_table's label vector). */
export const LABEL_WORDS = offsetsOf(Imm.Label);
/** Global-index immediates. */
export const GLOBAL_WORDS = offsetsOf(Imm.Global);
