// analysis/sizes.ts against the real writers: instruction, range and body
// sizes against binary/code-writer.ts on random bodies that use every op of
// the table, local declarations and function entries against
// binary/writer.ts, the LEB128 size helpers against ByteWriter.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ByteWriter, s33Size, s64WordsSize, u64WordsSize } from "../src/binary/bytes.js";
import { encodeInstructions } from "../src/binary/code-writer.js";
import { OPS, idOf } from "../src/binary/opcodes/index.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeFuncBody, writeModule } from "../src/binary/writer.js";
import { BodyBuilder, type Body } from "../src/ir/body.js";
import type { Func } from "../src/ir/module.js";
import { I32, I64, FUNCREF, refType } from "../src/ir/types.js";
import { codeSize, funcEntrySize, funcEntrySizeOf, functionCost, instrSize, localDeclsSize, rangeSize, valTypeSize } from "../src/analysis/sizes.js";
import { addInstr, int, rng, valType, word } from "./random-body.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function encodedLength(body: Body, from: number, to: number): number {
  const w = new ByteWriter(64);
  encodeInstructions(w, body, from, to);
  return w.len;
}

function one(name: string, words: number[]): Body {
  const b = new BodyBuilder();
  addInstr(b, idOf(name), rng(0), words);
  return b.finish();
}

test("hand-written instruction sizes", () => {
  const cases: [string, number[], number][] = [
    ["nop", [], 1],
    ["i32.const", [63], 2],
    ["i32.const", [64], 3],
    ["i32.const", [-64], 2],
    ["i32.const", [-65], 3],
    ["i64.const", [0, 0x80000000 | 0], 11], // -2^63: 10 LEB bytes
    ["i64.const", [-1, -1], 2],
    ["f64.const", [0, 0], 9],
    ["local.get", [128], 3],
    ["i32.load", [2, 0, 16, 0], 3],
    ["i32.load", [2, 1, 16, 0], 4], // memory index 1: flag bit in the alignment, then the index
    ["i32.load", [2, 0, 0, 1], 7], // offset 2^32
    ["memory.copy", [0, 0], 4],
    ["v128.const", [1, 2, 3, 4], 18],
    ["i8x16.shuffle", new Array(16).fill(0), 18],
    ["i32x4.add", [], 3], // 0xfd, sub-opcode 0xae in two LEB bytes
    ["br_table", [2, 0, 1, 200], 6],
    ["block", [0x40], 2],
    ["block", [-(300 + 1)], 3], // type index 300 as s33
    ["select_t", [1, FUNCREF], 3],
    ["ref.null", [1000], 3],
  ];
  for (const [name, words, size] of cases) {
    const b = one(name, words);
    assert.equal(instrSize(b, 0), size, `${name} ${words.join(" ")}`);
    assert.equal(encodedLength(b, 0, 1), size, `writer: ${name} ${words.join(" ")}`);
  }
});

test("random bodies: every instruction's size and every range's sum are what the writer produces (fixed seed)", () => {
  const r = rng(1414);
  for (let round = 0; round < 300; round++) {
    const n = 1 + int(r, 60);
    const b = new BodyBuilder(n);
    for (let i = 0; i < n; i++) addInstr(b, int(r, OPS.length), r);
    const body = b.finish();
    let sum = 0;
    for (let i = 0; i < body.count; i++) {
      const s = instrSize(body, i);
      assert.equal(s, encodedLength(body, i, i + 1), `${OPS[body.ops[i]!]!.name} (round ${round})`);
      sum += s;
    }
    assert.equal(sum, encodedLength(body, 0, body.count));
    assert.equal(codeSize(body), sum);
    const from = int(r, n);
    const to = from + int(r, n - from + 1);
    assert.equal(rangeSize(body, from, to), encodedLength(body, from, to));
  }
  // and every op at least once
  for (let op = 0; op < OPS.length; op++) {
    const b = new BodyBuilder();
    addInstr(b, op, r);
    const body = b.finish();
    assert.equal(instrSize(body, 0), encodedLength(body, 0, 1), OPS[op]!.name);
  }
});

test("local declarations and function entries match writeFuncBody, merged groups and empty ones included", () => {
  const r = rng(7);
  for (let round = 0; round < 200; round++) {
    const locals: Func["locals"] = [];
    const groups = int(r, 6);
    for (let k = 0; k < groups; k++) {
      const type = int(r, 3) === 0 && locals.length ? locals[locals.length - 1]!.type : int(r, 2) ? [I32, I64][int(r, 2)]! : valType(r);
      locals.push({ count: [0, 1, 2, 127, 128, 70000][int(r, 6)]!, type });
    }
    const b = new BodyBuilder();
    for (let i = 0; i < 5; i++) addInstr(b, int(r, OPS.length), r);
    addInstr(b, idOf("end"), r);
    const body = b.finish();
    const f: Func = { typeIndex: 0, locals, localCount: 0, raw: null, rawOffset: 0, codeOffset: 0, body, dirty: true, origin: -1 };
    const w = new ByteWriter(64);
    writeFuncBody(w, f);
    assert.equal(funcEntrySize(locals, body), w.len, JSON.stringify(locals));
    assert.equal(funcEntrySizeOf(f), w.len);
    assert.equal(localDeclsSize(locals), w.len - codeSize(body));
  }
});

test("a fixture's functions: untouched entries are their original bytes, re-encoded ones what the writer writes", () => {
  const m = readModule(new Uint8Array(readFileSync(join(ROOT, "fixtures/wasm/json-Oz-wasmopt.wasm"))));
  decodeAllBodies(m);
  let before = 0;
  for (const f of m.functions) {
    assert.equal(funcEntrySizeOf(f), f.raw!.length);
    before += functionCost(f);
  }
  for (const f of m.functions) f.dirty = true;
  const w = new ByteWriter(1024);
  let after = 0;
  for (const f of m.functions) {
    w.len = 0;
    writeFuncBody(w, f);
    assert.equal(funcEntrySizeOf(f), w.len);
    after += functionCost(f);
  }
  // wasm-opt writes minimal LEBs: re-encoding keeps every function's size
  assert.equal(after, before);
  assert.ok(writeModule(m).length > 0);
});

test("LEB128 size helpers agree with ByteWriter", () => {
  const r = rng(99);
  const w = new ByteWriter(16);
  for (let k = 0; k < 5000; k++) {
    const lo = word(r);
    const hi = int(r, 3) === 0 ? lo >> 31 : word(r);
    w.len = 0;
    w.s64Words(lo, hi);
    assert.equal(s64WordsSize(lo, hi), w.len, `s64 ${hi} ${lo}`);
    w.len = 0;
    w.u64Words(lo, hi);
    assert.equal(u64WordsSize(lo, hi), w.len, `u64 ${hi} ${lo}`);
    const v = int(r, 2) ? word(r) : (r() * 2 - 1) * 4294967296;
    const v33 = Math.max(-4294967296, Math.min(4294967295, Math.trunc(v)));
    w.len = 0;
    w.s33(v33);
    assert.equal(s33Size(v33), w.len, `s33 ${v33}`);
  }
  assert.equal(valTypeSize(refType(5000, false)), 3);
  assert.equal(valTypeSize(FUNCREF), 1);
});
