// Prefix 0xfb: GC proposal (Wasm 3.0): structs, arrays, casts, i31, extern/any conversion.

import { op, Imm, Eff, Trap, type OpDef, type ImmKind } from "./defs.js";

const { Type, Field, Data, Elem, HeapType, CastFlags, Label, Count } = Imm;
const { NONE, READ_MEM, READ_TABLE, BRANCH, ALLOC, READ_GC, WRITE_GC } = Eff;
const { NULL_CAST, ARRAY, MEMORY, TABLE } = Trap;

const g = (code: number, name: string, imms: readonly ImmKind[], effects: number): OpDef =>
  op(0xfb, code, name, imms, undefined, effects, "gc");

export const GC_OPS: OpDef[] = [
  g(0, "struct.new", [Type], ALLOC),
  g(1, "struct.new_default", [Type], ALLOC),
  g(2, "struct.get", [Type, Field], READ_GC | NULL_CAST),
  g(3, "struct.get_s", [Type, Field], READ_GC | NULL_CAST),
  g(4, "struct.get_u", [Type, Field], READ_GC | NULL_CAST),
  g(5, "struct.set", [Type, Field], WRITE_GC | NULL_CAST),
  // the length may be too large to allocate
  g(6, "array.new", [Type], ALLOC | ARRAY),
  g(7, "array.new_default", [Type], ALLOC | ARRAY),
  g(8, "array.new_fixed", [Type, Count], ALLOC),
  // segment reads count as READ_MEM / READ_TABLE (data.drop / elem.drop write them);
  // a range outside the segment traps as a segment-bounds (memory / table) trap
  g(9, "array.new_data", [Type, Data], ALLOC | ARRAY | MEMORY | READ_MEM),
  g(10, "array.new_elem", [Type, Elem], ALLOC | ARRAY | TABLE | READ_TABLE),
  g(11, "array.get", [Type], READ_GC | NULL_CAST | ARRAY),
  g(12, "array.get_s", [Type], READ_GC | NULL_CAST | ARRAY),
  g(13, "array.get_u", [Type], READ_GC | NULL_CAST | ARRAY),
  g(14, "array.set", [Type], WRITE_GC | NULL_CAST | ARRAY),
  g(15, "array.len", [], NULL_CAST),
  g(16, "array.fill", [Type], WRITE_GC | NULL_CAST | ARRAY),
  g(17, "array.copy", [Type, Type], READ_GC | WRITE_GC | NULL_CAST | ARRAY),
  g(18, "array.init_data", [Type, Data], WRITE_GC | NULL_CAST | ARRAY | MEMORY | READ_MEM),
  g(19, "array.init_elem", [Type, Elem], WRITE_GC | NULL_CAST | ARRAY | TABLE | READ_TABLE),
  // Text format: `ref.test (ref ht)` / `ref.test (ref null ht)`; the nullable
  // variants get distinct names here so that names are unique.
  g(20, "ref.test", [HeapType], NONE),
  g(21, "ref.test_null", [HeapType], NONE),
  g(22, "ref.cast", [HeapType], NULL_CAST),
  g(23, "ref.cast_null", [HeapType], NULL_CAST),
  g(24, "br_on_cast", [CastFlags, Label, HeapType, HeapType], BRANCH),
  g(25, "br_on_cast_fail", [CastFlags, Label, HeapType, HeapType], BRANCH),
  g(26, "any.convert_extern", [], NONE),
  g(27, "extern.convert_any", [], NONE),
  g(28, "ref.i31", [], NONE),
  g(29, "i31.get_s", [], NULL_CAST),
  g(30, "i31.get_u", [], NULL_CAST),
];
