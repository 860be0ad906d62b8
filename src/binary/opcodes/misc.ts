// Prefix 0xfc: saturating truncations, bulk memory, table instructions.

import { op, Imm, Eff, Trap, type OpDef, type ImmKind, type Feature } from "./defs.js";

const { Memory, Table, Data, Elem } = Imm;
const { NONE, READ_MEM, WRITE_MEM, READ_TABLE, WRITE_TABLE } = Eff;

const m = (code: number, name: string, imms: readonly ImmKind[], sig: string | undefined, effects: number, feature: Feature): OpDef =>
  op(0xfc, code, name, imms, sig, effects, feature);

export const MISC_OPS: OpDef[] = [
  m(0, "i32.trunc_sat_f32_s", [], "f32 -> i32", NONE, "sat-trunc"),
  m(1, "i32.trunc_sat_f32_u", [], "f32 -> i32", NONE, "sat-trunc"),
  m(2, "i32.trunc_sat_f64_s", [], "f64 -> i32", NONE, "sat-trunc"),
  m(3, "i32.trunc_sat_f64_u", [], "f64 -> i32", NONE, "sat-trunc"),
  m(4, "i64.trunc_sat_f32_s", [], "f32 -> i64", NONE, "sat-trunc"),
  m(5, "i64.trunc_sat_f32_u", [], "f32 -> i64", NONE, "sat-trunc"),
  m(6, "i64.trunc_sat_f64_s", [], "f64 -> i64", NONE, "sat-trunc"),
  m(7, "i64.trunc_sat_f64_u", [], "f64 -> i64", NONE, "sat-trunc"),
  // Data/element segments are state too (dropped by data.drop / elem.drop):
  // their reads and drops are counted as memory / table effects.
  m(8, "memory.init", [Data, Memory], undefined, READ_MEM | WRITE_MEM | Trap.MEMORY, "bulk-memory"),
  m(9, "data.drop", [Data], undefined, WRITE_MEM, "bulk-memory"),
  m(10, "memory.copy", [Memory, Memory], undefined, READ_MEM | WRITE_MEM | Trap.MEMORY, "bulk-memory"),
  m(11, "memory.fill", [Memory], undefined, WRITE_MEM | Trap.MEMORY, "bulk-memory"),
  m(12, "table.init", [Elem, Table], undefined, READ_TABLE | WRITE_TABLE | Trap.TABLE, "bulk-memory"),
  m(13, "elem.drop", [Elem], undefined, WRITE_TABLE, "bulk-memory"),
  m(14, "table.copy", [Table, Table], undefined, READ_TABLE | WRITE_TABLE | Trap.TABLE, "bulk-memory"),
  m(15, "table.grow", [Table], undefined, READ_TABLE | WRITE_TABLE, "reference-types"),
  m(16, "table.size", [Table], undefined, READ_TABLE, "reference-types"),
  m(17, "table.fill", [Table], undefined, WRITE_TABLE | Trap.TABLE, "reference-types"),
  // wide-arithmetic proposal: 128-bit add/sub on (lo, hi) pairs, 64x64->128 multiply
  m(19, "i64.add128", [], "i64 i64 i64 i64 -> i64 i64", NONE, "wide-arithmetic"),
  m(20, "i64.sub128", [], "i64 i64 i64 i64 -> i64 i64", NONE, "wide-arithmetic"),
  m(21, "i64.mul_wide_s", [], "i64 i64 -> i64 i64", NONE, "wide-arithmetic"),
  m(22, "i64.mul_wide_u", [], "i64 i64 -> i64 i64", NONE, "wide-arithmetic"),
];
