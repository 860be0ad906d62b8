// Randomized check of slice identification: random functions (straight-line
// statements, ifs, ifs with a result, br_ifs out of blocks, counted loops,
// loads, stores, calls, mutable and immutable globals, safe and unsafe
// divisions) are sliced at every criterion, through ifs (stage b: γs as
// selects and as ifs with a result); each
// slice's canonical function, called with the stop values its criterion saw,
// must return the value Node's WebAssembly computed at the criterion. The
// parent is instrumented after each criterion to record (in memory) the
// value and, read from their locals, the stop values (the last execution).

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { idOf } from "../src/binary/opcodes/index.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { BodyBuilder } from "../src/ir/body.js";
import type { Module } from "../src/ir/module.js";
import { F32, F64, I32, I64, type ValType } from "../src/ir/types.js";
import { canonicalSlice } from "../src/passes/slices/canon.js";
import { addSliceFunction } from "../src/passes/slices/extract.js";
import { FunctionSlicer, type Slice } from "../src/passes/slices/identify.js";
import { rng } from "./control-gen.js";

type T = "i32" | "i64" | "f64";
const LOCALS: T[] = ["i32", "i32", "i64", "f64", "i32", "i64", "f64", "i32"];
const PARAMS: T[] = ["i32", "i32", "i64", "f64"];

/** A random function $f over PARAMS with LOCALS (and loop counters), returning i32. */
function randomFunc(r: () => number): string {
  const pick = <X>(xs: readonly X[]): X => xs[Math.floor(r() * xs.length)]!;
  const all = [...PARAMS, ...LOCALS];
  const ofType = (t: T): number[] => all.flatMap((u, i) => (u === t ? [i] : []));
  let loops = 0;
  const counter = (k: number) => PARAMS.length + LOCALS.length + k;
  const konst = (t: T): string => {
    const c = pick([0, 1, 2, 3, 7, -1, 255, 1000, -77, 123456]);
    return t === "f64" ? `(f64.const ${c / 4})` : `(${t}.const ${c})`;
  };
  const expr = (t: T, d: number): string => {
    if (d <= 0 || r() < 0.25) return r() < 0.6 ? `(local.get ${pick(ofType(t))})` : konst(t);
    const e = (u: T) => expr(u, d - 1);
    switch (t) {
      case "i32":
        switch (Math.floor(r() * 13)) {
          case 0: return `(i32.load (i32.and ${e("i32")} (i32.const 252)))`;
          case 1: return `(global.get ${pick(["$gm", "$gk"])})`;
          case 2: return `(call $h ${e("i32")})`;
          case 3: return `(i32.${pick(["div_u", "rem_u", "div_s", "rem_s"])} ${e("i32")} (i32.const ${pick([3, 7, -5, 16])}))`;
          case 4: return `(i32.div_u ${e("i32")} (i32.or ${e("i32")} (i32.const 1)))`;
          case 5: return `(select ${e("i32")} ${e("i32")} ${e("i32")})`;
          case 6: return `(i32.wrap_i64 ${e("i64")})`;
          case 7: return `(f64.${pick(["lt", "ge", "eq"])} ${e("f64")} ${e("f64")})`;
          case 8: return `(i32.trunc_sat_f64_s ${e("f64")})`;
          case 9: return `(if (result i32) ${e("i32")} (then ${e("i32")}) (else ${e("i32")}))`;
          default: return `(i32.${pick(["add", "sub", "mul", "and", "or", "xor", "shl", "shr_s", "shr_u", "rotl", "lt_s", "eq", "ne"])} ${e("i32")} ${e("i32")})`;
        }
      case "i64":
        switch (Math.floor(r() * 6)) {
          case 0: return `(i64.extend_i32_${pick(["s", "u"])} ${e("i32")})`;
          case 1: return `(i64.div_u ${e("i64")} (i64.const ${pick([3, 10])}))`;
          case 2: return `(i64.load (i32.and ${e("i32")} (i32.const 248)))`;
          default: return `(i64.${pick(["add", "sub", "mul", "and", "xor", "shl", "shr_u", "rotr"])} ${e("i64")} ${e("i64")})`;
        }
      case "f64":
        switch (Math.floor(r() * 6)) {
          case 0: return `(f64.convert_i32_s ${e("i32")})`;
          case 4: return `(if (result f64) ${e("i32")} (then ${e("f64")}) (else ${e("f64")}))`;
          case 1: return `(f64.${pick(["sqrt", "floor", "neg", "abs"])} ${e("f64")})`;
          default: return `(f64.${pick(["add", "sub", "mul", "div", "min", "max"])} ${e("f64")} ${e("f64")})`;
        }
    }
  };
  const stmts = (n: number, d: number): string => {
    const out: string[] = [];
    for (let k = 0; k < n; k++) {
      const x = Math.floor(r() * all.length);
      switch (Math.floor(r() * (d > 0 ? 10 : 6))) {
        case 0: out.push(`(i32.store (i32.and ${expr("i32", 2)} (i32.const 252)) ${expr("i32", 3)})`); break;
        case 1: out.push(`(global.set $gm ${expr("i32", 2)})`); break;
        case 2: out.push(`(drop ${expr(pick(["i32", "i64", "f64"]), 3)})`); break;
        case 6: out.push(`(if ${expr("i32", 2)} (then ${stmts(2, d - 1)}) (else ${stmts(2, d - 1)}))`); break;
        case 9: out.push(`(block (br_if 0 ${expr("i32", 2)}) ${stmts(2, d - 1)})`); break;
        case 7: case 8: {
          const c = counter(loops++);
          out.push(`(local.set ${c} (i32.const 0)) (loop $L${c} ${stmts(3, d - 1)} (br_if $L${c} (i32.lt_u (local.tee ${c} (i32.add (local.get ${c}) (i32.const 1))) (i32.const ${1 + Math.floor(r() * 4)}))))`);
          break;
        }
        default: out.push(`(local.set ${x} ${expr(all[x]!, 4)})`);
      }
    }
    return out.join("\n");
  };
  const body = stmts(6 + Math.floor(r() * 6), 2);
  return `(module (memory (export "mem") 1)
    (global $gm (mut i32) (i32.const 5)) (global $gk i32 (i32.const 11))
    (func $h (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
    (func $f (export "f") (param ${PARAMS.join(" ")}) (result i32) (local ${LOCALS.join(" ")}) (local ${"i32 ".repeat(loops)})
      ${body}
      ${expr("i32", 3)}))`;
}

const LOCAL_SET = idOf("local.set");
const LOCAL_GET = idOf("local.get");
const I32_CONST = idOf("i32.const");
const IF = idOf("if");
const STORE: Record<number, number> = { [I32]: idOf("i32.store"), [I64]: idOf("i64.store"), [F32]: idOf("f32.store"), [F64]: idOf("f64.store") };
const BASE = 4096;
const SLOT = 8;

/** Slot layout per slice: flag, value, then one slot per stop. */
interface Probe {
  slice: Slice;
  at: number;
  name: string;
}

/** m with $f (defined function 1) recording, after every probed criterion, the value and the stop values in memory; and each slice's function exported. */
function instrument(m: Module, fs: FunctionSlicer, slices: Slice[]): { bytes: Uint8Array; probes: Probe[] } {
  const f = m.functions[1]!;
  const body = fs.body;
  const nLocals = fs.localTypes.length;
  const types = [I32, I64, F32, F64];
  const tmp = (t: ValType) => nLocals + types.indexOf(t);
  const probes: Probe[] = [];
  let at = BASE;
  const byCriterion = new Map<number, Probe>();
  for (const s of slices) {
    const p: Probe = { slice: s, at, name: `s${probes.length}` };
    probes.push(p);
    byCriterion.set(s.criterion, p);
    at += SLOT * (2 + s.stops.length);
  }
  const b = new BodyBuilder(body.count * 2);
  const word1 = (op: number, w: number) => {
    b.begin(op);
    b.word(w);
  };
  const store = (t: ValType, addr: number, push: () => void) => {
    word1(I32_CONST, addr);
    push();
    b.begin(STORE[t]!);
    b.word(t === I32 || t === F32 ? 2 : 3);
    b.word(0);
    b.word(0);
    b.word(0);
  };
  for (let i = 0; i < body.count; i++) {
    b.begin(body.ops[i]!);
    for (let q = body.immStart[i]!; q < body.immStart[i + 1]!; q++) b.word(body.imm[q]!);
    const p = byCriterion.get(i);
    if (!p) continue;
    const t = p.slice.nodes[p.slice.nodes.length - 1]!.type;
    word1(LOCAL_SET, tmp(t));
    store(I32, p.at, () => word1(I32_CONST, 1));
    store(t, p.at + SLOT, () => word1(LOCAL_GET, tmp(t)));
    p.slice.stops.forEach((st, k) => store(st.type, p.at + SLOT * (2 + k), () => word1(LOCAL_GET, st.local)));
    word1(LOCAL_GET, tmp(t));
  }
  f.body = b.finish();
  f.locals = [...f.locals, ...types.map((type) => ({ count: 1, type }))];
  f.localCount += types.length;
  f.dirty = true;
  for (const p of probes) {
    const c = canonicalSlice(body, p.slice);
    // the function's parameters are the stops in canonical order: remember which stop each is
    (p as Probe & { order: number[] }).order = c.paramStops;
    (p as Probe & { hasIf: boolean }).hasIf = c.body.ops.includes(IF);
    const index = addSliceFunction(m, c, true);
    m.exports.push({ name: p.name, kind: "func", index });
  }
  return { bytes: writeModule(m), probes };
}

function readValue(view: DataView, addr: number, t: ValType): number | bigint {
  switch (t) {
    case I32: return view.getInt32(addr, true);
    case I64: return view.getBigInt64(addr, true);
    case F32: return view.getFloat32(addr, true);
    default: return view.getFloat64(addr, true);
  }
}

const same = (a: unknown, b: unknown): boolean => a === b || (typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b)) || Object.is(a, b);

test("randomized: every slice's function, given the stop values, returns the value computed at its criterion", async () => {
  const r = rng(0x51ce5);
  let checked = 0;
  let sliced = 0;
  let criteria = 0;
  /** Checked slices through a φ's γ, through an if's value, and those whose function has an if. */
  let viaPhi = 0, viaIf = 0, asIf = 0;
  for (let round = 0; round < 60; round++) {
    const wat = randomFunc(r);
    const m = readModule(await parse(wat));
    decodeAllBodies(m);
    const fs = new FunctionSlicer(m, 1);
    const slices: Slice[] = [];
    for (const c of fs.criteria()) {
      criteria++;
      const s = fs.slice(c);
      if (!("reason" in s)) slices.push(s);
    }
    sliced += slices.length;
    if (slices.length === 0) continue;
    const { bytes, probes } = instrument(m, fs, slices);
    const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>));
    const ex = inst.exports as Record<string, (...a: unknown[]) => unknown>;
    const mem = ex.mem as unknown as WebAssembly.Memory;
    for (let run = 0; run < 4; run++) {
      new Uint8Array(mem.buffer).fill(0);
      const args = [Math.floor(r() * 2000) - 1000, Math.floor(r() * 64), BigInt(Math.floor(r() * 1e9)), r() * 100 - 50];
      try {
        ex.f!(...args);
      } catch {
        continue; // a trap (an unsafe division the slices refused): nothing to compare
      }
      const view = new DataView(mem.buffer);
      for (const p of probes) {
        if (view.getInt32(p.at, true) !== 1) continue;
        const s = p.slice;
        const t = s.nodes[s.nodes.length - 1]!.type;
        const want = readValue(view, p.at + SLOT, t);
        const order = (p as Probe & { order: number[] }).order;
        const stopArgs = order.map((k) => readValue(view, p.at + SLOT * (2 + k), s.stops[k]!.type));
        const got = ex[p.name]!(...stopArgs);
        assert.ok(same(got, want), `round ${round}, criterion ${s.criterion}: slice gives ${got}, the function computed ${want}\n${wat}`);
        checked++;
        if (s.phis.length > 0) viaPhi++;
        if (s.constructs.length > 0) viaIf++;
        if ((p as Probe & { hasIf: boolean }).hasIf) asIf++;
      }
    }
  }
  // the generator must exercise the slicer: many slices, most of them checked on a run
  assert.ok(sliced > 200, `only ${sliced} slices of ${criteria} criteria`);
  assert.ok(checked > 300, `only ${checked} checks`);
  // stage b must be exercised too (seed 0x51ce5: 228, 591 and 64)
  assert.ok(viaPhi > 50 && viaIf > 100 && asIf > 20, `through a φ's γ ${viaPhi}, through an if's value ${viaIf}, with an if in the function ${asIf}`);
});
