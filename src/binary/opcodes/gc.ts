// Prefix 0xfb: GC proposal (Wasm 3.0): structs, arrays, casts, i31, extern/any conversion.

import { op, Imm, Eff, type OpDef, type ImmKind } from "./defs.js";

const { Type, Field, Data, Elem, HeapType, CastFlags, Label, Count } = Imm;
const { NONE, TRAP, READ_MEM, READ_TABLE, BRANCH, ALLOC, READ_GC, WRITE_GC } = Eff;

const g = (code: number, name: string, imms: readonly ImmKind[], effects: number): OpDef =>
  op(0xfb, code, name, imms, undefined, effects, "gc");

export const GC_OPS: OpDef[] = [
  g(0, "struct.new", [Type], ALLOC),
  g(1, "struct.new_default", [Type], ALLOC),
  g(2, "struct.get", [Type, Field], READ_GC | TRAP),
  g(3, "struct.get_s", [Type, Field], READ_GC | TRAP),
  g(4, "struct.get_u", [Type, Field], READ_GC | TRAP),
  g(5, "struct.set", [Type, Field], WRITE_GC | TRAP),
  g(6, "array.new", [Type], ALLOC | TRAP),
  g(7, "array.new_default", [Type], ALLOC | TRAP),
  g(8, "array.new_fixed", [Type, Count], ALLOC),
  // segment reads count as READ_MEM / READ_TABLE (data.drop / elem.drop write them)
  g(9, "array.new_data", [Type, Data], ALLOC | TRAP | READ_MEM),
  g(10, "array.new_elem", [Type, Elem], ALLOC | TRAP | READ_TABLE),
  g(11, "array.get", [Type], READ_GC | TRAP),
  g(12, "array.get_s", [Type], READ_GC | TRAP),
  g(13, "array.get_u", [Type], READ_GC | TRAP),
  g(14, "array.set", [Type], WRITE_GC | TRAP),
  g(15, "array.len", [], TRAP),
  g(16, "array.fill", [Type], WRITE_GC | TRAP),
  g(17, "array.copy", [Type, Type], READ_GC | WRITE_GC | TRAP),
  g(18, "array.init_data", [Type, Data], WRITE_GC | TRAP | READ_MEM),
  g(19, "array.init_elem", [Type, Elem], WRITE_GC | TRAP | READ_TABLE),
  // Text format: `ref.test (ref ht)` / `ref.test (ref null ht)`; the nullable
  // variants get distinct names here so that names are unique.
  g(20, "ref.test", [HeapType], NONE),
  g(21, "ref.test_null", [HeapType], NONE),
  g(22, "ref.cast", [HeapType], TRAP),
  g(23, "ref.cast_null", [HeapType], TRAP),
  g(24, "br_on_cast", [CastFlags, Label, HeapType, HeapType], BRANCH),
  g(25, "br_on_cast_fail", [CastFlags, Label, HeapType, HeapType], BRANCH),
  g(26, "any.convert_extern", [], NONE),
  g(27, "extern.convert_any", [], NONE),
  g(28, "ref.i31", [], NONE),
  g(29, "i31.get_s", [], TRAP),
  g(30, "i31.get_u", [], TRAP),
];
