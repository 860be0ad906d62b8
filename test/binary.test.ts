// Reader and writer: LEB128 edge cases, section round trips, lazy bodies,
// forced re-encoding, and malformed-input rejection with offsets.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { ByteReader, ByteWriter, s32Size, u32Size } from "../src/binary/bytes.js";
import { WasmDecodeError } from "../src/binary/errors.js";
import { decodeAllBodies, decodeFunctionBody, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { printBody } from "../src/binary/printer.js";
import { redirectFunctions } from "../src/ir/renumber.js";

test("u32/s32 LEB128 round trip and minimal sizes", () => {
  const u = [0, 1, 63, 64, 127, 128, 16383, 16384, 0x1fffff, 0x200000, 0xfffffff, 0x10000000, 0xffffffff];
  const s = [0, 1, -1, 63, -64, 64, -65, 8191, -8192, 8192, 0x7fffffff, -0x80000000, 134217727, -134217728];
  for (const v of u) {
    const w = new ByteWriter(1);
    w.u32(v);
    assert.equal(w.len, u32Size(v), `size of ${v}`);
    assert.equal(new ByteReader(w.finish()).u32(), v >>> 0);
  }
  for (const v of s) {
    const w = new ByteWriter(1);
    w.s32(v);
    assert.equal(w.len, s32Size(v), `size of ${v}`);
    assert.equal(new ByteReader(w.finish()).s32(), v);
  }
});

test("s64/u64 LEB128 round trip through words", () => {
  const vals = [0n, 1n, -1n, 63n, -64n, 64n, 2n ** 31n, -(2n ** 31n), 2n ** 32n, 2n ** 62n, 2n ** 63n - 1n, -(2n ** 63n), 0x123456789abcdefn];
  for (const v of vals) {
    const w = new ByteWriter(1);
    w.s64(v);
    assert.equal(new ByteReader(w.finish()).s64(), v, `s64 ${v}`);
    const u = BigInt.asUintN(64, v);
    const w2 = new ByteWriter(1);
    w2.u64(u);
    assert.equal(new ByteReader(w2.finish()).u64(), u, `u64 ${u}`);
  }
  // s33: block types / heap types
  for (const v of [0, 5, -1, -64, -16, 0xffffffff, -0x100000000]) {
    const w = new ByteWriter(1);
    w.s33(v);
    assert.equal(new ByteReader(w.finish()).s33(), v, `s33 ${v}`);
  }
});

test("LEB128 overflow and overlong encodings are rejected", () => {
  assert.throws(() => new ByteReader(new Uint8Array([0x80, 0x80, 0x80, 0x80, 0x80, 0x00])).u32(), /too long/);
  assert.throws(() => new ByteReader(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x1f])).u32(), /too large/);
  assert.throws(() => new ByteReader(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x4f])).s32(), /too large/);
  assert.throws(() => new ByteReader(new Uint8Array([0x80, 0x80])).u32(), /unexpected end/);
  // padded but in range is fine
  assert.equal(new ByteReader(new Uint8Array([0x82, 0x80, 0x80, 0x80, 0x00])).u32(), 2);
});

const SAMPLE = `(module
  (type $pair (func (param i32 i64) (result i64)))
  (rec (type $s (sub (struct (field (mut i32)) (field (ref null $a))))) (type $a (array (mut i8))))
  (import "env" "f" (func $imp (param i32)))
  (import "env" "mem" (memory 1 2))
  (global $g (mut i32) (i32.const 7))
  (table $t 4 funcref)
  (tag $e (param i32))
  (func $add (type $pair) (local f32 f32 v128)
    local.get 0 i64.extend_i32_s local.get 1 i64.add)
  (func $ctl (export "ctl") (param i32) (result i32)
    (block $b (result i32)
      (loop $l
        local.get 0 br_if $l)
      (i32.const -12345)
      (br_table $b $b (i32.const 0)))
    (if (result i32) (local.get 0) (then (i32.const 1)) (else (i32.const 2)))
    i32.add
    (try_table (catch $e 0) (catch_all 0))
    f64.const -0.0 drop
    f32.const nan:0x200000 drop
    v128.const i32x4 1 2 3 4 i8x16.shuffle 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 31 drop
    i32.const 0 i64.load offset=4294967296 align=4 drop
    ref.null $s drop)
  (elem (i32.const 0) $add $ctl)
  (elem declare func $add)
  (data (i32.const 16) "hello")
  (@custom "my-section" (after code) "payload"))`;

test("reads every section and round-trips identically", async () => {
  const bytes = await parse(SAMPLE.replace("i32.const 0 i64.load offset=4294967296 align=4 drop", ""));
  const m = readModule(bytes);
  assert.equal(m.types.length, 5);
  assert.equal(m.recGroups.length, 4);
  assert.equal(m.imports.length, 2);
  assert.equal(m.numImportedFuncs, 1);
  assert.equal(m.functions.length, 2);
  assert.equal(m.functions[0]!.localCount, 3);
  assert.equal(m.tags.length, 1);
  assert.equal(m.elements.length, 2);
  assert.equal(m.data.length, 1);
  assert.equal(m.exports[0]!.name, "ctl");
  assert.ok(m.customs.some((c) => c.name === "my-section"));
  assert.equal(m.functions[0]!.body, null, "bodies are decoded lazily");
  const out = writeModule(m);
  assert.deepEqual(out, bytes);
});

test("forced re-encoding reproduces the decoded instructions", async () => {
  const bytes = await parse(SAMPLE.replace("i32.const 0 i64.load offset=4294967296 align=4 drop", "i32.const 0 i64.load offset=7 align=4 drop"));
  const m = readModule(bytes);
  decodeAllBodies(m);
  const text = m.functions.map((f) => printBody(f.body!));
  assert.match(text[1]!, /i32\.const -12345/);
  assert.match(text[1]!, /br_table 0 0\n/);
  assert.match(text[1]!, /i64\.load offset=7 align=4/);
  const out = writeModule(m, { reencodeAll: true });
  assert.deepEqual(out, bytes, "jco writes minimal encodings, so re-encoding is byte-identical");
  const m2 = readModule(out, { decodeBodies: true });
  assert.deepEqual(m2.functions.map((f) => printBody(f.body!)), text);
});

test("memory64 offsets above 4 GiB survive", async () => {
  const bytes = await parse(`(module (memory i64 1) (func (result i64) i64.const 0 i64.load offset=4294967300))`);
  const m = readModule(bytes, { decodeBodies: true });
  assert.match(printBody(m.functions[0]!.body!), /offset=4294967300/);
  assert.deepEqual(writeModule(m, { reencodeAll: true }), bytes);
});

test("malformed inputs are rejected with an offset", async () => {
  const good = await parse(`(module (func (result i32) i32.const 1))`);
  const cases: [string, Uint8Array, RegExp][] = [
    ["empty", new Uint8Array(0), /magic header/],
    ["bad magic", new Uint8Array([1, 2, 3, 4, 1, 0, 0, 0]), /magic header/],
    ["bad version", new Uint8Array([0, 0x61, 0x73, 0x6d, 2, 0, 0, 0]), /unknown binary version/],
    ["truncated", good.subarray(0, good.length - 3), /unexpected end|section size/],
    ["huge type count", new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 0xff, 0xff, 0xff, 0xff, 0x0f]), /length out of bounds/],
    ["section id", new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 14, 0]), /malformed section id/],
  ];
  for (const [name, bytes, re] of cases) {
    assert.throws(() => readModule(bytes, { decodeBodies: true }), (e: unknown) => {
      assert.ok(e instanceof WasmDecodeError, name);
      assert.match(e.message, re, name);
      assert.match(e.message, /offset 0x[0-9a-f]+/, name);
      return true;
    });
  }
  // unknown opcode inside a body: reported lazily, at the instruction
  const bad = good.slice();
  const at = bad.lastIndexOf(0x41); // i32.const
  bad[at] = 0xe0;
  const m = readModule(bad);
  assert.throws(() => decodeFunctionBody(m, m.functions[0]!), /illegal opcode 0xe0 at offset 0x/);
});

test("else outside if and delegate outside try are malformed", () => {
  // (func) body: else end
  const mod = (body: number[]) =>
    new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 3, 2, 1, 0, 10, body.length + 3, 1, body.length + 1, 0, ...body]);
  assert.throws(() => readModule(mod([0x05, 0x0b]), { decodeBodies: true }), /else without matching if/);
  assert.throws(() => readModule(mod([0x02, 0x40, 0x18, 0x00, 0x0b]), { decodeBodies: true }), /delegate without matching try/);
  // i32.const 0, if, else, end, end: well-formed
  const ok = readModule(mod([0x41, 0x00, 0x04, 0x40, 0x05, 0x0b, 0x0b]), { decodeBodies: true });
  assert.equal(ok.functions[0]!.body!.count, 5);
});

test("label names follow their functions when functions are removed and reordered", async () => {
  const bytes = await parse(`(module
    (func $a (export "a") (block $la (br $la)))
    (func $dead (block $ld (br $ld)))
    (func $c (export "c") (loop $lc (br_if $lc (i32.const 0)))))`);
  const labels = (m: ReturnType<typeof readModule>) => {
    const o = m.names!.other.find((x) => x.id === 3);
    assert.ok(o, "the name section has label names");
    const r = new ByteReader(o.bytes);
    const out: string[] = [];
    for (let n = r.count(); n > 0; n--) {
      const f = r.u32();
      for (let k = r.count(); k > 0; k--) out.push(`${f}:${r.u32()}:${r.name()}`);
    }
    return out;
  };
  const m = readModule(bytes);
  assert.deepEqual(labels(m), ["0:0:la", "1:0:ld", "2:0:lc"]);
  redirectFunctions(m, Int32Array.from([0, -1, 2]), [2, 0]);
  const back = readModule(writeModule(m));
  assert.deepEqual(labels(back), ["0:0:lc", "1:0:la"]);
  assert.deepEqual([...back.names!.functions.entries()], [[0, "c"], [1, "a"]]);
});
