// The producers section records wasm-compact where the input has one.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { ByteReader, ByteWriter } from "../src/binary/bytes.js";
import { optimize } from "../src/index.js";
import { recordProducer } from "../src/producers.js";
import { VERSION } from "../src/version.js";
import { BODY } from "./behaviour.js";

function producers(fields: [string, [string, string][]][]): Uint8Array {
  const w = new ByteWriter();
  w.u32(fields.length);
  for (const [f, vs] of fields) {
    w.name(f);
    w.u32(vs.length);
    for (const [n, v] of vs) {
      w.name(n);
      w.name(v);
    }
  }
  return w.finish();
}

function read(payload: Uint8Array): [string, [string, string][]][] {
  const r = new ByteReader(payload);
  const out: [string, [string, string][]][] = [];
  for (let n = r.u32(); n > 0; n--) {
    const f = r.name();
    const vs: [string, string][] = [];
    for (let k = r.u32(); k > 0; k--) vs.push([r.name(), r.name()]);
    out.push([f, vs]);
  }
  return out;
}

const WAT = `(module
  (func $a (param i32) (result i32) (local i32) ${BODY("5")})
  (func $b (param i32) (result i32) (local i32) ${BODY("5")})
  (func (export "run") (param i32) (result i32) (i32.add (call $a (local.get 0)) (call $b (local.get 0)))))`;

test("producers: wasm-compact joins processed-by where the input has a producers section", async () => {
  const m = readModule(await parse(WAT));
  m.customs.push({ name: "producers", bytes: producers([["language", [["C11", ""]]], ["processed-by", [["clang", "19.1.7"]]]]), after: 11 });
  const { writeModule } = await import("../src/binary/writer.js");
  const input = writeModule(m);
  const { binary } = optimize(input, { passes: ["fold-functions"] });
  const out = readModule(binary).customs.find((c) => c.name === "producers")!;
  assert.deepEqual(read(out.bytes), [["language", [["C11", ""]]], ["processed-by", [["clang", "19.1.7"], ["wasm-compact", VERSION]]]]);
  // a second run changes nothing there
  const again = readModule(optimize(binary, { passes: ["fold-functions"] }).binary).customs.find((c) => c.name === "producers")!;
  assert.deepEqual(again.bytes, out.bytes);
});

test("producers: none is added where the input has none, and a malformed one is left as it is", async () => {
  const input = await parse(WAT);
  const { binary } = optimize(input, { passes: ["fold-functions"] });
  assert.ok(!readModule(binary).customs.some((c) => c.name === "producers"));
  const m = readModule(input);
  const bad = Uint8Array.from([2, 1, 0x41]);
  m.customs.push({ name: "producers", bytes: bad, after: 11 });
  assert.equal(recordProducer(m), false);
  assert.deepEqual(m.customs.at(-1)!.bytes, bad);
  // a section without processed-by gets one
  m.customs.at(-1)!.bytes = producers([["language", [["Rust", "1.80"]]]]);
  assert.equal(recordProducer(m, "wasm-compact", "9.9.9"), true);
  assert.deepEqual(read(m.customs.at(-1)!.bytes), [["language", [["Rust", "1.80"]]], ["processed-by", [["wasm-compact", "9.9.9"]]]]);
});
