// The layout pass: which orders it produces, that every reference follows a
// moved function, that behaviour stays, and that it leaves the module alone
// when the size judge refuses or there is nothing to order.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { validateModule } from "../src/analysis/validate.js";
import type { Module } from "../src/ir/module.js";
import { optimize } from "../src/index.js";
import { candidateOrder } from "../src/passes/layout/orders.js";
import { signatures, similarityOrder } from "../src/passes/layout/similarity.js";
import { exportsOf } from "./behaviour.js";

/** The imports the test module needs. */
const IMPORTS = { env: { log: () => {} } };

/** Function index by name (from the name section). */
function indexOf(m: Module, name: string): number {
  for (const [i, n] of m.names!.functions) if (n === name) return i;
  throw new Error(`no function named ${name}`);
}

/** The op sequence of the function named `name`. */
function opsOf(m: Module, name: string): number[] {
  return [...m.functions[indexOf(m, name) - m.numImportedFuncs]!.body!.ops];
}

function decoded(bytes: Uint8Array): Module {
  const m = readModule(bytes, { decodeBodies: true });
  validateModule(m);
  decodeAllBodies(m);
  return m;
}

// 140 fillers reached only through the table, so $hot (defined after them)
// starts with a 2-byte index although it is called 20 times.
const FILLERS = 140;
const filler = (k: number) => `(func $f${k} (param i32) (result i32) local.get 0 i32.const ${k} i32.add)`;
const WAT = `(module
  (import "env" "log" (func $log (param i32)))
  (type $t (func (param i32) (result i32)))
  (table $tab 200 funcref)
  (global $g (mut i32) (i32.const 0))
  (elem (table $tab) (i32.const 0) func ${Array.from({ length: FILLERS }, (_, k) => `$f${k}`).join(" ")})
  (elem declare func $viaref)
  ${Array.from({ length: FILLERS }, (_, k) => filler(k)).join("\n  ")}
  (func $hot (param i32) (result i32) local.get 0 i32.const 3 i32.mul i32.const 1 i32.add)
  (func $viaref (param i32) (result i32) local.get 0 call $hot i32.const 7 i32.xor)
  (func $init (global.set $g (call $hot (i32.const 5))))
  (start $init)
  (func (export "g") (result i32) global.get $g)
  (func (export "table") (param i32 i32) (result i32) local.get 0 local.get 1 call_indirect $tab (type $t))
  (func (export "viaref") (param i32) (result i32)
    (table.set $tab (i32.const 150) (ref.func $viaref))
    (call_indirect $tab (type $t) (local.get 0) (i32.const 150)))
  (func (export "hot") (param i32) (result i32)
    ${Array.from({ length: 18 }, () => "local.get 0 call $hot local.set 0").join(" ")}
    local.get 0 call $hot)
  (export "hotref" (func $hot)))`;

test("layout gives the most-called function a 1-byte index, moving as few functions as it can", async () => {
  const input = await parse(WAT);
  const { binary, report } = optimize(input, { passes: ["layout"] });
  const before = decoded(input);
  const after = decoded(binary);
  assert.ok(indexOf(before, "hot") >= 128);
  assert.ok(indexOf(after, "hot") < 128, "hot now has a 1-byte index");
  assert.ok(indexOf(after, "viaref") < 128, "so has viaref (ref.func and elem declare: 2 references)");
  assert.equal(report.passes[0]!.stats?.functionsMoved, 4, "hot and viaref swapped places with two fillers");
  assert.ok(binary.length < input.length, "20 calls and one export became a byte shorter");
  // names follow the bodies
  for (const name of ["hot", "viaref", "init", "f0", "f127", `f${FILLERS - 1}`]) assert.deepEqual(opsOf(after, name), opsOf(before, name), name);
  assert.equal(after.start, indexOf(after, "init"));
  assert.equal(after.exports.find((e) => e.name === "hotref")!.index, indexOf(after, "hot"));
});

test("layout keeps behaviour: calls, start, exports, elements and ref.func all reach the same functions", async () => {
  const input = await parse(WAT);
  const { binary } = optimize(input, { passes: ["layout"] });
  const a = exportsOf(input, IMPORTS);
  const b = exportsOf(binary, IMPORTS);
  assert.equal(b.g!(), a.g!());
  for (const x of [0, 1, 99, -5]) {
    assert.equal(b.hot!(x), a.hot!(x));
    assert.equal(b.hotref!(x), a.hotref!(x));
    assert.equal(b.viaref!(x), a.viaref!(x));
    for (const slot of [0, 1, 127, 128, FILLERS - 1]) assert.equal(b.table!(x, slot), a.table!(x, slot), `slot ${slot}`);
  }
});

test("layout keeps the original order when the size judge refuses every candidate", async () => {
  const input = await parse(WAT);
  // a gzip stand-in under which anything but the input is larger
  const gzip = (bytes: Uint8Array) => (bytes.length === input.length && bytes.every((v, i) => v === input[i]) ? 1 : 2);
  const { binary, report } = optimize(input, { passes: ["layout"], target: "gzip", measures: { gzip } });
  assert.equal(report.passes[0]!.changed, false);
  assert.ok(report.passes[0]!.notes.some((n) => n.startsWith("order: original")));
  assert.deepEqual(binary, input);
});

test("layout leaves a module with only imports, or one function, alone", async () => {
  for (const wat of [
    `(module (import "env" "log" (func $log (param i32))) (export "log" (func $log)))`,
    `(module (import "env" "log" (func $log (param i32))) (func (export "f") (call $log (i32.const 1))))`,
  ]) {
    const input = await parse(wat);
    const { binary, report } = optimize(input, { passes: ["layout"] });
    assert.equal(report.passes[0]!.changed, false);
    assert.deepEqual(binary, input);
  }
});

test("similarity order puts near-identical bodies next to each other", async () => {
  const shapeA = (k: number) => `(func (param i32 i32) (result i32) local.get 0 local.get 1 i32.add i32.const 3 i32.shl local.get 0 i32.xor i32.const ${k} i32.add i32.const 9 i32.rotl)`;
  const shapeB = (k: number) => `(func (param f64) (result f64) local.get 0 f64.sqrt local.get 0 f64.mul f64.const ${k} f64.add f64.floor f64.neg local.get 0 f64.max)`;
  const m = decoded(await parse(`(module ${shapeA(1)} ${shapeB(1)} ${shapeA(2)} ${shapeB(2)} ${shapeA(3)} ${shapeB(3)})`));
  const order = similarityOrder(signatures(m), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(order, [0, 2, 4, 1, 3, 5]);
});

test("the tiered orders give the first indices to the most referenced functions", () => {
  // 1 import, 200 defined functions; the last three are the most referenced
  const n = 200;
  const counts = new Uint32Array(n + 1);
  counts[n] = 50;
  counts[n - 1] = 40;
  counts[n - 2] = 30;
  const sig = () => new Uint32Array(0);
  const tiered = candidateOrder("tiered", counts, 1, n, sig);
  const swap = candidateOrder("swap", counts, 1, n, sig);
  const byCount = candidateOrder("by-count", counts, 1, n, sig);
  assert.deepEqual(byCount.slice(0, 3), [n, n - 1, n - 2]);
  for (const order of [tiered, swap, byCount]) {
    assert.deepEqual([...order].sort((a, b) => a - b), Array.from({ length: n }, (_, i) => i + 1), "a permutation");
    for (const f of [n - 2, n - 1, n]) assert.ok(order.indexOf(f) + 1 < 128, `${f} has a 1-byte index`);
  }
  // swap moves three functions in and three out; everything else keeps its index
  assert.equal(swap.filter((v, k) => v !== k + 1).length, 6);
});
