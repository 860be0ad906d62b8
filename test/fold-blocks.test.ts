// fold-blocks on hand-written modules: what it folds, what it refuses, and
// that the optimized module computes the same results in V8; plus real -Oz
// C fixtures run under node:wasi before and after.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule, decodeAllBodies } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { printBody } from "../src/binary/printer.js";
import { validateModule } from "../src/analysis/validate.js";
import { optimize } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import type { PassOptions } from "../src/passes/pass.js";
import { foldBlocksPass } from "../src/passes/fold-blocks/index.js";
import { checkFixture, describeFailures, listFixtures } from "./oracle/c-programs.js";
import { exportsOf, sameBehaviour } from "./behaviour.js";

/** Runs fold-blocks alone with these options (features and hot code go straight to the pass). */
async function fold(wat: string, options: PassOptions = {}) {
  const input = await parse(wat);
  const m = readModule(input);
  decodeAllBodies(m);
  const before = m.functions.length;
  const notes: string[] = [];
  const r = foldBlocksPass.run(m, { progress: () => {}, note: (s) => void notes.push(s), options });
  const binary = writeModule(m);
  const out = readModule(binary, { decodeBodies: true });
  validateModule(out);
  const text = out.functions.map((f) => printBody(f.body!)).join("\n---\n");
  return { input, binary, m: out, added: out.functions.length - before, stats: r.stats!, text };
}

const inputs = (name: string) => [0, 1, 7, -3, 1000, 123456].map((x): [string, unknown[]] => [name, [x]]);

// A block of work on locals $a (read) and $t (scratch), big enough to pay for a call.
const WORK = (a: string, t: string) => `
  (block
    (local.set ${t} (i32.mul (local.get ${a}) (i32.const 31)))
    (local.set ${t} (i32.xor (local.get ${t}) (i32.shr_u (local.get ${t}) (i32.const 7))))
    (local.set ${t} (i32.add (local.get ${t}) (i32.rotl (local.get ${t}) (i32.const 13))))
    (i32.store (i32.const 64) (i32.add (i32.load (i32.const 64)) (local.get ${t}))))`;

test("folds an identical block across functions, with locals renamed", async () => {
  const wat = `(module (memory 1)
    (func (export "f") (param i32) (result i32) (local i32) ${WORK("0", "1")} (i32.load (i32.const 64)))
    (func (export "g") (param i64 i32) (result i32) (local f32 i32) ${WORK("1", "3")} (i32.load (i32.const 64)))
    (func (export "h") (param i32) (result i32) (local i32) ${WORK("0", "1")} (i32.add (local.get 0) (i32.load (i32.const 64)))))`;
  const r = await fold(wat);
  assert.equal(r.stats.blocksFolded, 1);
  assert.equal(r.stats.sitesReplaced, 3);
  assert.equal(r.added, 1);
  assert.ok(r.binary.length < r.input.length);
  sameBehaviour(r.input, r.binary, [...inputs("f"), ...inputs("h"), ["g", [5n, 9]], ["g", [0n, -1]]]);
});

test("folds no block in a handler's scope, and the blocks outside every scope of a function with handlers", async () => {
  // WORK, then a call that may throw: in h's try body the catch_all reads
  // local 1, which a folded copy would write in the new function's local
  const thrower = `(tag $e) (func $t (param i32) local.get 0 i32.const 1 i32.and if throw $e end)`;
  const work = `(block ${WORK("0", "1")} (call $t (local.get 1)))`;
  const wat = `(module (memory 1) ${thrower}
    (func (export "f") (param i32) (result i32) (local i32) ${work} (i32.load (i32.const 64)))
    (func (export "g") (param i32) (result i32) (local i32) ${work} (i32.load (i32.const 64)))
    (func (export "h") (param i32) (result i32) (local i32)
      try (result i32) ${work} (i32.load (i32.const 64)) catch_all (local.get 1) end
      ${work} (i32.load (i32.const 64)) i32.add))`;
  const r = await fold(wat);
  assert.equal(r.stats.blocksFolded, 1);
  assert.equal(r.stats.sitesReplaced, 3, "f, g and h's copy after its try");
  const h = r.text.split("\n---\n")[3]!;
  const tryBody = h.slice(h.indexOf("try"), h.indexOf("catch_all"));
  assert.match(tryBody, /i32\.rotl/, "the copy in the try body stays");
  sameBehaviour(r.input, r.binary, [...inputs("f"), ...inputs("g"), ...inputs("h")]);
  // the same with a try_table (Node 20's engine cannot run it: the module is only validated)
  const table = await fold(`(module (memory 1) ${thrower}
    (func (export "f") (param i32) (result i32) (local i32) ${work} (i32.load (i32.const 64)))
    (func (export "g") (param i32) (result i32) (local i32) ${work} (i32.load (i32.const 64)))
    (func (export "h") (param i32) (result i32) (local i32)
      (block $out (try_table (catch_all $out) ${work}))
      ${work} (i32.load (i32.const 64))))`);
  assert.equal(table.stats.sitesReplaced, 3);
  const th = table.text.split("\n---\n")[3]!;
  assert.match(th.slice(th.indexOf("try_table"), th.indexOf("end")), /i32\.rotl/);
});

test("folds identical if arms and passes a live local back", async () => {
  const arm = `(local.set 1 (i32.mul (local.get 0) (i32.const 3)))
      (local.set 1 (i32.add (local.get 1) (i32.rotl (local.get 1) (i32.const 5))))
      (local.set 1 (i32.xor (local.get 1) (i32.const 0x5555)))
      (local.set 1 (i32.sub (local.get 1) (i32.shl (local.get 0) (i32.const 2))))`;
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32) (result i32) (local i32)
    (if (i32.gt_s (local.get 0) (i32.const ${k})) (then ${arm}) (else (local.set 1 (i32.const ${k}))))
    (i32.add (local.get 1) (local.get 0)))`;
  const wat = `(module ${fn("a", 3)} ${fn("b", 100)})`;
  const r = await fold(wat);
  assert.equal(r.stats.blocksFolded, 1);
  assert.match(r.text, /call 2\s+local\.set 1/, "the arm's result local is set from the call");
  sameBehaviour(r.input, r.binary, [...inputs("a"), ...inputs("b")]);
});

test("folds an identical loop", async () => {
  const loop = `(block $done (loop $l
      (br_if $done (i32.eqz (local.get 0)))
      (local.set 1 (i32.add (i32.mul (local.get 1) (i32.const 33)) (local.get 0)))
      (local.set 1 (i32.xor (local.get 1) (i32.shr_u (local.get 1) (i32.const 11))))
      (local.set 1 (i32.add (local.get 1) (i32.shl (local.get 1) (i32.const 3))))
      (local.set 0 (i32.sub (local.get 0) (i32.const 1)))
      (br $l)))`;
  const wat = `(module
    (func (export "a") (param i32) (result i32) (local i32) (local.set 1 (i32.const 5381)) ${loop} (local.get 1))
    (func (export "b") (param i32) (result i32) (local i32) (local.set 1 (i32.const 7)) ${loop} (i32.mul (local.get 1) (i32.const 3))))`;
  const r = await fold(wat);
  assert.equal(r.stats.blocksFolded, 1);
  assert.ok(r.m.functions[2]!.body!.ops.length > 10, "the loop moved into the new function");
  sameBehaviour(r.input, r.binary, [["a", [0]], ["a", [10]], ["b", [3]], ["b", [200]]]);
});

test("a local the region carries around an enclosing loop is handed back", async () => {
  // local 1 is only used inside the block, but the next iteration reads what it wrote
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32) (result i32) (local i32)
    (loop $l
      (block
        (local.set 1 (i32.add (i32.mul (local.get 1) (i32.const 31)) (local.get 0)))
        (local.set 1 (i32.xor (local.get 1) (i32.shr_u (local.get 1) (i32.const 7))))
        (local.set 1 (i32.add (local.get 1) (i32.rotl (local.get 1) (i32.const 13))))
        (i32.store (i32.const 8) (local.get 1)))
      (local.set 0 (i32.sub (local.get 0) (i32.const ${k})))
      (br_if $l (i32.gt_s (local.get 0) (i32.const 0))))
    (i32.load (i32.const 8)))`;
  const wat = `(module (memory 1) ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)})`;
  const r = await fold(wat);
  assert.equal(r.stats.blocksFolded, 1);
  sameBehaviour(r.input, r.binary, [["a", [5]], ["a", [40]], ["b", [9]], ["b", [77]], ["c", [100]]]);
});

test("a local the region writes is handed back only if it is read after the region (shared liveness)", async () => {
  // local 1 is read before the block and written inside it; after the block only local 2 is read,
  // and the second function overwrites local 1 before reading it again
  const wat = (after: string) => `(module (memory 1)
    (func (export "a") (param i32) (result i32) (local i32 i32)
      (local.set 1 (i32.add (local.get 0) (i32.const 1)))
      (local.set 2 (local.get 1))
      ${WORK("0", "1")}
      ${after})
    (func (export "b") (param i32) (result i32) (local i32 i32)
      (local.set 1 (i32.sub (local.get 0) (i32.const 1)))
      (local.set 2 (i32.mul (local.get 1) (i32.const 3)))
      ${WORK("0", "1")}
      (local.set 1 (i32.const 9))
      (i32.add (local.get 1) (local.get 2))))`;
  const dead = await fold(wat("(i32.add (local.get 2) (i32.load (i32.const 64)))"));
  assert.equal(dead.stats.blocksFolded, 1);
  const newFunc = dead.m.functions[dead.m.functions.length - 1]!;
  assert.deepEqual((dead.m.types[newFunc.typeIndex]!.composite as { results: unknown[] }).results, [], "nothing handed back");
  assert.doesNotMatch(dead.text.split("\n---\n")[0]!, /call 2\s+local\.set 1/);
  sameBehaviour(dead.input, dead.binary, [...inputs("a"), ...inputs("b")]);
  // read after the block in one function: handed back at every site
  const live = await fold(wat("(i32.add (local.get 1) (local.get 2))"));
  assert.equal(live.stats.blocksFolded, 1);
  assert.match(live.text.split("\n---\n")[0]!, /call 2\s+local\.set 1/);
  sameBehaviour(live.input, live.binary, [...inputs("a"), ...inputs("b")]);
});

// An error path that returns: identical in both functions.
const TAIL = `(if (i32.lt_s (local.get 0) (i32.const 0)) (then
      (i32.store (i32.const 16) (i32.mul (local.get 0) (i32.const -7)))
      (i32.store (i32.const 20) (i32.add (i32.load (i32.const 16)) (i32.const 99)))
      (return (i32.add (i32.load (i32.const 20)) (i32.const 1234567)))))`;
const TAIL_WAT = `(module (memory 1)
  (func (export "a") (param i32) (result i32) ${TAIL} (i32.mul (local.get 0) (i32.const 2)))
  (func (export "b") (param i32) (result i32) ${TAIL} (i32.add (local.get 0) (i32.const 2))))`;

test("folds a region that returns as a tail call when tail calls may be introduced", async () => {
  const r = await fold(TAIL_WAT, { features: { "tail-call": true } });
  assert.equal(r.stats.tailFolds, 1);
  assert.match(r.text, /return_call 2/);
  sameBehaviour(r.input, r.binary, [...inputs("a"), ...inputs("b")]);
});

test("without tail calls a returning region becomes call; return", async () => {
  const r = await fold(TAIL_WAT);
  assert.equal(r.stats.tailFolds, 1);
  assert.doesNotMatch(r.text, /return_call/);
  assert.match(r.text, /call 2\s+return/);
  sameBehaviour(r.input, r.binary, [...inputs("a"), ...inputs("b")]);
});

test("joins identical exits within one function (cross-jumping through one shared function)", async () => {
  // two error paths of one function, identical but for the condition, each ending in a trap
  const exit = `(i32.store (i32.const 16) (i32.mul (local.get 0) (i32.const -7)))
      (i32.store (i32.const 20) (i32.add (i32.load (i32.const 16)) (local.get 1)))
      (i32.store (i32.const 24) (i32.xor (i32.load (i32.const 20)) (i32.const 0x1234)))
      (unreachable)`;
  const wat = `(module (memory 1)
    (func (export "f") (param i32 i32) (result i32)
      (if (i32.lt_s (local.get 0) (i32.const 0)) (then ${exit}))
      (if (i32.le_s (local.get 1) (i32.const 100)) (then (local.set 0 (i32.add (local.get 0) (i32.const 1)))) (else ${exit}))
      (i32.add (local.get 0) (local.get 1)))
    (func (export "peek") (result i32) (i32.load (i32.const 24))))`;
  const r = await fold(wat);
  assert.equal(r.stats.blocksFolded, 1);
  assert.equal(r.stats.sitesReplaced, 2);
  assert.equal(r.stats.tailFolds, 1);
  assert.match(r.text, /call 2\s+unreachable[\s\S]*call 2\s+unreachable/, "both exits call the shared code and stay exits");
  const ea = exportsOf(r.input);
  const eb = exportsOf(r.binary);
  for (const args of [[1, 2], [-5, 3], [4, 500], [-1, 101]]) {
    const run = (e: typeof ea) => { try { return e.f!(...args); } catch { return `trap ${e.peek!()}`; } };
    assert.deepEqual(run(eb), run(ea), `f(${args})`);
  }
});

test("refuses a region that branches out of itself", async () => {
  const body = (k: number, exit: string) => `(block $out (loop $l
      (block
        (local.set 1 (i32.mul (local.get 0) (i32.const 31)))
        ${exit}
        (local.set 1 (i32.xor (local.get 1) (i32.shr_u (local.get 1) (i32.const 7))))
        (local.set 1 (i32.add (local.get 1) (i32.rotl (local.get 1) (i32.const 13))))
        (local.set 1 (i32.xor (local.get 1) (i32.shl (local.get 1) (i32.const 5))))
        (local.set 0 (i32.add (local.get 1) (i32.const 1))))
      (br_if $l (i32.lt_u (local.get 0) (i32.const ${k})))))`;
  // the region writes two locals read afterwards: two results
  const mv = { features: { multivalue: true } };
  const wat = (exit: string) => `(module
    (func (export "a") (param i32) (result i32) (local i32) ${body(100, exit)} (local.get 0))
    (func (export "b") (param i32) (result i32) (local i32) ${body(200, exit)} (local.get 1))
    (func (export "c") (param i32) (result i32) (local i32) ${body(300, exit)} (i32.add (local.get 0) (local.get 1))))`;
  const out = await fold(wat("(br_if $out (i32.gt_u (local.get 1) (i32.const 1000)))"), mv);
  assert.equal(out.stats.blocksFolded, 0, "the inner block breaks to $out");
  assert.equal(out.binary.length, out.input.length);
  const inner = await fold(wat("(br_if 0 (i32.gt_u (local.get 1) (i32.const 1000)))"), mv);
  assert.equal(inner.stats.blocksFolded, 1, "the same block breaking to its own end folds");
  sameBehaviour(inner.input, inner.binary, [...inputs("a"), ...inputs("b"), ...inputs("c")]);
});

test("refuses regions with different local types or different immediates", async () => {
  const wat = `(module (memory 1)
    (func (export "a") (param i32) (result i32) (local i32) ${WORK("0", "1")} (i32.load (i32.const 64)))
    (func (export "b") (param i32) (result i32) (local f32 i32) ${WORK("0", "2").replace("i32.const 31", "i32.const 37")} (i32.load (i32.const 64)))
    (func (export "c") (param i64) (result i32) (local i32) ${WORK("0", "1").replace(/\(local.get 0\)/g, "(i32.wrap_i64 (local.get 0))")} (i32.load (i32.const 64))))`;
  const r = await fold(wat);
  assert.equal(r.stats.blocksFolded, 0);
  sameBehaviour(r.input, r.binary, [...inputs("a"), ...inputs("b")]);
});

test("refuses a region with two live-out values when multi-value may not be introduced", async () => {
  const arm = `(local.set 1 (i32.mul (local.get 0) (i32.const 3)))
      (local.set 2 (i32.add (local.get 1) (i32.rotl (local.get 0) (i32.const 5))))
      (local.set 1 (i32.xor (local.get 1) (i32.const 0x5555)))
      (local.set 2 (i32.sub (local.get 2) (i32.shl (local.get 1) (i32.const 2))))
      (local.set 1 (i32.add (local.get 1) (i32.rotl (local.get 2) (i32.const 9))))
      (local.set 2 (i32.xor (local.get 2) (i32.shr_s (local.get 1) (i32.const 3))))`;
  const fn = (name: string) => `(func (export "${name}") (param i32) (result i32) (local i32 i32)
    (if (local.get 0) (then ${arm}))
    (i32.add (local.get 1) (local.get 2)))`;
  const wat = `(module ${fn("a")} ${fn("b")})`;
  const single = await fold(wat);
  assert.equal(single.stats.blocksFolded, 0, "the module does not use multi-value, so by default the region stays");
  const multi = await fold(wat, { features: { multivalue: true } });
  assert.equal(multi.stats.blocksFolded, 1, "folded when multi-value is enabled");
  sameBehaviour(multi.input, multi.binary, [...inputs("a"), ...inputs("b")]);
});

test("never folds a region with a hot instruction", async () => {
  const wat = `(module (memory 1)
    (func (export "f") (param i32) (result i32) (local i32) ${WORK("0", "1")} (i32.load (i32.const 64)))
    (func (export "g") (param i32) (result i32) (local i32) ${WORK("0", "1")} (i32.load (i32.const 64))))`;
  // instruction 5 of g (origin 1) sits inside the block
  const r = await fold(wat, { hot: { isHotFunction: (f) => f.origin === 1, isHotInstruction: (f, i) => f.origin === 1 && i === 5 } });
  assert.equal(r.stats.blocksFolded, 0);
  const cold = await fold(wat, { hot: { isHotFunction: () => false, isHotInstruction: () => false } });
  assert.equal(cold.stats.blocksFolded, 1, "the same module folds without hot code");
});

test("refuses regions too small to pay for a function and calls", async () => {
  const wat = `(module (memory 1)
    (func (export "a") (param i32) (result i32) (block (i32.store (i32.const 0) (local.get 0))) (i32.load (i32.const 0)))
    (func (export "b") (param i32) (result i32) (block (i32.store (i32.const 0) (local.get 0))) (i32.load (i32.const 4))))`;
  const r = await fold(wat);
  assert.equal(r.stats.blocksFolded, 0);
  assert.equal(r.binary.length, r.input.length);
});

test("through optimize: checked under raw, and judged under balanced", async () => {
  const wat = `(module (memory 1)
    (func (export "f") (param i32) (result i32) (local i32) ${WORK("0", "1")} (i32.load (i32.const 64)))
    (func (export "g") (param i32) (result i32) (local i32) ${WORK("0", "1")} (i32.load (i32.const 68))))`;
  const input = await parse(wat);
  const raw = optimize(input, { passes: ["fold-blocks"], checked: true, outlineHot: true });
  assert.ok(raw.binary.length < input.length);
  assert.equal(raw.report.passes[0]!.stats?.blocksFolded, 1);
  sameBehaviour(input, raw.binary, [...inputs("f"), ...inputs("g")]);
  const bal = optimize(input, { passes: ["fold-blocks"], checked: true, outlineHot: true, target: "balanced", measures: nodeMeasures });
  const judgements = bal.report.passes[0]!.stats?.judgements ?? 0;
  assert.ok(judgements >= 1, "the fold was put to the judge");
  const size = (b: Uint8Array) => [b.length, nodeMeasures.gzip!(b), nodeMeasures.brotli!(b)];
  const [r0, g0, b0] = size(input);
  const [r1, g1, b1] = size(bal.binary);
  assert.ok(r1! <= r0! && g1! <= g0! && b1! <= b0!, `balanced never grows: ${[r0, g0, b0]} -> ${[r1, g1, b1]}`);
  sameBehaviour(input, bal.binary, [...inputs("f"), ...inputs("g")]);
});

for (const name of ["interp-Oz-wasmopt", "json-Oz-wasmopt"]) {
  test(`real C fixture ${name}: validates and runs the same`, async (t) => {
    const f = listFixtures().find((x) => x.name === name)!;
    let stats: Record<string, number> = {};
    const r = await checkFixture(f, (bytes) => {
      const o = optimize(bytes, { passes: ["fold-functions", "fold-blocks"], checked: true });
      stats = o.report.passes[1]!.stats ?? {};
      return o.binary;
    });
    t.diagnostic(`${r.bytesBefore} -> ${r.bytesAfter} bytes, ${JSON.stringify(stats)}`);
    assert.ok((stats.blocksFolded ?? 0) > 0, "something was folded");
    const failure = describeFailures(r);
    assert.equal(failure, null, failure ?? "");
  });
}

test("the merge map names the functions code was extracted from, with site counts and tail calls", async () => {
  const wat = `(module (memory 1)
    (func $f (export "f") (param i32) (result i32) (local i32) ${WORK("0", "1")} ${WORK("0", "1")} (i32.load (i32.const 64)))
    (func $g (export "g") (param i32) (result i32) (local i32) ${WORK("0", "1")} (i32.load (i32.const 64))))`;
  const input = await parse(wat);
  const { binary, report } = optimize(input, { passes: ["fold-blocks"], outlineHot: true });
  assert.ok(binary.length < input.length);
  const entries = report.mergeMap.filter((e) => e.became === "extracted");
  assert.deepEqual(
    entries.map((e) => [e.function.origin, e.function.name, e.sites, e.tail ?? false]).sort(),
    [[0, "f", 2, false], [1, "g", 1, false]],
  );
  const into = entries[0]!.into;
  assert.ok(into.origin < 0, "the new function has no input index");
  assert.equal(into.name, "folded_block$0");
  assert.equal(into.output, 2, "appended after f and g");
  assert.ok(entries.every((e) => e.into.output === into.output));
});

test("the merge map marks extracted code that is reached by tail calls", async () => {
  const input = await parse(TAIL_WAT);
  const { report } = optimize(input, { passes: ["fold-blocks"], features: { "tail-call": true }, outlineHot: true });
  const entries = report.mergeMap.filter((e) => e.became === "extracted");
  assert.equal(entries.length, 2);
  assert.ok(entries.every((e) => e.tail === true && e.sites === 1));
});
