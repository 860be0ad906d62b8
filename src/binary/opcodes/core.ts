// Single-byte opcodes: MVP, sign-extension, reference types, tail calls,
// exceptions (legacy and final), typed function references and ref.eq (GC).
// Verified against wasm-tools encodings by test/opcodes.test.ts.

import { op, Imm, Eff, Trap, type OpDef, type ImmKind, type Feature } from "./defs.js";

const {
  BlockType, Label, LabelTable, Func, Type, Table, Memory, Global, Local, Tag,
  I32, I64, F32, F64, MemArg, ValTypes, HeapType, Catches,
} = Imm;
const { NONE, READ_MEM, WRITE_MEM, CALL, BRANCH, READ_GLOBAL, WRITE_GLOBAL,
  READ_TABLE, WRITE_TABLE, THROW, READ_LOCAL, WRITE_LOCAL, STRUCTURE, RETURN, UNCONDITIONAL } = Eff;

const c = (code: number, name: string, imms: readonly ImmKind[], effects: number, feature: Feature = "mvp"): OpDef =>
  op(0, code, name, imms, undefined, effects, feature);
const s = (code: number, name: string, imms: readonly ImmKind[], sig: string, effects: number, feature: Feature = "mvp"): OpDef =>
  op(0, code, name, imms, sig, effects, feature);

const LOAD = READ_MEM | Trap.MEMORY;
const STORE = WRITE_MEM | Trap.MEMORY;
/** Leaves the function: return and the tail calls. */
const RET = BRANCH | RETURN | UNCONDITIONAL;
/** call_indirect's checks: the index against the table, a null slot, the signature. */
const INDIRECT = Trap.TABLE | Trap.NULL_CAST | Trap.SIGNATURE;

/** Numeric ops 0x45..0xc4, in opcode order: [name, sig, effects]. */
const NUMERIC: [string, string, number][] = [];
function num(names: string, sig: string, eff: number = NONE): void {
  for (const n of names.trim().split(/\s+/)) NUMERIC.push([n, sig, eff]);
}
const icmp = "eq ne lt_s lt_u gt_s gt_u le_s le_u ge_s ge_u";
const fcmp = "eq ne lt gt le ge";
const pre = (t: string, ops: string) => ops.split(" ").map((o) => `${t}.${o}`).join(" ");
// 0x45 ..
num("i32.eqz", "i32 -> i32");
num(pre("i32", icmp), "i32 i32 -> i32");
num("i64.eqz", "i64 -> i32");
num(pre("i64", icmp), "i64 i64 -> i32");
num(pre("f32", fcmp), "f32 f32 -> i32");
num(pre("f64", fcmp), "f64 f64 -> i32");
// 0x67 ..
num("i32.clz i32.ctz i32.popcnt", "i32 -> i32");
num("i32.add i32.sub i32.mul", "i32 i32 -> i32");
num("i32.div_s i32.div_u i32.rem_s i32.rem_u", "i32 i32 -> i32", Trap.DIV);
num("i32.and i32.or i32.xor i32.shl i32.shr_s i32.shr_u i32.rotl i32.rotr", "i32 i32 -> i32");
num("i64.clz i64.ctz i64.popcnt", "i64 -> i64");
num("i64.add i64.sub i64.mul", "i64 i64 -> i64");
num("i64.div_s i64.div_u i64.rem_s i64.rem_u", "i64 i64 -> i64", Trap.DIV);
num("i64.and i64.or i64.xor i64.shl i64.shr_s i64.shr_u i64.rotl i64.rotr", "i64 i64 -> i64");
num(pre("f32", "abs neg ceil floor trunc nearest sqrt"), "f32 -> f32");
num(pre("f32", "add sub mul div min max copysign"), "f32 f32 -> f32");
num(pre("f64", "abs neg ceil floor trunc nearest sqrt"), "f64 -> f64");
num(pre("f64", "add sub mul div min max copysign"), "f64 f64 -> f64");
// 0xa7 conversions
num("i32.wrap_i64", "i64 -> i32");
num("i32.trunc_f32_s i32.trunc_f32_u", "f32 -> i32", Trap.FLOAT_INT);
num("i32.trunc_f64_s i32.trunc_f64_u", "f64 -> i32", Trap.FLOAT_INT);
num("i64.extend_i32_s i64.extend_i32_u", "i32 -> i64");
num("i64.trunc_f32_s i64.trunc_f32_u", "f32 -> i64", Trap.FLOAT_INT);
num("i64.trunc_f64_s i64.trunc_f64_u", "f64 -> i64", Trap.FLOAT_INT);
num("f32.convert_i32_s f32.convert_i32_u", "i32 -> f32");
num("f32.convert_i64_s f32.convert_i64_u", "i64 -> f32");
num("f32.demote_f64", "f64 -> f32");
num("f64.convert_i32_s f64.convert_i32_u", "i32 -> f64");
num("f64.convert_i64_s f64.convert_i64_u", "i64 -> f64");
num("f64.promote_f32", "f32 -> f64");
num("i32.reinterpret_f32", "f32 -> i32");
num("i64.reinterpret_f64", "f64 -> i64");
num("f32.reinterpret_i32", "i32 -> f32");
num("f64.reinterpret_i64", "i64 -> f64");
// 0xc0 sign extension
num("i32.extend8_s i32.extend16_s", "i32 -> i32");
num("i64.extend8_s i64.extend16_s i64.extend32_s", "i64 -> i64");
if (NUMERIC.length !== 0xc5 - 0x45) throw new Error(`numeric table has ${NUMERIC.length} rows`);

export const CORE_OPS: OpDef[] = [
  // control
  c(0x00, "unreachable", [], Trap.UNREACHABLE | UNCONDITIONAL),
  c(0x01, "nop", [], NONE),
  c(0x02, "block", [BlockType], STRUCTURE),
  c(0x03, "loop", [BlockType], STRUCTURE),
  c(0x04, "if", [BlockType], STRUCTURE),
  c(0x05, "else", [], STRUCTURE),
  // legacy exception handling
  c(0x06, "try", [BlockType], STRUCTURE, "exceptions-legacy"),
  c(0x07, "catch", [Tag], STRUCTURE, "exceptions-legacy"),
  c(0x08, "throw", [Tag], BRANCH | THROW | UNCONDITIONAL, "exceptions"),
  c(0x09, "rethrow", [Label], BRANCH | THROW | UNCONDITIONAL, "exceptions-legacy"),
  c(0x0a, "throw_ref", [], BRANCH | THROW | UNCONDITIONAL | Trap.NULL_CAST, "exceptions"),
  c(0x0b, "end", [], STRUCTURE),
  c(0x0c, "br", [Label], BRANCH | UNCONDITIONAL),
  c(0x0d, "br_if", [Label], BRANCH),
  c(0x0e, "br_table", [LabelTable], BRANCH | UNCONDITIONAL),
  c(0x0f, "return", [], RET),
  c(0x10, "call", [Func], CALL),
  c(0x11, "call_indirect", [Type, Table], CALL | INDIRECT | READ_TABLE),
  c(0x12, "return_call", [Func], CALL | RET, "tail-call"),
  c(0x13, "return_call_indirect", [Type, Table], CALL | RET | INDIRECT | READ_TABLE, "tail-call"),
  c(0x14, "call_ref", [Type], CALL | Trap.NULL_CAST, "typed-funcref"),
  c(0x15, "return_call_ref", [Type], CALL | RET | Trap.NULL_CAST, "typed-funcref"),
  c(0x18, "delegate", [Label], STRUCTURE, "exceptions-legacy"),
  c(0x19, "catch_all", [], STRUCTURE, "exceptions-legacy"),
  // parametric
  c(0x1a, "drop", [], NONE),
  c(0x1b, "select", [], NONE),
  // typed select `select (result t*)`: same text mnemonic "select"; named
  // "select_t" here so that every row has a unique name (the printer prints "select").
  c(0x1c, "select_t", [ValTypes], NONE, "reference-types"),
  c(0x1f, "try_table", [BlockType, Catches], STRUCTURE, "exceptions"),
  // variables
  c(0x20, "local.get", [Local], READ_LOCAL),
  c(0x21, "local.set", [Local], WRITE_LOCAL),
  c(0x22, "local.tee", [Local], WRITE_LOCAL),
  c(0x23, "global.get", [Global], READ_GLOBAL),
  c(0x24, "global.set", [Global], WRITE_GLOBAL),
  c(0x25, "table.get", [Table], READ_TABLE | Trap.TABLE, "reference-types"),
  c(0x26, "table.set", [Table], WRITE_TABLE | Trap.TABLE, "reference-types"),
  // memory
  s(0x28, "i32.load", [MemArg], "a -> i32", LOAD),
  s(0x29, "i64.load", [MemArg], "a -> i64", LOAD),
  s(0x2a, "f32.load", [MemArg], "a -> f32", LOAD),
  s(0x2b, "f64.load", [MemArg], "a -> f64", LOAD),
  s(0x2c, "i32.load8_s", [MemArg], "a -> i32", LOAD),
  s(0x2d, "i32.load8_u", [MemArg], "a -> i32", LOAD),
  s(0x2e, "i32.load16_s", [MemArg], "a -> i32", LOAD),
  s(0x2f, "i32.load16_u", [MemArg], "a -> i32", LOAD),
  s(0x30, "i64.load8_s", [MemArg], "a -> i64", LOAD),
  s(0x31, "i64.load8_u", [MemArg], "a -> i64", LOAD),
  s(0x32, "i64.load16_s", [MemArg], "a -> i64", LOAD),
  s(0x33, "i64.load16_u", [MemArg], "a -> i64", LOAD),
  s(0x34, "i64.load32_s", [MemArg], "a -> i64", LOAD),
  s(0x35, "i64.load32_u", [MemArg], "a -> i64", LOAD),
  s(0x36, "i32.store", [MemArg], "a i32 ->", STORE),
  s(0x37, "i64.store", [MemArg], "a i64 ->", STORE),
  s(0x38, "f32.store", [MemArg], "a f32 ->", STORE),
  s(0x39, "f64.store", [MemArg], "a f64 ->", STORE),
  s(0x3a, "i32.store8", [MemArg], "a i32 ->", STORE),
  s(0x3b, "i32.store16", [MemArg], "a i32 ->", STORE),
  s(0x3c, "i64.store8", [MemArg], "a i64 ->", STORE),
  s(0x3d, "i64.store16", [MemArg], "a i64 ->", STORE),
  s(0x3e, "i64.store32", [MemArg], "a i64 ->", STORE),
  c(0x3f, "memory.size", [Memory], READ_MEM),
  c(0x40, "memory.grow", [Memory], READ_MEM | WRITE_MEM),
  // constants
  s(0x41, "i32.const", [I32], "-> i32", NONE),
  s(0x42, "i64.const", [I64], "-> i64", NONE),
  s(0x43, "f32.const", [F32], "-> f32", NONE),
  s(0x44, "f64.const", [F64], "-> f64", NONE),
  // numeric 0x45 .. 0xc4
  ...NUMERIC.map(([name, sig, eff], i) => s(0x45 + i, name, [], sig, eff, 0x45 + i >= 0xc0 ? "sign-ext" : "mvp")),
  // references
  c(0xd0, "ref.null", [HeapType], NONE, "reference-types"),
  c(0xd1, "ref.is_null", [], NONE, "reference-types"),
  c(0xd2, "ref.func", [Func], NONE, "reference-types"),
  c(0xd3, "ref.eq", [], NONE, "gc"),
  c(0xd4, "ref.as_non_null", [], Trap.NULL_CAST, "typed-funcref"),
  c(0xd5, "br_on_null", [Label], BRANCH, "typed-funcref"),
  c(0xd6, "br_on_non_null", [Label], BRANCH, "typed-funcref"),
];
