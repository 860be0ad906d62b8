// fuse-branches' differing callees through table slots it appends: where
// the callees have no slot, slots go at the end of table 0 (made if there
// is none) when no one can see the table grow; their bytes count against
// the fusion. Each refusal: an exported or imported table, an instruction
// that sizes (or grows, writes) a table, a table 0 that is no plain funcref
// table (a second table would need reference types), an element segment at
// a non-constant offset, and a fusion that does not pay for its slots.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { optimize } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { sameBehaviour } from "./behaviour.js";
import { rng } from "../bench/stats.js";
import { fuse, fusedRandomProgram } from "./fuse-run.js";

/** Two callees of one type, called alike in the two arms of an if in "f" (and "h" with `twice`); `table` is the table and element declarations. */
function calls(table: string, opts: { twice?: boolean; small?: boolean; extra?: string } = {}): string {
  // long shared arguments make the fusion pay for the slots; a short one does not
  const args = opts.small
    ? "(i32.mul (local.get 1) (i32.const 3)) (local.get 1)"
    : "(i32.mul (local.get 1) (i32.const 100003)) (i32.load offset=64 (i32.and (i32.add (local.get 1) (i32.const 1234567)) (i32.const 0xffc)))";
  const fn = (name: string) => `(func (export "${name}") (param i32 i32) (result i32)
      (if (result i32) (local.get 0)
        (then (call $a ${args}))
        (else (call $b ${args}))))`;
  return `(module
    (type $t (func (param i32 i32) (result i32)))
    ${table}
    (memory 1) (global $g (mut i32) (i32.const 0))
    (func $a (type $t) (global.set $g (i32.add (global.get $g) (local.get 0))) (i32.mul (local.get 0) (local.get 1)))
    (func $b (type $t) (global.set $g (i32.sub (global.get $g) (local.get 1))) (i32.add (local.get 0) (local.get 1)))
    (func $c (param i32) (result i32) (local.get 0))
    ${fn("f")}
    ${opts.twice ? fn("h") : ""}
    ${opts.extra ?? ""}
    (func (export "g") (result i32) (global.get $g)))`;
}

function sameCalls(input: Uint8Array, output: Uint8Array, names: string[]): void {
  const list: [string, unknown[]][] = [];
  for (const n of names) for (const a of [0, 1, 7]) for (const b of [0, 3, 100]) list.push([n, [a, b]], ["g", []]);
  sameBehaviour(input, output, list);
}

test("callees without a slot: slots appended to table 0 in one element segment, one call_indirect", async () => {
  const r = await fuse(calls("(table $tab 2 funcref) (elem (i32.const 0) $c $c)"));
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.indirect, 1);
  assert.equal(r.stats.newSlots, 2);
  assert.ok((r.stats.slotBytes as number) > 0);
  assert.match(r.text, /call_indirect/);
  // the bytes the module saves are the pass's figure, slots included
  assert.equal(r.input.length - r.binary.length, r.stats.bytesSaved);
  const m = readModule(r.binary);
  assert.equal(Number(m.tables[0]!.type.limits.min), 4);
  assert.equal(m.elements.length, 2);
  const seg = m.elements[1]!;
  assert.ok(seg.mode.kind === "active" && seg.items.kind === "funcs");
  assert.deepEqual(seg.items.funcs, [0, 1]);
  sameCalls(r.input, r.binary, ["f"]);
});

test("a module without a table gets table 0 with the slots", async () => {
  const r = await fuse(calls(""));
  assert.equal(r.stats.indirect, 1);
  assert.equal(r.stats.newSlots, 2);
  assert.equal(r.input.length - r.binary.length, r.stats.bytesSaved);
  const m = readModule(r.binary);
  assert.equal(m.tables.length, 1);
  assert.equal(Number(m.tables[0]!.type.limits.min), 2);
  sameCalls(r.input, r.binary, ["f"]);
});

test("slots appended once serve every later fusion; a callee with a slot keeps it", async () => {
  const r = await fuse(calls("(table $tab 3 funcref) (elem (i32.const 1) $a $c)", { twice: true }));
  assert.equal(r.stats.indirect, 2);
  assert.equal(r.stats.newSlots, 1); // $b only: $a is in slot 1
  const m = readModule(r.binary);
  assert.equal(Number(m.tables[0]!.type.limits.min), 4);
  const seg = m.elements.at(-1)!;
  assert.ok(seg.mode.kind === "active" && seg.items.kind === "funcs");
  assert.deepEqual(seg.items.funcs, [1]);
  assert.match(r.text, /i32\.const 1\b[\s\S]*i32\.const 3\b[\s\S]*call_indirect/);
  sameCalls(r.input, r.binary, ["f", "h"]);
});

test("refuses a fusion whose code saving does not pay for the slots it appends (it pays with slots the table has)", async () => {
  const r = await fuse(calls("(table $tab 2 funcref) (elem (i32.const 0) $c $c)", { small: true }));
  assert.equal(r.stats.indirect, 0);
  assert.equal(r.stats.newSlots, 0);
  assert.equal(readModule(r.binary).elements.length, 1);
  const e = await fuse(calls("(table $tab 3 funcref) (elem (i32.const 1) $a $b)", { small: true }));
  assert.equal(e.stats.indirect, 1);
  assert.equal(e.stats.newSlots, 0);
});

test("refuses new slots where the host or the code can see or change the table", async () => {
  const cases: [string, string, string?][] = [
    ["exported table", `(table $tab (export "tab") 2 funcref) (elem (i32.const 0) $c $c)`],
    ["imported table", `(import "env" "tab" (table $tab 2 funcref))`],
    // the table's size is observed: a slot appended would change what table.size returns
    ["table.size", "(table $tab 2 funcref) (elem (i32.const 0) $c $c)", `(func (export "size") (result i32) (table.size $tab))`],
    ["table.grow", "(table $tab 2 funcref) (elem (i32.const 0) $c $c)", `(func (export "grow") (result i32) (table.grow $tab (ref.null func) (i32.const 1)))`],
    // a segment at an offset the host picks may set any slot, the new ones included
    ["segment at a global offset", `(import "env" "base" (global $base i32)) (table $tab 8 funcref) (elem (global.get $base) $c)`],
  ];
  for (const [what, table, extra] of cases) {
    const r = await fuse(calls(table, extra ? { extra } : {}));
    assert.equal(r.stats.indirect, 0, what);
    assert.equal(r.stats.newSlots, 0, what);
  }
});

test("refuses new slots where table 0 is no plain funcref table: no second table is made (it would need reference types)", async () => {
  const r = await fuse(calls(`(table $ext 1 externref) (func (export "set") (param externref) (table.set $ext (i32.const 0) (local.get 0)))`));
  assert.equal(r.stats.indirect, 0);
  assert.equal(readModule(r.binary).tables.length, 1);
});

test("refuses new slots where an element segment does not fit the table: an instantiation that failed must still fail", async () => {
  // slot 3 is out of bounds; appending $b there would make the segment fit
  const r = await fuse(calls("(table $tab 3 funcref) (elem (i32.const 1) $a $c $c)"));
  assert.equal(r.stats.newSlots, 0);
  assert.equal(r.stats.indirect, 0);
  assert.throws(() => new WebAssembly.Instance(new WebAssembly.Module(r.binary as Uint8Array<ArrayBuffer>)));
});

test("random if/else bodies calling three callees, table 0 absent or with some of them: same results, traps and state in V8", async () => {
  const r = rng(16020);
  let indirect = 0, appended = 0;
  for (let p = 0; p < 150; p++) {
    const s = await fusedRandomProgram(r, p, "if", false, true);
    indirect += s.indirect as number;
    appended += s.newSlots as number;
  }
  assert.ok(indirect >= 10 && appended >= 5, `only ${indirect} call_indirect and ${appended} slots appended in 150 random programs`);
});

test("slots handed out to callees the fusion does not keep leave no gap: the function is planned again with dense slots", async () => {
  // comparing the first statements asks slots for $d and $b; only $a and $b end up called indirectly
  const big = "(i32.mul (local.get 1) (i32.const 100003)) (i32.load offset=64 (i32.and (i32.add (local.get 1) (i32.const 1234567)) (i32.const 0xffc)))";
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (type $t (func (param i32 i32) (result i32)))
    (table 1 funcref) (elem (i32.const 0) $c)
    (func $a (type $t) (global.set $g (i32.add (global.get $g) (local.get 0))) (i32.mul (local.get 0) (local.get 1)))
    (func $b (type $t) (global.set $g (i32.sub (global.get $g) (local.get 1))) (i32.add (local.get 0) (local.get 1)))
    (func $d (type $t) (global.set $g (i32.xor (global.get $g) (local.get 0))) (local.get 1))
    (func $c (param i32) (result i32) (global.set $g (i32.add (global.get $g) (i32.const 1))) (local.get 0))
    (func (export "f") (param i32 i32) (result i32)
      (if (result i32) (local.get 0)
        (then (drop (call $d (call $c (local.get 1)) (local.get 1))) (call $a ${big}))
        (else (drop (call $b (i32.load (local.get 1)) (local.get 1))) (call $b ${big}))))
    (func (export "g") (result i32) (global.get $g)))`);
  assert.equal(r.stats.indirect, 1);
  assert.equal(r.stats.newSlots, 2);
  const m = readModule(r.binary);
  assert.equal(Number(m.tables[0]!.type.limits.min), 3);
  const seg = m.elements.at(-1)!;
  assert.ok(seg.mode.kind === "active" && seg.items.kind === "funcs");
  assert.deepEqual(seg.items.funcs, [1, 0]); // $b asked first, then $a
  assert.match(r.text, /i32\.const 2\b[\s\S]*i32\.const 1\b[\s\S]*call_indirect/);
  sameCalls(r.input, r.binary, ["f"]);
});

test("through optimize under raw and balanced: the slots go with the rewrites the judge takes, nothing grows", async () => {
  const input = await parse(calls("(table $tab 2 funcref) (elem (i32.const 0) $c $c)", { twice: true }));
  const raw = optimize(input, { passes: ["fuse-branches"], checked: true, outlineHot: true });
  assert.equal(raw.report.passes[0]!.stats?.newSlots, 2);
  assert.ok(raw.binary.length < input.length);
  sameCalls(input, raw.binary, ["f", "h"]);
  const bal = optimize(input, { passes: ["fuse-branches"], checked: true, outlineHot: true, target: "balanced", measures: nodeMeasures });
  const pass = bal.report.passes[0]!;
  const s = pass.stats!;
  assert.ok((s.judgements ?? 0) >= 1, "the rewrites were put to the judge");
  const size = (b: Uint8Array) => [b.length, nodeMeasures.gzip!(b), nodeMeasures.brotli!(b)];
  const [r0, g0, b0] = size(input);
  const [r1, g1, b1] = size(bal.binary);
  assert.ok(r1! <= r0! && g1! <= g0! && b1! <= b0!, `balanced never grows: ${[r0, g0, b0]} -> ${[r1, g1, b1]}`);
  // the table has exactly the slots appended, if the pipeline kept the pass's result (it undoes a pass that grew brotli)
  assert.equal(Number(readModule(bal.binary).tables[0]!.type.limits.min), 2 + (pass.kept ? (s.newSlots ?? 0) : 0));
  sameCalls(input, bal.binary, ["f", "h"]);
});
