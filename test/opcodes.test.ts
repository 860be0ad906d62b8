// The opcode table against an independent assembler (wasm-tools via jco):
// every op's text form is assembled and the bytes of the instruction must be
// the prefix and the LEB128 code recorded in the table. Plus structural checks.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { OPS, Imm, Eff, type OpDef } from "../src/binary/opcodes/index.js";
import { CORE_OPS } from "../src/binary/opcodes/core.js";
import { MISC_OPS } from "../src/binary/opcodes/misc.js";
import { SIMD_OPS } from "../src/binary/opcodes/simd.js";
import { ATOMIC_OPS } from "../src/binary/opcodes/atomics.js";
import { GC_OPS } from "../src/binary/opcodes/gc.js";
import { uleb } from "./leb.js";

// Type 0: func, 1: struct with a mutable i32 field, 2: mutable i32 array.
const PRELUDE = `
  (type (func))
  (type (struct (field (mut i32))))
  (type (array (mut i32)))
  (memory 1)
  (table 1 funcref)
  (global (mut i32) (i32.const 0))
  (tag)
  (data "x")
  (elem funcref (ref.func 0))`;


/** Hand-written text for ops whose form is not "name + generic immediates"; skip = bytes before the op. */
const SPECIAL: Record<string, { text: string; skip?: number }> = {
  block: { text: "block end" },
  loop: { text: "loop end" },
  if: { text: "if end" },
  else: { text: "if else end", skip: 2 },
  end: { text: "block end", skip: 2 },
  try: { text: "try end" },
  catch: { text: "try catch 0 end", skip: 2 },
  catch_all: { text: "try catch_all end", skip: 2 },
  delegate: { text: "try delegate 0", skip: 2 },
  try_table: { text: "try_table end" },
  br_table: { text: "br_table 0 0" },
  call_indirect: { text: "call_indirect 0 (type 0)" },
  return_call_indirect: { text: "return_call_indirect 0 (type 0)" },
  select_t: { text: "select (result i32)" },
  "ref.null": { text: "ref.null func" },
  "ref.test": { text: "ref.test (ref any)" },
  "ref.test_null": { text: "ref.test (ref null any)" },
  "ref.cast": { text: "ref.cast (ref any)" },
  "ref.cast_null": { text: "ref.cast (ref null any)" },
  br_on_cast: { text: "br_on_cast 0 anyref (ref null i31)" },
  br_on_cast_fail: { text: "br_on_cast_fail 0 anyref (ref null i31)" },
  "struct.new": { text: "struct.new 1" },
  "struct.new_default": { text: "struct.new_default 1" },
  "struct.get": { text: "struct.get 1 0" },
  "struct.get_s": { text: "struct.get_s 1 0" },
  "struct.get_u": { text: "struct.get_u 1 0" },
  "struct.set": { text: "struct.set 1 0" },
  "array.new_fixed": { text: "array.new_fixed 2 3" },
  "array.new_data": { text: "array.new_data 2 0" },
  "array.new_elem": { text: "array.new_elem 2 0" },
  "array.copy": { text: "array.copy 2 2" },
  "array.init_data": { text: "array.init_data 2 0" },
  "array.init_elem": { text: "array.init_elem 2 0" },
  "memory.init": { text: "memory.init 0" },
  "memory.copy": { text: "memory.copy" },
  "memory.fill": { text: "memory.fill" },
  "memory.size": { text: "memory.size" },
  "memory.grow": { text: "memory.grow" },
  "table.init": { text: "table.init 0" },
  "table.copy": { text: "table.copy" },
  "atomic.fence": { text: "atomic.fence" },
};

/** Text of one instruction from its immediate kinds. */
function textOf(d: OpDef): { text: string; skip: number; immBytes?: number } {
  const sp = SPECIAL[d.name];
  if (sp) return { text: sp.text, skip: sp.skip ?? 0 };
  const parts = [d.name];
  let immBytes = 0;
  for (const k of d.imms) {
    immBytes += k === Imm.MemArg ? 2 : k === Imm.V128 || k === Imm.Shuffle ? 16 : k === Imm.F32 ? 4 : k === Imm.F64 ? 8 : 1;
    switch (k) {
      case Imm.MemArg:
        break; // defaults: offset 0, natural alignment, memory 0
      case Imm.Lane:
      case Imm.Label:
      case Imm.Func:
      case Imm.Table:
      case Imm.Global:
      case Imm.Local:
      case Imm.Tag:
      case Imm.Data:
      case Imm.Elem:
      case Imm.I32:
      case Imm.I64:
      case Imm.F32:
      case Imm.F64:
        parts.push("0");
        break;
      case Imm.Type:
        parts.push(d.prefix === 0xfb ? "2" : "0"); // GC array ops take the array type
        break;
      case Imm.V128:
        parts.push("i32x4 0 0 0 0");
        break;
      case Imm.Shuffle:
        parts.push(Array.from({ length: 16 }, (_, i) => String(i)).join(" "));
        break;
      default:
        throw new Error(`no generic text for ${d.name} (imm kind ${k})`);
    }
  }
  return { text: parts.join(" "), skip: 0, immBytes };
}

/** Bytes of the first function body's code, after the (empty) local declarations. */
function firstBodyCode(bin: Uint8Array): Uint8Array {
  let p = 8;
  const u = (): number => {
    let r = 0, shift = 0, b: number;
    do {
      b = bin[p++]!;
      r += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return r;
  };
  while (p < bin.length) {
    const id = bin[p++]!;
    const size = u();
    if (id !== 10) {
      p += size;
      continue;
    }
    u(); // function count
    const bodySize = u();
    const start = p;
    const nLocalDecls = u();
    assert.equal(nLocalDecls, 0);
    return bin.subarray(p, start + bodySize);
  }
  throw new Error("no code section");
}

test("no duplicate (prefix, code) pairs and no duplicate names", () => {
  const codes = new Set<string>();
  const names = new Set<string>();
  for (const d of OPS) {
    const key = `${d.prefix}:${d.code}`;
    assert.ok(!codes.has(key), `duplicate opcode ${key} (${d.name})`);
    codes.add(key);
    assert.ok(!names.has(d.name), `duplicate name ${d.name}`);
    names.add(d.name);
  }
});

test("table sizes and prefixes", () => {
  assert.ok(CORE_OPS.every((d) => d.prefix === 0 && d.code < 0x100));
  assert.ok(MISC_OPS.every((d) => d.prefix === 0xfc));
  assert.ok(SIMD_OPS.every((d) => d.prefix === 0xfd));
  assert.ok(ATOMIC_OPS.every((d) => d.prefix === 0xfe));
  assert.ok(GC_OPS.every((d) => d.prefix === 0xfb));
  assert.equal(CORE_OPS.filter((d) => d.code >= 0x45 && d.code <= 0xc4).length, 0xc4 - 0x45 + 1);
  assert.equal(MISC_OPS.length, 22); // 0xfc 0-17, wide-arithmetic 19-22
  assert.equal(SIMD_OPS.filter((d) => d.feature === "simd").length, 236);
  assert.equal(SIMD_OPS.filter((d) => d.feature === "relaxed-simd").length, 20);
  assert.equal(ATOMIC_OPS.length, 4 + 0x4e - 0x10 + 1);
  assert.equal(GC_OPS.length, 31);
});

test("signatures are well formed; memory ops take the address first", () => {
  const tok = /^(i32|i64|f32|f64|v128|a)$/;
  for (const d of OPS) {
    if (d.sig === undefined) continue;
    const m = /^(.*)->(.*)$/.exec(d.sig);
    assert.ok(m, `${d.name}: sig ${d.sig}`);
    const params = m[1]!.trim() ? m[1]!.trim().split(/\s+/) : [];
    const results = m[2]!.trim() ? m[2]!.trim().split(/\s+/) : [];
    for (const t of [...params, ...results]) assert.match(t, tok, `${d.name}: token ${t}`);
    assert.ok(!results.includes("a"), d.name);
    const memory = d.imms.includes(Imm.MemArg);
    assert.equal(params[0] === "a", memory, `${d.name}: address operand`);
    if (memory) {
      assert.ok(d.effects & Eff.TRAP, `${d.name} traps`);
      assert.ok(d.effects & (Eff.READ_MEM | Eff.WRITE_MEM), `${d.name} touches memory`);
    }
  }
});

test("every opcode encodes as recorded (wasm-tools)", async () => {
  const failures: string[] = [];
  for (const d of OPS) {
    const { text, skip, immBytes } = textOf(d);
    const wat = `(module ${PRELUDE}\n  (func (param i32) ${text}))`;
    let bin: Uint8Array;
    try {
      bin = await parse(wat);
    } catch (e) {
      failures.push(`${d.name}: assembler rejected "${text}": ${String(e).slice(0, 200)}`);
      continue;
    }
    const code = firstBodyCode(bin);
    const want = d.prefix === 0 ? [d.code] : [d.prefix, ...uleb(d.code)];
    const got = Array.from(code.subarray(skip, skip + want.length));
    if (got.join() !== want.join()) {
      const hex = (a: number[]) => a.map((b) => b.toString(16).padStart(2, "0")).join(" ");
      failures.push(`${d.name}: table ${hex(want)}, assembled ${hex(got)}`);
    } else if (immBytes !== undefined && code.length !== want.length + immBytes + 1) {
      // generic forms: the immediates recorded must account for every byte up to the final `end`
      failures.push(`${d.name}: immediates take ${code.length - want.length - 1} bytes, table implies ${immBytes}`);
    }
  }
  assert.deepEqual(failures, []);
});

test("fixed signatures type-check (wabt validator)", async () => {
  const wabt = await (await import("wabt")).default();
  const features = {
    exceptions: true, mutable_globals: true, sat_float_to_int: true, sign_extension: true, simd: true,
    threads: true, multi_value: true, tail_call: true, bulk_memory: true, reference_types: true,
    relaxed_simd: true,
  };
  const failures: string[] = [];
  for (const d of OPS) {
    if (d.sig === undefined) continue;
    // wabt has no wide-arithmetic; those signatures are checked by the spec suite's proposal folder
    if (d.feature === "wide-arithmetic") continue;
    const [params, results] = d.sig.split("->").map((s) => (s.trim() ? s.trim().split(/\s+/) : []));
    const ps = params!.map((t) => (t === "a" ? "i32" : t));
    const { text } = textOf(d);
    const gets = ps.map((_, i) => `local.get ${i}`).join(" ");
    const wat = `(module (memory 1 1 shared)
      (func (param ${ps.join(" ")}) (result ${results!.join(" ")}) ${gets} ${text}))`;
    try {
      const m = wabt.parseWat("op.wat", wat, features);
      try {
        (m as unknown as { validate(f: object): void }).validate(features);
      } finally {
        m.destroy();
      }
    } catch (e) {
      failures.push(`${d.name} (${d.sig}): ${String(e).split("\n").slice(0, 3).join(" | ")}`);
    }
  }
  assert.deepEqual(failures, []);
});
