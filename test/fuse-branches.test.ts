// fuse-branches on hand-written modules: each fusion form (select of a
// differing operand, guard of an unmatched statement, result fix-up, SEME
// exits, the condition kept on the stack or in a local; CFG diamonds and SEME
// triangles), each refusal, and the same results in V8 before and after;
// then random if/else bodies, diamonds and triangles.

import { test } from "node:test";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import assert from "node:assert/strict";
import type { Func } from "../src/ir/module.js";
import type { HotCode, PassOptions } from "../src/passes/pass.js";
import { fuse, fuseBinary, fusedRandomProgram } from "./fuse-run.js";
import { rng } from "../bench/stats.js";
import { optimize } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { sameBehaviour } from "./behaviour.js";

const ints = (name: string, xs: number[][]) => xs.map((a): [string, unknown[]] => [name, a]);
const PAIRS = [[0, 0], [1, 2], [0, 7], [-5, 3], [1000, -1], [123456, 77]];

test("a differing constant operand becomes a select on the condition", async () => {
  const r = await fuse(`(module (memory 1)
    (func (export "f") (param i32 i32)
      (if (local.get 0)
        (then (i32.store offset=16 (local.get 1) (i32.add (local.get 1) (i32.const 100))))
        (else (i32.store offset=16 (local.get 1) (i32.add (local.get 1) (i32.const 200))))))
    (func (export "get") (param i32) (result i32) (i32.load offset=16 (local.get 0))))`);
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.selects, 1);
  assert.equal(r.stats.guards, 0);
  assert.doesNotMatch(r.text.split("---")[0]!, /\bif\b/);
  assert.match(r.text, /select/);
  assert.ok(r.binary.length < r.input.length);
  const mem = (bytes: Uint8Array) => {
    const e = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>)).exports as Record<string, (...a: number[]) => number>;
    return [0, 1, 5].map((c) => (e.f!(c, 40), e.get!(40)));
  };
  assert.deepEqual(mem(r.binary), mem(r.input));
});

test("an unmatched statement is guarded by the condition, the matched ones are emitted once", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (if (local.get 0)
        (then
          (global.set $g (i32.add (global.get $g) (i32.const 1)))
          (i32.store (i32.const 8) (i32.mul (local.get 1) (i32.const 12345)))
          (i32.store (i32.const 12) (i32.xor (local.get 1) (i32.const 77777))))
        (else
          (i32.store (i32.const 8) (i32.mul (local.get 1) (i32.const 12345)))
          (i32.store (i32.const 12) (i32.xor (local.get 1) (i32.const 77777)))))
      (i32.add (global.get $g) (i32.add (i32.load (i32.const 8)) (i32.load (i32.const 12))))))`);
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.guards, 1);
  assert.equal(r.stats.selects, 0);
  assert.ok(r.binary.length < r.input.length);
  sameBehaviour(r.input, r.binary, ints("f", PAIRS));
});

test("differing results are fixed up with select, the shared tail is emitted once", async () => {
  const r = await fuse(`(module
    (func (export "f") (param i32 i32 i32) (result i32) (local i32)
      (if (result i32) (local.get 0)
        (then (local.set 3 (i32.mul (local.get 1) (i32.const 3000))) (i32.add (i32.mul (local.get 3) (i32.const 5555)) (local.get 1)))
        (else (local.set 3 (i32.mul (local.get 2) (i32.const 3000))) (i32.add (i32.mul (local.get 3) (i32.const 5555)) (local.get 2))))))`);
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.selects, 2);
  assert.equal(r.stats.guards, 0);
  sameBehaviour(r.input, r.binary, ints("f", [[0, 4, 9], [1, 4, 9], [7, -3, 100000]]));
});

test("the condition stays on the stack when its only use comes first (tail sinking)", async () => {
  const r = await fuse(`(module (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (if (i32.gt_s (local.get 0) (local.get 1))
        (then (global.set $g (i32.const 1)) (global.set $g (i32.mul (global.get $g) (i32.const 99999))))
        (else (global.set $g (i32.const 2)) (global.set $g (i32.mul (global.get $g) (i32.const 99999)))))
      (global.get $g)))`);
  assert.equal(r.stats.fused, 1);
  const f = r.text.split("---")[0]!;
  assert.doesNotMatch(f, /local\.(set|tee)/, "no local for the condition");
  sameBehaviour(r.input, r.binary, ints("f", PAIRS));
});

test("the condition goes to a new local when it is used twice and is no local.get", async () => {
  // (its first use is not the first instruction, so local.set rather than local.tee)
  const r = await fuse(`(module (memory 1)
    (func (export "f") (param i32 i32) (result i32)
      (if (i32.gt_s (local.get 0) (local.get 1))
        (then (i32.store (i32.const 0) (i32.const 1)) (i32.store (i32.const 4) (i32.mul (local.get 0) (i32.const 77777))) (i32.store (i32.const 8) (i32.const 5)))
        (else (i32.store (i32.const 0) (i32.const 2)) (i32.store (i32.const 4) (i32.mul (local.get 0) (i32.const 77777))) (i32.store (i32.const 8) (i32.const 6))))
      (i32.add (i32.load (i32.const 0)) (i32.add (i32.load (i32.const 4)) (i32.load (i32.const 8))))))`);
  assert.equal(r.stats.fused, 1);
  assert.match(r.text, /local\.set 2/);
  sameBehaviour(r.input, r.binary, ints("f", PAIRS));
});

test("SEME arms: a return in one arm is guarded, branches out of the if are re-counted", async () => {
  const r = await fuse(`(module (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (block $out
        (loop $l
          (if (i32.and (local.get 0) (i32.const 1))
            (then
              (global.set $g (i32.add (global.get $g) (i32.mul (local.get 1) (i32.const 1234567))))
              (br_if $out (i32.gt_u (global.get $g) (i32.const 1000000)))
              (if (i32.eq (local.get 1) (i32.const 3)) (then (return (i32.const -1)))))
            (else
              (global.set $g (i32.add (global.get $g) (i32.mul (local.get 1) (i32.const 7654321))))
              (br_if $out (i32.gt_u (global.get $g) (i32.const 1000000)))))
          (local.set 0 (i32.shr_u (local.get 0) (i32.const 1)))
          (br_if $l (local.get 0))))
      (global.get $g)))`);
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.selects, 1);
  assert.equal(r.stats.guards, 1);
  const calls: [string, unknown[]][] = [];
  for (const a of [0, 1, 2, 5, 0xff, 0x1234]) for (const b of [0, 1, 3, 1000]) calls.push(["f", [a, b]]);
  sameBehaviour(r.input, r.binary, calls);
});

test("a branch that names the if itself keeps a block in its place", async () => {
  const r = await fuse(`(module (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (if $i (local.get 0)
        (then (global.set $g (i32.mul (local.get 1) (i32.const 1111111))) (br_if $i (local.get 1)) (global.set $g (i32.const 5)))
        (else (global.set $g (i32.mul (local.get 1) (i32.const 2222222))) (br_if $i (local.get 1)) (global.set $g (i32.const 6))))
      (global.get $g)))`);
  assert.equal(r.stats.fused, 1);
  assert.match(r.text.split("---")[0]!, /\bblock\b/);
  sameBehaviour(r.input, r.binary, ints("f", PAIRS));
});

test("a CFG diamond (block block br_if 0 … br 1 end … end) is fused as the if it stands for", async () => {
  const r = await fuse(`(module (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32) (result i32)
      (block (block (br_if 0 (local.get 0)) (global.set $g (i32.add (i32.mul (local.get 0) (i32.const 12345)) (i32.const 1))) (br 1))
        (global.set $g (i32.add (i32.mul (local.get 0) (i32.const 12345)) (i32.const 2))))
      (block (block (br_if 1 (local.get 0)) (global.set $g (i32.const 3)) (br 1)) (global.set $g (i32.const 4)))
      (global.get $g)))`);
  assert.equal(r.stats.diamonds, 1, "the second br_if leaves the outer block: no diamond");
  assert.equal(r.stats.triangles, 0);
  assert.equal(r.stats.candidates, 0);
  assert.equal(r.stats.diamondsFused, 1);
  assert.equal(r.stats.selects, 1);
  assert.ok((r.stats.shapeBytes as number) > 0 && (r.stats.bytesSaved as number) > (r.stats.shapeBytes as number), "the fusion saves more than the if form alone");
  assert.equal((r.text.match(/\bblock\b/g) ?? []).length, 2, "only the second pair of blocks is left");
  assert.ok(r.binary.length < r.input.length);
  sameBehaviour(r.input, r.binary, ints("f", [[0], [1], [-3]]));
});

test("a diamond whose arms differ by a statement: the statement is guarded, and a branch out of an arm keeps its target", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (block $out
        (block (block (br_if 0 (i32.and (local.get 0) (i32.const 1)))
            (global.set $g (i32.add (global.get $g) (i32.const 1)))
            (br_if $out (i32.eq (local.get 1) (i32.const 3)))
            (i32.store (i32.const 8) (i32.mul (local.get 1) (i32.const 12345)))
            (i32.store (i32.const 12) (i32.xor (local.get 1) (i32.const 77777)))
            (br 1))
          (i32.store (i32.const 8) (i32.mul (local.get 1) (i32.const 12345)))
          (i32.store (i32.const 12) (i32.xor (local.get 1) (i32.const 77777))))
        (global.set $g (i32.add (global.get $g) (i32.const 10))))
      (i32.add (global.get $g) (i32.add (i32.load (i32.const 8)) (i32.load (i32.const 12))))))`);
  assert.equal(r.stats.diamondsFused, 1);
  assert.equal(r.stats.guards, 1);
  assert.ok(r.binary.length < r.input.length);
  sameBehaviour(r.input, r.binary, ints("f", PAIRS.concat([[1, 3], [0, 3]])));
});

test("a SEME triangle: the arm that returns early and the rest of the function share their common code", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (block (br_if 0 (local.get 0))
        (global.set $g (i32.const 1))
        (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345)))
        (return (i32.load offset=8 (local.get 1))))
      (global.set $g (i32.const 2))
      (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345)))
      (i32.load offset=8 (local.get 1)))
    (func (export "g") (result i32) (global.get $g)))`);
  assert.equal(r.stats.triangles, 1);
  assert.equal(r.stats.diamonds, 0);
  assert.equal(r.stats.trianglesFused, 1);
  assert.ok(r.binary.length < r.input.length);
  assert.equal((r.text.match(/i32\.mul/g) ?? []).length, 1, "the shared statement is emitted once");
  const calls = (xs: number[][]) => xs.flatMap((a): [string, unknown[]][] => [["f", a], ["g", []]]);
  sameBehaviour(r.input, r.binary, calls([[0, 40], [1, 40], [5, 100]]));
});

test("a triangle in a loop arm: the rest of the loop body becomes the then arm, its branch to the loop one level deeper", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32) (local i32)
      (block $out (loop $l
        (local.set 2 (i32.add (local.get 2) (i32.const 1)))
        (block (br_if 0 (i32.and (local.get 2) (local.get 0)))
          (global.set $g (i32.add (global.get $g) (i32.const 5)))
          (i32.store offset=8 (local.get 1) (i32.mul (local.get 2) (i32.const 12345)))
          (br $out))
        (i32.store offset=8 (local.get 1) (i32.mul (local.get 2) (i32.const 12345)))
        (br_if $l (i32.lt_u (local.get 2) (i32.const 6)))))
      (i32.add (global.get $g) (i32.load offset=8 (local.get 1)))))`);
  assert.equal(r.stats.trianglesFused, 1);
  sameBehaviour(r.input, r.binary, ints("f", [[0, 40], [1, 40], [2, 40], [4, 40], [7, 40]]));
});

test("refuses diamonds and triangles without an if form: an arm jumps into the other, or the stack does not start empty", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32)
      (block (block (br_if 0 (local.get 0))
          (br_if 0 (local.get 1))
          (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345)))
          (br 1))
        (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345)))))
    (func (export "h") (param i32 i32) (result i32)
      (i32.const 5)
      (block (br_if 0 (local.get 0))
        (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345)))
        (return (i32.const 9)))
      (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345)))
      (i32.add (local.get 1))))`);
  assert.equal(r.stats.diamonds, 1);
  assert.equal(r.stats.triangles, 1, "the diamond's inner block is not counted again");
  assert.equal(r.stats.shapesRefused, 3, "the diamond, its inner block as a triangle, and the triangle under the 5");
  assert.equal(r.stats.fused, 0);
  assert.equal(r.changed, false);
});

test("refuses a diamond that holds exception handling", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0)) (tag $e)
    (func (export "f") (param i32 i32)
      (block (block (br_if 0 (local.get 0))
          (block $h (try_table (catch_all $h) (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345)))))
          (br 1))
        (block $h (try_table (catch_all $h) (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12346))))))))`);
  assert.equal(r.stats.diamonds, 1);
  assert.equal(r.stats.shapesRefused, 2, "the diamond and its inner block as a triangle");
  assert.equal(r.changed, false);
});

test("a diamond whose P branches out of its blocks is fused in its triangle form", async () => {
  // br_if 1 in P names the outer block: no if form for the diamond, but the inner block's triangle has one
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (block (block (br_if 1 (i32.eq (local.get 1) (i32.const 7))) (br_if 0 (local.get 0))
          (global.set $g (i32.const 1))
          (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345)))
          (br 1))
        (global.set $g (i32.const 2))
        (i32.store offset=8 (local.get 1) (i32.mul (local.get 1) (i32.const 12345))))
      (i32.add (global.get $g) (i32.load offset=8 (local.get 1)))))`);
  assert.equal(r.stats.diamonds, 1);
  assert.equal(r.stats.shapesRefused, 1);
  assert.equal(r.stats.diamondsFused, 1);
  sameBehaviour(r.input, r.binary, ints("f", [[0, 40], [1, 40], [1, 7], [0, 7]]));
});

test("refuses a diamond the hot-code rule keeps, and one whose fusion does not pay", async () => {
  const wat = `(module (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32)
      (block (block (br_if 0 (local.get 0)) (global.set $g (i32.add (i32.mul (local.get 0) (i32.const 12345)) (i32.const 1))) (br 1))
        (global.set $g (i32.add (i32.mul (local.get 0) (i32.const 12345)) (i32.const 2))))
      (block (block (br_if 0 (local.get 1)) (global.set $g (local.get 0)) (br 1)) (global.set $g (i32.add (global.get $g) (local.get 1))))))`;
  const hot: HotCode = { isHotFunction: () => true, isHotInstruction: () => true };
  const h = await fuse(wat, { hot });
  assert.equal(h.stats.fused, 0);
  assert.equal(h.stats.hot, 4, "two diamonds, and their inner blocks as triangles");
  const r = await fuse(wat);
  assert.equal(r.stats.diamondsFused, 1, "only the first pays");
  assert.ok((r.stats.unaligned as number) + (r.stats.notPaying as number) >= 1);
});

test("CFM-CS: two loops of the same shape are melded, their differing statement guarded inside the one loop", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32) (local i32)
      (if (local.get 0)
        (then
          (local.set 2 (i32.const 0))
          (loop $l
            (i32.store offset=16 (i32.shl (local.get 2) (i32.const 2)) (i32.mul (local.get 2) (i32.const 100003)))
            (br_if $l (i32.lt_u (local.tee 2 (i32.add (local.get 2) (i32.const 1))) (local.get 1)))))
        (else
          (local.set 2 (i32.const 0))
          (loop $l
            (i32.store offset=16 (i32.shl (local.get 2) (i32.const 2)) (i32.mul (local.get 2) (i32.const 200003)))
            (global.set $g (i32.add (global.get $g) (i32.const 1)))
            (br_if $l (i32.lt_u (local.tee 2 (i32.add (local.get 2) (i32.const 1))) (local.get 1))))))
      (i32.add (global.get $g) (i32.add (i32.load offset=16 (i32.const 4)) (i32.load offset=16 (i32.const 8))))))`);
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.fusedByMeld, 1);
  assert.equal(r.stats.melds, 1);
  assert.equal(r.stats.guards, 1);
  assert.equal(r.stats.selects, 1);
  assert.equal((r.text.match(/\bloop\b/g) ?? []).length, 1, "one loop left");
  assert.ok(r.binary.length < r.input.length);
  sameBehaviour(r.input, r.binary, ints("f", [[0, 1], [1, 1], [0, 3], [1, 3], [5, 0]]));
});

test("CFM-CS: a guarded branch inside melded blocks gets one more level, a matched one keeps its depth", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (block $out
        (if (local.get 0)
          (then
            (block $b
              (br_if $b (i32.eq (local.get 1) (i32.const 3)))
              (i32.store offset=16 (local.get 1) (i32.mul (local.get 1) (i32.const 100003)))
              (br_if $out (i32.eq (local.get 1) (i32.const 5)))
              (global.set $g (i32.add (global.get $g) (i32.mul (local.get 1) (i32.const 7777))))))
          (else
            (block $b
              (br_if $b (i32.eq (local.get 1) (i32.const 3)))
              (i32.store offset=16 (local.get 1) (i32.mul (local.get 1) (i32.const 100003)))
              (br_if $b (i32.eq (local.get 1) (i32.const 4)))
              (global.set $g (i32.add (global.get $g) (i32.mul (local.get 1) (i32.const 7777))))))))
      (i32.add (global.get $g) (i32.load offset=16 (local.get 1)))))`);
  assert.equal(r.stats.fusedByMeld, 1);
  assert.ok((r.stats.guards as number) >= 1);
  const calls: [string, unknown[]][] = [];
  for (const a of [0, 1]) for (const b of [1, 3, 4, 5, 8]) calls.push(["f", [a, b]]);
  sameBehaviour(r.input, r.binary, calls);
});

test("region replication: a block on one side, straight-line code on the other; the block is put around it and the two melded", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32)
      (if (local.get 0)
        (then
          (block $b
            (i32.store offset=16 (local.get 1) (i32.add (i32.mul (local.get 1) (i32.const 100003)) (i32.const 99991)))
            (br_if $b (i32.eq (local.get 1) (i32.const 3)))
            (global.set $g (i32.mul (local.get 1) (i32.const 7777777)))))
        (else
          (i32.store offset=16 (local.get 1) (i32.add (i32.mul (local.get 1) (i32.const 100003)) (i32.const 99991)))))
      (i32.add (global.get $g) (i32.load offset=16 (local.get 1)))))`);
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.replicas, 1);
  assert.equal(r.stats.fusedByMeld, 1);
  assert.equal((r.text.match(/i32\.store/g) ?? []).length, 1, "the shared store is emitted once");
  assert.ok(r.binary.length < r.input.length);
  const calls: [string, unknown[]][] = [];
  for (const a of [0, 1]) for (const b of [1, 3, 8]) calls.push(["f", [a, b]]);
  sameBehaviour(r.input, r.binary, calls);
});

test("region replication refuses code with control flow on the other side", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32)
      (if (local.get 0)
        (then
          (block $b
            (i32.store offset=16 (local.get 1) (i32.add (i32.mul (local.get 1) (i32.const 100003)) (i32.const 99991)))
            (br_if $b (i32.eq (local.get 1) (i32.const 3)))
            (global.set $g (i32.mul (local.get 1) (i32.const 7777777)))))
        (else
          (i32.store offset=16 (local.get 1)
            (i32.add (i32.mul (local.get 1) (i32.const 100003)) (if (result i32) (local.get 1) (then (i32.const 99991)) (else (i32.const 3)))))))))`);
  assert.equal(r.stats.replicas, 0);
});

test("CFM-CS refuses to meld a block with a loop, or blocks of different types", async () => {
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32)
      (if (local.get 0)
        (then (block (i32.store offset=16 (local.get 1) (i32.mul (local.get 1) (i32.const 100003))) (global.set $g (i32.const 1))))
        (else (loop (i32.store offset=16 (local.get 1) (i32.mul (local.get 1) (i32.const 100003))) (global.set $g (i32.const 2)))))
      (if (local.get 1)
        (then (drop (block (result i32) (i32.store offset=16 (local.get 1) (i32.mul (local.get 1) (i32.const 100003))) (i32.const 1))))
        (else (block (i32.store offset=16 (local.get 1) (i32.mul (local.get 1) (i32.const 100003))) (global.set $g (i32.const 2)))))))`);
  assert.equal(r.stats.melds, 0);
  assert.equal(r.stats.fusedByMeld, 0);
});

test("differing callees of one type with table slots: the arguments once, the slot selected, one call_indirect", async () => {
  const wat = (exportTable: boolean) => `(module (memory 1) (global $g (mut i32) (i32.const 0))
    (type $t (func (param i32 i32) (result i32)))
    (table $tab ${exportTable ? '(export "tab") ' : ""}4 funcref) (elem (i32.const 1) $a $b $c)
    (func $a (type $t) (global.set $g (i32.add (global.get $g) (local.get 0))) (i32.mul (local.get 0) (local.get 1)))
    (func $b (type $t) (global.set $g (i32.sub (global.get $g) (local.get 1))) (i32.add (local.get 0) (local.get 1)))
    (func $c (param i32) (result i32) (local.get 0))
    (func (export "f") (param i32 i32) (result i32)
      (if (result i32) (local.get 0)
        (then (call $a (i32.mul (local.get 1) (i32.const 100003)) (i32.load offset=64 (i32.and (local.get 1) (i32.const 0xffc)))))
        (else (call $b (i32.mul (local.get 1) (i32.const 100003)) (i32.load offset=64 (i32.and (local.get 1) (i32.const 0xffc)))))))
    (func (export "g") (result i32) (global.get $g)))`;
  const r = await fuse(wat(false));
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.indirect, 1);
  assert.match(r.text, /call_indirect/);
  assert.ok(r.binary.length < r.input.length);
  const calls: [string, unknown[]][] = [];
  for (const a of [0, 1, 7]) for (const b of [0, 3, 100]) calls.push(["f", [a, b]], ["g", []]);
  sameBehaviour(r.input, r.binary, calls);
  // refused where the host may change the table's slots
  const e = await fuse(wat(true));
  assert.equal(e.stats.indirect, 0);
});

test("through optimize: checked under raw (static hot rule off), and judged under balanced", async () => {
  const input = await parse(`(module (memory 1)
    (func (export "f") (param i32 i32) (result i32)
      (if (local.get 0)
        (then (i32.store offset=16 (local.get 1) (i32.add (i32.mul (local.get 1) (i32.const 100000)) (i32.const 12345))))
        (else (i32.store offset=16 (local.get 1) (i32.add (i32.mul (local.get 1) (i32.const 200000)) (i32.const 12345)))))
      (i32.load offset=16 (local.get 1))))`);
  const raw = optimize(input, { passes: ["fuse-branches"], checked: true, outlineHot: true });
  assert.equal(raw.report.passes[0]!.stats?.fused, 1);
  assert.ok(raw.binary.length < input.length);
  sameBehaviour(input, raw.binary, ints("f", PAIRS));
  const bal = optimize(input, { passes: ["fuse-branches"], checked: true, outlineHot: true, target: "balanced", measures: nodeMeasures });
  assert.ok((bal.report.passes[0]!.stats?.judgements ?? 0) >= 1, "the rewrite was put to the judge");
  const size = (b: Uint8Array) => [b.length, nodeMeasures.gzip!(b), nodeMeasures.brotli!(b)];
  const [r0, g0, b0] = size(input);
  const [r1, g1, b1] = size(bal.binary);
  assert.ok(r1! <= r0! && g1! <= g0! && b1! <= b0!, `balanced never grows: ${[r0, g0, b0]} -> ${[r1, g1, b1]}`);
  sameBehaviour(input, bal.binary, ints("f", PAIRS));
});

// ---- refusals ----

test("refuses to select an operand that may trap or has effects", async () => {
  // differing loads (may trap), divisions (may trap) and a call against a global.get:
  // selecting would run the else arm's operand on the then path
  const r = await fuse(`(module (memory 1) (global $g (mut i32) (i32.const 0))
    (func $h (result i32) (global.set $g (i32.add (global.get $g) (i32.const 1))) (global.get $g))
    (func (export "f") (param i32 i32)
      (if (local.get 0)
        (then (i32.store offset=100 (local.get 1) (i32.mul (i32.load (local.get 1)) (i32.const 99999))))
        (else (i32.store offset=100 (local.get 1) (i32.mul (i32.load16_u (local.get 1)) (i32.const 99999)))))
      (if (local.get 1)
        (then (i32.store offset=200 (local.get 0) (i32.mul (i32.div_u (local.get 0) (local.get 1)) (i32.const 99999))))
        (else (i32.store offset=200 (local.get 0) (i32.mul (i32.div_s (local.get 0) (local.get 1)) (i32.const 99999)))))
      (if (local.get 0)
        (then (i32.store offset=300 (local.get 1) (i32.add (call $h) (i32.const 99999))))
        (else (i32.store offset=300 (local.get 1) (i32.add (global.get $g) (i32.const 99999)))))))`);
  assert.equal(r.stats.candidates, 3);
  assert.equal(r.stats.fused, 0);
  assert.equal(r.changed, false);
});

test("a shared trapping instruction is emitted once, with only its pure operands selected", async () => {
  const r = await fuse(`(module (memory 1)
    (func (export "f") (param i32 i32) (result i32)
      (if (result i32) (local.get 0)
        (then (i32.mul (i32.div_u (i32.load offset=64 (i32.const 4)) (local.get 1)) (i32.const 99999)))
        (else (i32.mul (i32.div_u (i32.load offset=64 (i32.const 8)) (local.get 0)) (i32.const 99999))))))`);
  assert.equal(r.stats.fused, 1);
  assert.equal(r.stats.selects, 2);
  assert.equal((r.text.match(/i32\.div_u/g) ?? []).length, 1);
  sameBehaviour(r.input, r.binary, ints("f", PAIRS));
});

test("refuses an if the profile calls hot", async () => {
  const wat = `(module (memory 1)
    (func (export "f") (param i32 i32)
      (if (local.get 0)
        (then (i32.store offset=16 (local.get 1) (i32.add (local.get 1) (i32.const 100))))
        (else (i32.store offset=16 (local.get 1) (i32.add (local.get 1) (i32.const 200)))))))`;
  const hot: HotCode = { isHotFunction: () => true, isHotInstruction: (_f: Func, _i: number) => true };
  const r = await fuse(wat, { hot });
  assert.equal(r.stats.fused, 0);
  assert.equal(r.stats.hot, 1);
  const cold: HotCode = { isHotFunction: () => true, isHotInstruction: () => false };
  assert.equal((await fuse(wat, { hot: cold })).stats.fused, 1);
});

test("refuses a fusion that does not pay in exact bytes", async () => {
  // one short shared statement: the select costs more than it saves
  const r = await fuse(`(module (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32)
      (if (local.get 0)
        (then (global.set $g (local.get 1)) (global.set $g (i32.add (global.get $g) (local.get 0))))
        (else (global.set $g (local.get 0)) (global.set $g (i32.sub (global.get $g) (local.get 1)))))))`);
  assert.equal(r.stats.fused, 0);
  assert.ok(r.stats.notPaying + r.stats.unaligned >= 1);
});

test("refuses a v128 select when SIMD may not be introduced", async () => {
  const wat = `(module (memory 1)
    (func (export "f") (param i32 v128)
      (if (local.get 0)
        (then (v128.store offset=16 (i32.const 0) (i32x4.add (local.get 1) (v128.const i32x4 1 2 3 4))))
        (else (v128.store offset=16 (i32.const 0) (i32x4.add (local.get 1) (v128.const i32x4 5 6 7 8)))))))`;
  assert.equal((await fuse(wat)).stats.fused, 1);
  const r = await fuse(wat, { features: { simd: false } });
  assert.equal(r.stats.fused, 0);
});

test("refuses a guard with several results when that needs a type the if does not have", async () => {
  // the arms leave two values from different statements: a one-sided or mismatched run cannot be guarded
  const r = await fuse(`(module (global $g (mut i32) (i32.const 0))
    (func (export "f") (param i32 i32) (result i32 i32)
      (if (result i32 i32) (local.get 0)
        (then (i32.mul (local.get 1) (i32.const 123456)) (global.set $g (i32.const 1)) (i32.const 9))
        (else (global.set $g (i32.const 2)) (i32.mul (local.get 1) (i32.const 123456)) (i32.const 9)))))`);
  // whatever it does, the module validates (fuse() checks) and behaves the same
  sameBehaviour(r.input, r.binary, ints("f", PAIRS));
});

// ---- randomized differential test ----

test("random if/else bodies: same results, traps and state in V8 before and after", async () => {
  const r = rng(16016);
  let fused = 0;
  let programs = 0;
  for (let p = 0; p < 150; p++) {
    fused += (await fusedRandomProgram(r, p)).fused as number;
    programs++;
  }
  assert.equal(programs, 150);
  assert.ok(fused >= 20, `only ${fused} fusions in 150 random programs`);
});

test("random if/else bodies with blocks and loops (CFM-CS): same results, traps and state in V8 before and after", async () => {
  const r = rng(16019);
  let melded = 0;
  for (let p = 0; p < 120; p++) melded += (await fusedRandomProgram(r, p, "if", true)).fusedByMeld as number;
  assert.ok(melded >= 10, `only ${melded} fusions by melding in 120 random programs`);
});

for (const shape of ["diamond", "triangle"] as const) {
  test(`random ${shape}s: same results, traps and state in V8 before and after`, async () => {
    const r = rng(shape === "diamond" ? 16017 : 16018);
    let fused = 0;
    for (let p = 0; p < 100; p++) {
      fused += (await fusedRandomProgram(r, p, shape))[shape === "diamond" ? "diamondsFused" : "trianglesFused"] as number;
    }
    assert.ok(fused >= 15, `only ${fused} ${shape} fusions in 100 random programs`);
  });
}
