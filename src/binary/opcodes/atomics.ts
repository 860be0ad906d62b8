// Prefix 0xfe: threads proposal (atomic memory accesses, wait/notify, fence).

import { op, Imm, Eff, Trap, type OpDef } from "./defs.js";

const { MemArg, ZeroByte } = Imm;
const { READ_MEM, WRITE_MEM, ATOMIC } = Eff;

const LOAD = READ_MEM | Trap.MEMORY | ATOMIC;
const STORE = WRITE_MEM | Trap.MEMORY | ATOMIC;
const RMW = READ_MEM | WRITE_MEM | Trap.MEMORY | ATOMIC;

const a = (code: number, name: string, sig: string, effects: number): OpDef =>
  op(0xfe, code, name, [MemArg], sig, effects, "threads");

/** The seven widths of each read-modify-write family, in opcode order. */
const RMW_SHAPES: [string, string][] = [
  ["i32.atomic.rmw", "i32"],
  ["i64.atomic.rmw", "i64"],
  ["i32.atomic.rmw8", "i32"],
  ["i32.atomic.rmw16", "i32"],
  ["i64.atomic.rmw8", "i64"],
  ["i64.atomic.rmw16", "i64"],
  ["i64.atomic.rmw32", "i64"],
];
const RMW_OPS = ["add", "sub", "and", "or", "xor", "xchg", "cmpxchg"];

const rmwRows: OpDef[] = [];
RMW_OPS.forEach((o, g) => {
  RMW_SHAPES.forEach(([base, t], w) => {
    const name = `${base}.${o}${w >= 2 ? "_u" : ""}`;
    const sig = o === "cmpxchg" ? `a ${t} ${t} -> ${t}` : `a ${t} -> ${t}`;
    rmwRows.push(a(0x1e + g * 7 + w, name, sig, RMW));
  });
});

export const ATOMIC_OPS: OpDef[] = [
  a(0x00, "memory.atomic.notify", "a i32 -> i32", RMW),
  a(0x01, "memory.atomic.wait32", "a i32 i64 -> i32", RMW),
  a(0x02, "memory.atomic.wait64", "a i64 i64 -> i32", RMW),
  op(0xfe, 0x03, "atomic.fence", [ZeroByte], "->", ATOMIC | READ_MEM | WRITE_MEM, "threads"),
  a(0x10, "i32.atomic.load", "a -> i32", LOAD),
  a(0x11, "i64.atomic.load", "a -> i64", LOAD),
  a(0x12, "i32.atomic.load8_u", "a -> i32", LOAD),
  a(0x13, "i32.atomic.load16_u", "a -> i32", LOAD),
  a(0x14, "i64.atomic.load8_u", "a -> i64", LOAD),
  a(0x15, "i64.atomic.load16_u", "a -> i64", LOAD),
  a(0x16, "i64.atomic.load32_u", "a -> i64", LOAD),
  a(0x17, "i32.atomic.store", "a i32 ->", STORE),
  a(0x18, "i64.atomic.store", "a i64 ->", STORE),
  a(0x19, "i32.atomic.store8", "a i32 ->", STORE),
  a(0x1a, "i32.atomic.store16", "a i32 ->", STORE),
  a(0x1b, "i64.atomic.store8", "a i64 ->", STORE),
  a(0x1c, "i64.atomic.store16", "a i64 ->", STORE),
  a(0x1d, "i64.atomic.store32", "a i64 ->", STORE),
  ...rmwRows, // 0x1e .. 0x4e
];
