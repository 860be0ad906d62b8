// The validator's typing of bodies (analysis/body-typing.ts): heights, popped
// and pushed types and producers on hand-written modules (MVP, multi-value
// blocks, typed references and GC, unreachable code, exceptions), and a
// randomized comparison with a small reference stack machine.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import { popCount, producerOf, pushCount, stackHeights, typeBody, type BodyTyping } from "../src/analysis/body-typing.js";
import { moduleEnv } from "../src/analysis/module-env.js";
import { BOT } from "../src/analysis/typecontext.js";
import { CodeValidator } from "../src/analysis/validate-code.js";
import { localTypesOf } from "../src/analysis/module-env.js";
import { F64, FUNCREF, HT_EXN, I32, I64, refType } from "../src/ir/types.js";
import type { Module } from "../src/ir/module.js";

async function load(wat: string): Promise<Module> {
  return readModule(await parse(wat), { decodeBodies: true });
}

/** Per instruction: name, height, popped types, producers (instruction indices), pushed types. */
function rows(m: Module, t: BodyTyping, funcIndex: number) {
  const body = m.functions[funcIndex - m.numImportedFuncs]!.body!;
  const out: { op: string; h: number; pops: number[]; from: number[]; pushes: number[] }[] = [];
  for (let i = 0; i < t.count; i++) {
    const pops: number[] = [];
    const from: number[] = [];
    for (let k = 0; k < popCount(t, i); k++) {
      pops.push(t.popType[t.popStart[i]! + k]!);
      from.push(producerOf(t, i, k));
    }
    const pushes = Array.from(t.pushType.subarray(t.pushStart[i]!, t.pushStart[i]! + pushCount(t, i)));
    out.push({ op: OPS[body.ops[i]!]!.name, h: t.height[i]!, pops, from, pushes });
  }
  return out;
}

test("typing: MVP code, heights per frame, producers", async () => {
  const m = await load(`(module (func (param i32 i64) (result i64) (local f64)
    local.get 0           ;; 0
    i64.extend_i32_s      ;; 1
    local.get 1           ;; 2
    i64.add               ;; 3
    block                 ;; 4
      local.get 0         ;; 5
      br_if 0             ;; 6
      f64.const 1         ;; 7
      local.set 2         ;; 8
    end                   ;; 9
    local.tee 1           ;; 10
  ))`);
  const env = moduleEnv(m);
  const t = typeBody(m, 0, env);
  const r = rows(m, t, 0);
  assert.deepEqual(r.map((x) => x.h), [0, 1, 1, 2, 1, 0, 1, 0, 1, 0, 1, 1]);
  assert.deepEqual(r[3], { op: "i64.add", h: 2, pops: [I64, I64], from: [1, 2], pushes: [I64] });
  assert.deepEqual(r[6], { op: "br_if", h: 1, pops: [I32], from: [5], pushes: [] });
  assert.deepEqual(r[8], { op: "local.set", h: 1, pops: [F64], from: [7], pushes: [] });
  assert.deepEqual(r[10], { op: "local.tee", h: 1, pops: [I64], from: [3], pushes: [I64] }, "the block between does not hide the producer");
  assert.deepEqual(r[11], { op: "end", h: 1, pops: [I64], from: [10], pushes: [] }, "the function's end pops its results");
  assert.equal(typeBody(m, 0, env), t, "cached per body and environment");
  assert.deepEqual(Array.from(stackHeights(m, 0)), Array.from(t.height));
});

test("typing: multi-value blocks pass parameters in and results out through their own instructions", async () => {
  const m = await load(`(module
    (type $pair (func (param i32 i64) (result i64 i32)))
    (func (result i64 i32)
      i32.const 1            ;; 0
      i64.const 2            ;; 1
      block (type $pair)     ;; 2
        i64.const 3          ;; 3
        i64.add              ;; 4
        drop                 ;; 5
        drop                 ;; 6
        i64.const 4          ;; 7
        i32.const 5          ;; 8
      end                    ;; 9
      i32.const 0            ;; 10
      if (param i64 i32) (result i64 i32)  ;; 11
      else                   ;; 12
        drop                 ;; 13
        i32.const 6          ;; 14
      end))                  ;; 15, 16`);
  const r = rows(m, typeBody(m, 0), 0);
  assert.deepEqual(r.map((x) => x.h), [0, 1, 2, 2, 3, 2, 1, 0, 1, 2, 2, 3, 2, 2, 1, 2, 2]);
  assert.deepEqual(r[2], { op: "block", h: 2, pops: [I32, I64], from: [0, 1], pushes: [I32, I64] }, "block moves its params into its frame");
  assert.deepEqual(r[4], { op: "i64.add", h: 3, pops: [I64, I64], from: [2, 3], pushes: [I64] }, "a param comes from the block");
  assert.deepEqual(r[9], { op: "end", h: 2, pops: [I64, I32], from: [7, 8], pushes: [I64, I32] });
  assert.deepEqual(r[11], { op: "if", h: 3, pops: [I64, I32, I32], from: [9, 9, 10], pushes: [I64, I32] });
  assert.deepEqual(r[12], { op: "else", h: 2, pops: [I64, I32], from: [11, 11], pushes: [I64, I32] }, "then passes its params through; else pushes them again");
  assert.deepEqual(r[13], { op: "drop", h: 2, pops: [I32], from: [12], pushes: [] });
  assert.deepEqual(r[15], { op: "end", h: 2, pops: [I64, I32], from: [12, 14], pushes: [I64, I32] });
  assert.deepEqual(r[16], { op: "end", h: 2, pops: [I64, I32], from: [15, 15], pushes: [] });
});

test("typing: typed function references and GC keep their exact types", async () => {
  const m = await load(`(module
    (type $t (func (param i32) (result i32)))
    (type $s (struct (field (mut i32)) (field (ref null $t))))
    (elem declare func $f)
    (func $f (type $t) local.get 0)
    (func (result i32)
      i32.const 7            ;; 0
      i32.const 1            ;; 1
      ref.func $f            ;; 2
      struct.new $s          ;; 3
      struct.get $s 1        ;; 4
      call_ref $t))          ;; 5, 6`);
  const r = rows(m, typeBody(m, 1), 1);
  assert.deepEqual(r.map((x) => x.op), ["i32.const", "i32.const", "ref.func", "struct.new", "struct.get", "call_ref", "end"]);
  assert.deepEqual(r[2]!.pushes, [refType(0, false)], "ref.func: (ref $t), not funcref");
  assert.deepEqual(r[3], { op: "struct.new", h: 3, pops: [I32, refType(0, true)], from: [1, 2], pushes: [refType(1, false)] });
  assert.deepEqual(r[4]!.pushes, [refType(0, true)]);
  assert.deepEqual(r[5], { op: "call_ref", h: 2, pops: [I32, refType(0, true)], from: [0, 4], pushes: [I32] });
  // the pushed type is the exact one even where the consumer asks for less
  const m2 = await load(`(module (elem declare func 0) (func (result funcref) ref.func 0))`);
  const r2 = rows(m2, typeBody(m2, 0), 0);
  assert.deepEqual(r2[0]!.pushes, [refType(0, false)]);
  assert.deepEqual(r2[1], { op: "end", h: 1, pops: [FUNCREF], from: [0], pushes: [] }, "the pop says what is required");
});

test("typing: unreachable code has height -1 and operands with no producer", async () => {
  const m = await load(`(module (func (result i32)
    block (result i32)     ;; 0
      i32.const 1          ;; 1
      br 0                 ;; 2
      i32.add              ;; 3
      drop                 ;; 4
      i32.const 2          ;; 5
    end                    ;; 6
    i32.eqz                ;; 7
    unreachable            ;; 8
    i64.eqz                ;; 9
  ))`);
  const r = rows(m, typeBody(m, 0), 0);
  assert.deepEqual(r.map((x) => x.h), [0, 0, 1, -1, -1, -1, -1, 1, 1, -1, -1]);
  assert.deepEqual(r[2], { op: "br", h: 1, pops: [I32], from: [1], pushes: [] });
  assert.deepEqual(r[3], { op: "i32.add", h: -1, pops: [I32, I32], from: [-1, -1], pushes: [I32] });
  assert.deepEqual(r[4], { op: "drop", h: -1, pops: [I32], from: [3], pushes: [] }, "pushed in unreachable code, still a value");
  assert.deepEqual(r[6], { op: "end", h: -1, pops: [I32], from: [5], pushes: [I32] });
  assert.deepEqual(r[9], { op: "i64.eqz", h: -1, pops: [I64], from: [-1], pushes: [I32] });
  const m2 = await load(`(module (func unreachable drop))`);
  assert.deepEqual(rows(m2, typeBody(m2, 0), 0)[1], { op: "drop", h: -1, pops: [BOT], from: [-1], pushes: [] }, "a value of no known type");
});

test("typing: exceptions, legacy and try_table", async () => {
  const m = await load(`(module
    (tag $e (param i32 i64))
    (func (result i32)
      try (result i32)           ;; 0
        i32.const 1              ;; 1
        i64.const 2              ;; 2
        throw $e                 ;; 3
      catch $e                   ;; 4
        drop                     ;; 5
      end                        ;; 6
      block (result i32 i64 exnref)  ;; 7
        try_table (catch_ref $e 0)   ;; 8
          i32.const 3            ;; 9
          i64.const 4            ;; 10
          throw $e               ;; 11
        end                      ;; 12
        unreachable              ;; 13
      end                        ;; 14
      throw_ref                  ;; 15
    ))`);
  const r = rows(m, typeBody(m, 0), 0);
  assert.deepEqual(r[3], { op: "throw", h: 2, pops: [I32, I64], from: [1, 2], pushes: [] });
  assert.deepEqual(r[4], { op: "catch", h: -1, pops: [I32], from: [-1], pushes: [I32, I64] }, "catch pushes the tag's values");
  assert.deepEqual(r[5], { op: "drop", h: 2, pops: [I64], from: [4], pushes: [] });
  assert.deepEqual(r[6], { op: "end", h: 1, pops: [I32], from: [4], pushes: [I32] });
  assert.deepEqual(r[15], { op: "throw_ref", h: 4, pops: [refType(HT_EXN, true)], from: [14], pushes: [] });
  assert.deepEqual(r[16]!.from, [-1], "after throw_ref: unreachable");
});

test("typing: open mode types a sequence; its inputs, refusals and GC", async () => {
  const m = await load(`(module
    (type $s (struct (field i32)))
    (func (param (ref null $s)) (result i32) (local i32)
      local.get 0            ;; 0
      struct.get $s 0        ;; 1
      i32.const 1            ;; 2
      i32.add                ;; 3
      local.get 0            ;; 4
      ref.is_null            ;; 5
      i32.add                ;; 6
    ))`);
  const env = moduleEnv(m);
  const f = m.functions[0]!;
  const lt = localTypesOf(env, f.typeIndex, f.locals);
  const typer = new CodeValidator(env);
  const sig = (from: number, to: number) => {
    typer.beginSequence(f.body!, lt, [I32]);
    for (let i = from; i < to; i++) if (!typer.stepSequence(i)) return null;
    const results: number[] = [];
    for (let k = 0; k < typer.stackSize; k++) results.push(typer.stackType(k));
    return { params: typer.inputsRev.slice().reverse(), results };
  };
  assert.deepEqual(sig(1, 4), { params: [refType(0, true)], results: [I32] }, "an input of the type struct.get requires");
  assert.deepEqual(sig(3, 7), { params: [I32, I32], results: [I32] });
  assert.equal(sig(5, 6), null, "ref.is_null of an input: no known type");
  assert.deepEqual(sig(4, 6), { params: [], results: [I32] });
});

// ---- randomized: straight-line code with blocks and unreachable tails against a reference stack machine ----

type Row = { h: number; pops: number[]; from: number[]; pushes: number[] };

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const NAME: Record<number, string> = { [I32]: "i32", [I64]: "i64", [F64]: "f64" };
const LOCALS = [I32, I64, F64, I32]; // param i32, locals i64 f64 i32

/** A random valid body (the text) and the typing a reference stack machine gives it. */
function randomBody(rand: () => number): { text: string; rows: Row[] } {
  const text: string[] = [];
  const rows: Row[] = [];
  // frames: values (type, producer) and whether unreachable; result type of each block
  const frames: { vals: { t: number; from: number }[]; unreach: boolean; result: number }[] = [{ vals: [], unreach: false, result: I32 }];
  const top = () => frames[frames.length - 1]!;
  const emit = (ins: string, pops: number[], pushes: number[]): void => {
    const fr = top();
    const row: Row = { h: fr.unreach ? -1 : fr.vals.length, pops, from: [], pushes };
    const from: number[] = [];
    for (let k = pops.length - 1; k >= 0; k--) {
      const v = fr.vals.pop();
      from.unshift(v ? v.from : -1);
      if (v && pops[k] === BOT) pops[k] = v.t; // drop, select: the operand's own type
    }
    row.from = from;
    const i = rows.length;
    rows.push(row);
    text.push(ins);
    for (const t of pushes) fr.vals.push({ t, from: i });
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
  const has = (...ts: number[]) => {
    const v = top().vals;
    if (top().unreach && v.length < ts.length) return v.every((x, k) => x.t === ts[ts.length - v.length + k]);
    if (v.length < ts.length) return false;
    return ts.every((t, k) => v[v.length - ts.length + k]!.t === t);
  };
  const constOf = (t: number) => `${NAME[t]}.const ${Math.floor(rand() * 100)}`;
  const closeFrame = (): void => {
    const fr = top();
    while (fr.vals.length > 0) emit("drop", [BOT], []);
    emit(constOf(fr.result), [], [fr.result]);
    const r = fr.result;
    emit("end", [r], []);
    frames.pop();
    if (frames.length === 0) return void text.pop(); // the function's end is implicit in the text
    // the block's result is pushed into the enclosing frame by its end
    rows[rows.length - 1]!.pushes = [r];
    top().vals.push({ t: r, from: rows.length - 1 });
  };
  const steps = 5 + Math.floor(rand() * 40);
  for (let s = 0; s < steps; s++) {
    const choice = rand();
    if (choice < 0.2) {
      const t = pick([I32, I64, F64]);
      emit(constOf(t), [], [t]);
    } else if (choice < 0.3) {
      const x = Math.floor(rand() * LOCALS.length);
      emit(`local.get ${x}`, [], [LOCALS[x]!]);
    } else if (choice < 0.38) {
      const x = Math.floor(rand() * LOCALS.length);
      const tee = rand() < 0.5;
      if (has(LOCALS[x]!)) emit(`local.${tee ? "tee" : "set"} ${x}`, [LOCALS[x]!], tee ? [LOCALS[x]!] : []);
    } else if (choice < 0.46) {
      if (has(I32, I32)) emit("i32.add", [I32, I32], [I32]);
      else if (has(I64, I64)) emit("i64.mul", [I64, I64], [I64]);
    } else if (choice < 0.52) {
      if (has(I64)) emit("i32.wrap_i64", [I64], [I32]);
      else if (has(I32)) emit("f64.convert_i32_s", [I32], [F64]);
    } else if (choice < 0.58) {
      if (top().vals.length > 0 || top().unreach) emit("drop", [BOT], []);
    } else if (choice < 0.64) {
      const v = top().vals;
      if (v.length >= 3 && v[v.length - 1]!.t === I32 && v[v.length - 2]!.t === v[v.length - 3]!.t) {
        const t = v[v.length - 2]!.t;
        emit("select", [BOT, BOT, I32], [t]);
      }
    } else if (choice < 0.74 && frames.length < 5) {
      const t = pick([I32, I64, F64]);
      emit(`block (result ${NAME[t]})`, [], []);
      frames.push({ vals: [], unreach: false, result: t });
    } else if (choice < 0.82 && frames.length > 1) {
      closeFrame();
    } else if (choice < 0.86 && frames.length > 1 && has(I32)) {
      // br_if to the enclosing block: needs its result under the condition
      const fr = top();
      const v = fr.vals;
      if (v.length >= 2 && v[v.length - 2]!.t === fr.result) emit("br_if 0", [fr.result, I32], [fr.result]);
    } else if (choice < 0.89) {
      emit("unreachable", [], []);
      top().vals = [];
      top().unreach = true;
    }
  }
  while (frames.length > 0) closeFrame();
  return { text: text.join("\n"), rows };
}

test("typing: random bodies agree with a reference stack machine (fixed seed)", async () => {
  const rand = rng(0x5eed);
  for (let n = 0; n < 60; n++) {
    const { text, rows: want } = randomBody(rand);
    const m = await load(`(module (func (param i32) (result i32) (local i64 f64 i32)\n${text}))`);
    const t = typeBody(m, 0);
    const got = rows(m, t, 0).map(({ h, pops, from, pushes }) => ({ h, pops, from, pushes }));
    assert.deepEqual(got, want, `body ${n}:\n${text}`);
  }
});
