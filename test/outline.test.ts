// The outline pass on hand-written modules: what it outlines, what it must
// refuse, and that the optimized module computes the same results (run in
// V8); plus a real C fixture run under WASI before and after.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { idOf } from "../src/binary/opcodes/index.js";
import { validateModule } from "../src/analysis/validate.js";
import { optimize } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { outline } from "../src/passes/outline/index.js";
import { buildCorpus } from "../src/passes/outline/corpus.js";
import { MarkedHotCode } from "../src/profile/marked-hot.js";
import { lcpArray, suffixArray, suffixArrayDoubling } from "../src/passes/outline/suffix-array.js";
import { localTypesOf, moduleEnv, type ModuleEnv } from "../src/analysis/module-env.js";
import { stackHeights } from "../src/analysis/body-typing.js";
import { CodeValidator } from "../src/analysis/validate-code.js";
import type { Body } from "../src/ir/body.js";
import { computeLiveness } from "../src/analysis/liveness.js";
import type { Func, Module } from "../src/ir/module.js";
import type { HotCode } from "../src/passes/pass.js";
import { F64, FUNCREF, I32, I64, refType } from "../src/ir/types.js";
import { checkFixture, describeFailures, listFixtures } from "./oracle/c-programs.js";
import { exportsOf, sameBehaviour } from "./behaviour.js";
import { SEQ, paramsOf, resultsOf } from "./outline-shared.js";

async function run(wat: string, extra: Record<string, unknown> = {}) {
  const input = await parse(wat);
  const { binary, report } = optimize(input, { passes: ["outline"], checked: true, outlineHot: true, ...extra }); // the rules of the pass: the hot rule is static-hot.test's
  const m = readModule(binary, { decodeBodies: true });
  validateModule(m);
  const before = readModule(input).functions.length;
  return { input, binary, m, report, added: m.functions.slice(before), outlined: report.passes[0]!.stats?.functionsOutlined ?? 0 };
}

const hasOp = (f: Func, name: string) => Array.from(f.body!.ops.subarray(0, f.body!.count)).includes(idOf(name));


const ARGS: unknown[][] = [[0, 0], [1, 2], [12345, -7], [-1, 99999]];

test("outline shares one sequence computed on different locals in three functions", async () => {
  const wat = `(module
    (func (export "a") (param i32 i32) (result i32) (local i32) ${SEQ(0, 1, 2)} local.get 2)
    (func (export "b") (param i32 i32) (result i32) (local i32 i32 i32)
      local.get 0 local.set 3 ${SEQ(3, 1, 4)} local.get 4 i32.const 1 i32.add)
    (func (export "c") (param i32 i32) (result i32) (local i32)
      ${SEQ(1, 0, 2)} local.get 2 local.get 0 i32.xor))`;
  const { input, binary, m, added, outlined } = await run(wat);
  assert.ok(outlined >= 1, "something was outlined");
  assert.ok(binary.length < input.length, `${binary.length} < ${input.length}`);
  // the sequence's inputs become params, its live output a result
  assert.ok(added.some((f) => paramsOf(m, f).length === 2 && resultsOf(m, f).length === 1));
  sameBehaviour(input, binary, ["a", "b", "c"].flatMap((n) => ARGS.map((a) => [n, a] as [string, unknown[]])));
});

test("outline: the merge map names each function code was taken from and the new function", async () => {
  const wat = `(module
    (func (export "a") (param i32 i32) (result i32) (local i32) ${SEQ(0, 1, 2)} local.get 2)
    (func (export "b") (param i32 i32) (result i32) (local i32) ${SEQ(1, 0, 2)} local.get 2 i32.const 1 i32.add)
    (func (export "c") (param i32 i32) (result i32) (local i32) ${SEQ(0, 1, 2)} local.get 2 local.get 0 i32.xor))`;
  const { m, report, added } = await run(wat);
  const entries = report.mergeMap.filter((e) => e.became === "extracted");
  assert.deepEqual(entries.map((e) => e.function.origin).sort(), [0, 1, 2]);
  const out = m.functions.length - added.length;
  for (const e of entries) {
    assert.equal(e.sites, 1);
    assert.equal(e.tail, undefined, "a plain call keeps the caller's frame");
    assert.ok(e.into.origin < 0 && e.into.output! >= out, "into is a new function, after the originals");
  }
  const tail = await run(`(module ${[1, 2, 3].map((k) => `(func (export "t${k}") (param i32 i32) (result i32) (local i32)
    local.get 0 i32.const 3 i32.gt_u if ${SEQ(0, 1, 2)} local.get 2 return end i32.const ${k})`).join(" ")})`, { features: { "tail-call": true } });
  const tails = tail.report.mergeMap.filter((e) => e.became === "extracted");
  assert.equal(tails.length, 3);
  assert.ok(tails.every((e) => e.tail === true), "return_call sites are marked");
});

test("outline refuses sequences with a branch that leaves them", async () => {
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32 i32) (result i32) (local i32)
    block
      block
        ${SEQ(0, 1, 2)}
        local.get 2 i32.const 3 i32.and br_if 1
        ${SEQ(2, 1, 0)}
      end
      i32.const ${k} local.set 2
    end
    local.get 2 local.get 0 i32.add)`;
  const wat = `(module ${fn("a", 111)} ${fn("b", 222)} ${fn("c", 333)})`;
  const { input, binary, added } = await run(wat);
  assert.ok(added.length >= 1, "the parts around the branch are still outlined");
  for (const f of added) for (const op of ["br", "br_if", "br_table"]) assert.ok(!hasOp(f, op), `no ${op} in an outlined function`);
  sameBehaviour(input, binary, ["a", "b", "c"].flatMap((n) => ARGS.map((a) => [n, a] as [string, unknown[]])));
});

test("outline refuses a return in the middle of a sequence", async () => {
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32 i32) (result i32) (local i32)
    ${SEQ(0, 1, 2)}
    local.get 2 i32.const 5 i32.gt_u if local.get 2 return end
    ${SEQ(2, 0, 1)}
    local.get 1 i32.const ${k} i32.add)`;
  const wat = `(module ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)})`;
  const { input, binary, added } = await run(wat, { features: { "tail-call": false } });
  assert.ok(added.length >= 1);
  for (const f of added) assert.ok(!hasOp(f, "return"), "no return inside an outlined function");
  sameBehaviour(input, binary, ["a", "b", "c"].flatMap((n) => ARGS.map((a) => [n, a] as [string, unknown[]])));
});

test("outline keeps a local the moved code wrote before a call threw where a handler reads it (more in outline-eh.test)", async () => {
  // Outlined together, SEQ's write of local 2 and the call would land the
  // write in the new function's local: when $g throws, the catch_all here
  // would read local 2's old value. Such sites are refused
  // (passes/outline/exceptions.ts); the rest of these functions is outlined.
  // (the handlers differ, so that the whole try, handler and all, is no repeat)
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32 i32) (result i32) (local i32)
    try (result i32)
      ${SEQ(0, 1, 2)}
      local.get 2 call $g
      ${SEQ(2, 1, 0)}
      local.get 0
    catch_all
      local.get 2 i32.const ${k} i32.add
    end)`;
  const wat = `(module (tag $e) (func $g (param i32) local.get 0 i32.const 1 i32.and if throw $e end)
    ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)})`;
  const { input, binary, added } = await run(wat);
  // $g is function 0: no new function writes a local and then calls it
  for (const f of added) {
    const b = f.body!;
    let wrote = false;
    for (let i = 0; i < b.count; i++) {
      if (b.ops[i] === idOf("local.set") || b.ops[i] === idOf("local.tee")) wrote = true;
      else assert.ok(!(wrote && b.ops[i] === idOf("call") && b.imm[b.immStart[i]!] === 0), "no write moved with a call of $g after it");
    }
  }
  sameBehaviour(input, binary, ["a", "b", "c"].flatMap((n) => ARGS.map((a) => [n, a] as [string, unknown[]])));
});

test("outline leaves unreachable code alone", async () => {
  const fn = (name: string) => `(func (export "${name}") (param i32 i32) (result i32) (local i32)
    local.get 0 return ${SEQ(0, 1, 2)} local.get 2)`;
  const wat = `(module ${fn("a")} ${fn("b")} ${fn("c")} ${fn("d")})`;
  const { input, binary, outlined } = await run(wat);
  assert.equal(outlined, 0);
  sameBehaviour(input, binary, ARGS.map((a) => ["a", a] as [string, unknown[]]));
});

test("outline keeps occurrences on locals of different types apart", async () => {
  // select is untyped: the same instructions are valid on f64 and on i64 locals
  const S = (a: number, b: number, c: number) => `local.get ${a} local.get ${b} local.get 2 select local.set ${c}`;
  const body = `${S(0, 1, 3)} ${S(3, 0, 4)} ${S(4, 3, 1)} ${S(1, 4, 0)} ${S(0, 3, 4)} local.get 4`;
  const fn = (name: string, t: string) => `(func (export "${name}") (param ${t} ${t} i32) (result ${t}) (local ${t} ${t}) ${body})`;
  const wat = `(module ${fn("f1", "f64")} ${fn("i1", "i64")} ${fn("f2", "f64")} ${fn("i2", "i64")})`;
  const { input, binary, m, added } = await run(wat);
  const types = new Set(added.flatMap((f) => paramsOf(m, f)));
  assert.ok(types.has(F64) && types.has(I64), "f64 and i64 occurrences get functions of their own");
  for (const f of added) {
    const ps = paramsOf(m, f).filter((t) => t !== I32);
    assert.ok(ps.every((t) => t === ps[0]), "no outlined function mixes the two");
  }
  const calls: [string, unknown[]][] = [];
  for (const c of [0, 1]) {
    calls.push(["f1", [1.5, -2.25, c]], ["f2", [3, 4, c]], ["i1", [5n, -6n, c]], ["i2", [7n, 8n, c]]);
  }
  sameBehaviour(input, binary, calls);
});

test("outline passes in a local that the sequence writes only on some paths", async () => {
  // local 2 is written inside the if only: the outlined code must start from the caller's value
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32 i32) (result i32) (local i32)
    i32.const ${k} local.set 2
    local.get 1 i32.const ${k} i32.xor local.set 1
    local.get 0 i32.const 5 i32.gt_u
    if local.get 0 i32.const 7 i32.mul local.set 2 end
    ${SEQ(2, 1, 2)}
    local.get 2)`;
  const wat = `(module ${fn("a", 1000)} ${fn("b", 2000)} ${fn("c", 3000)})`;
  const { input, binary, outlined } = await run(wat);
  assert.ok(outlined >= 1);
  sameBehaviour(input, binary, ["a", "b", "c"].flatMap((n) => [[0, 1], [3, 9], [10, 2], [77, -5]].map((a) => [n, a] as [string, unknown[]])));
});

test("outline refuses what is too short to pay", async () => {
  const fn = (name: string) => `(func (export "${name}") (param i32) (result i32) local.get 0 i32.const 1 i32.add)`;
  const { input, binary, outlined } = await run(`(module ${fn("a")} ${fn("b")} ${fn("c")})`);
  assert.equal(outlined, 0);
  assert.deepEqual(binary, input);
});

test("outline keeps away from hot code", async () => {
  const wat = `(module
    (func (export "a") (param i32 i32) (result i32) (local i32) ${SEQ(0, 1, 2)} local.get 2)
    (func (export "b") (param i32 i32) (result i32) (local i32) ${SEQ(1, 0, 2)} local.get 2)
    (func (export "c") (param i32 i32) (result i32) (local i32) ${SEQ(0, 0, 2)} local.get 2)
    (func (export "d") (param i32 i32) (result i32) (local i32) ${SEQ(1, 1, 2)} local.get 2))`;
  const input = await parse(wat);
  const hotIn = (hotFuncs: Set<number>): Module => {
    const m = readModule(input, { decodeBodies: true });
    const idx = (f: Func) => m.functions.indexOf(f);
    const hot: HotCode = { isHotFunction: (f) => hotFuncs.has(idx(f)), isHotInstruction: (f, i) => hotFuncs.has(idx(f)) && i >= 2 };
    outline(m, { hot });
    validateModule(m);
    return m;
  };
  const some = hotIn(new Set([1]));
  assert.ok(some.functions.length > 4, "cold copies are outlined");
  assert.equal(some.functions[1]!.dirty, false, "the hot function is untouched");
  const all = hotIn(new Set([0, 1, 2, 3]));
  assert.equal(all.functions.length, 4, "nothing outlined when all copies are hot");
  sameBehaviour(input, writeModule(some), ARGS.flatMap((a) => ["a", "b", "c", "d"].map((n) => [n, a] as [string, unknown[]])));
});

test("outline takes cold copies on both sides of hot code, and the string holds one position per hot run", async () => {
  // instructions 24-29 of each function (HOT) are hot: the copies of SEQ around them
  // may be outlined, one repeat over the hot code may not
  const HOT = `local.get 2 i32.const 1000003 i32.mul i32.const 5 i32.add local.set 2`;
  const wat = `(module
    (func (export "a") (param i32 i32) (result i32) (local i32) ${SEQ(0, 1, 2)} ${HOT} ${SEQ(2, 1, 2)} local.get 2)
    (func (export "b") (param i32 i32) (result i32) (local i32) ${SEQ(1, 0, 2)} ${HOT} ${SEQ(2, 0, 2)} local.get 2))`;
  const input = await parse(wat);
  const m = readModule(input, { decodeBodies: true });
  // marks on the bodies as read, as the static estimate and profiles give them (a body rewritten since counts as hot)
  const hot = new MarkedHotCode(new Map(m.functions.map((f) => {
    const b = f.body!;
    return [f.origin, { ops: b.ops.slice(0, b.count), hot: Uint8Array.from({ length: b.count }, (_, i) => (i >= 24 && i < 30 ? 1 : 0)) }];
  })));
  const corpus = buildCorpus(m, moduleEnv(m), hot);
  const counts = m.functions.map((f) => f.body!.count - 1);
  assert.equal(corpus.instructions, counts.reduce((a, c) => a + c + 1, 0));
  // per function: its cold instructions, one position for the hot run, a separator
  assert.equal(corpus.s.length, counts.reduce((a, c) => a + (c - 6) + 2, 0));
  const runAt = corpus.instrAt.indexOf(30) - 1;
  assert.equal(corpus.funcAt[runAt], -1, "the hot run has no instruction of its own");
  assert.equal(corpus.instrAt[runAt - 1], 23);
  outline(m, { hot });
  validateModule(m);
  assert.ok(m.functions.length > 2, "the cold copies are outlined");
  for (const f of m.functions.slice(0, 2)) {
    const b = f.body!;
    const at = Array.from(b.ops.subarray(0, b.count)).findIndex((op, i) => op === idOf("i32.const") && b.imm[b.immStart[i]!] === 1000003);
    assert.ok(at > 0, "the hot code stays in its function");
    assert.equal(b.ops[at - 1], idOf("local.get"));
    assert.deepEqual([b.ops[at + 1], b.ops[at + 2], b.ops[at + 4]], [idOf("i32.mul"), idOf("i32.const"), idOf("local.set")]);
  }
  sameBehaviour(input, writeModule(m), ARGS.flatMap((a) => ["a", "b"].map((n) => [n, a] as [string, unknown[]])));
});

test("outline tails use return_call only where tail calls are allowed", async () => {
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32 i32) (result i32) (local i32)
    local.get 0 i32.const 3 i32.gt_u
    if ${SEQ(0, 1, 2)} local.get 2 return end
    i32.const ${k})`;
  const wat = `(module ${fn("a", 1)} ${fn("b", 2)} ${fn("c", 3)})`;
  const calls = ["a", "b", "c"].flatMap((n) => [[0, 1], [4, 5], [100, -3]].map((a) => [n, a] as [string, unknown[]]));
  const plain = await run(wat, { features: { "tail-call": false } });
  assert.ok(plain.outlined >= 1);
  assert.ok(!plain.m.functions.some((f) => hasOp(f, "return_call")), "no return_call without permission");
  sameBehaviour(plain.input, plain.binary, calls);
  const tail = await run(wat, { features: { "tail-call": true } });
  assert.ok(tail.m.functions.some((f) => hasOp(f, "return_call")), "the tail is reached by return_call");
  assert.ok(tail.binary.length < plain.binary.length, "and that is smaller than call + return");
  sameBehaviour(tail.input, tail.binary, calls);
});

test("outline returns several live locals only where multi-value is allowed", async () => {
  const two = (x: number, s: number, t: number) => `
    local.get ${x} i32.const 1234 i32.mul i32.const 77 i32.xor local.set ${s}
    local.get ${s} i32.const 9 i32.rotl local.get ${x} i32.add local.set ${t}
    local.get ${t} i32.const 3 i32.shr_u local.get ${s} i32.xor local.set ${s}
    local.get ${s} i32.const 5 i32.shl local.get ${t} i32.sub local.set ${t}`;
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32 i32) (result i32) (local i32 i32)
    ${two(0, 2, 3)} local.get 2 local.get 3 i32.const ${k} i32.mul i32.sub)`;
  const wat = `(module ${fn("a", 3)} ${fn("b", 5)} ${fn("c", 7)})`;
  const calls = ["a", "b", "c"].flatMap((n) => ARGS.map((a) => [n, a] as [string, unknown[]]));
  const mv = await run(wat, { features: { "multi-value": true } });
  assert.ok(mv.added.some((f) => resultsOf(mv.m, f).length === 2), "two live locals come back as two results");
  sameBehaviour(mv.input, mv.binary, calls);
  // the module uses no multi-value: by default, none is added
  const single = await run(wat);
  for (const f of single.m.functions) assert.ok(resultsOf(single.m, f).length <= 1, "no multi-value function");
  sameBehaviour(single.input, single.binary, calls);
});

test("outline: a sequence ending in ref.func is typed by the function's exact reference type (typed function references)", async () => {
  // ../shared/regressions/outline-ref-func.wat (found by fuzzing with wasm-opt -ttf modules): typed as funcref,
  // the sequence became a function returning funcref, passed where (ref null $t) is required: invalid output
  const site = (k: number) => `(call $f (global.set $g (i32.add (global.get $g) (i32.const 7))) (ref.func $f) (i32.const ${k}))`;
  const wat = `(module
    (type $t (func (param (ref null $t) i32) (result i32)))
    (global $g (export "g") (mut i32) (i32.const 0))
    (elem declare func $f)
    (func $f (type $t) (param $r (ref null $t)) (param $x i32) (result i32) (i32.add (local.get $x) (i32.const 1)))
    ${["a", "b", "c", "d"].map((n, k) => `(func (export "${n}") (result i32) ${site(k + 1)})`).join("\n")})`;
  // Node 20 cannot run typed function references (behind --experimental-wasm-gc): the output must validate
  const { input, m } = await run(wat, { target: "raw" });
  validateModule(m);
  for (const target of ["gzip", "brotli", "balanced"] as const) validateModule((await run(wat, { target, measures: nodeMeasures })).m);
  // the typer gives the exact type; outline refuses a signature that would need it
  const parsed = readModule(input, { decodeBodies: true });
  const body = parsed.functions[1]!.body!;
  const refAt = Array.from(body.ops.subarray(0, body.count)).indexOf(idOf("ref.func"));
  const env = moduleEnv(parsed);
  const lt = localTypesOf(env, parsed.functions[1]!.typeIndex, parsed.functions[1]!.locals);
  assert.deepEqual(sequenceSignature(env, body, refAt, refAt + 1, lt), { params: [], results: [refType(0, false)] });
  // the input names no funcref: none may appear in the output (a typed reference widened on its way through a new function)
  for (const f of m.functions) for (const t of [...paramsOf(m, f), ...resultsOf(m, f)]) assert.notEqual(t, FUNCREF);
});

test("outline shares a sequence that ends in a trap; the call is followed by unreachable", async () => {
  const fn = (name: string, k: number) => `(func (export "${name}") (param i32 i32) (result i32) (local i32)
    local.get 0 i32.const ${k} i32.gt_u
    if (result i32) ${SEQ(0, 1, 2)} local.get 2 i32.const 4096 i32.rem_u i32.load unreachable
    else local.get 1 i32.const ${k} i32.add end)`;
  const wat = `(module (memory 1) ${fn("a", 10)} ${fn("b", 20)} ${fn("c", 30)})`;
  const { input, binary, m, added } = await run(wat);
  assert.ok(added.length >= 1 && added.every((f) => resultsOf(m, f).length === 0 && hasOp(f, "unreachable")));
  sameBehaviour(input, binary, ["a", "b", "c"].flatMap((n) => [[5, 1], [15, 2], [25, 3], [35, 4]].map((a) => [n, a] as [string, unknown[]])));
});

test("outline returns at most two values (V8 11.3 miscompiles three once code tiers up)", async () => {
  const fn = (name: string, use: string) => `(func (export "${name}") (param i32 i32) (result i32) (local i32)
    ${SEQ(0, 1, 2)} local.get 2 local.get 1 local.get 0 ${use})`;
  const wat = `(module ${fn("a", "i32.add i32.add")} ${fn("b", "i32.sub i32.mul")} ${fn("c", "select")})`;
  const { input, binary, m, added } = await run(wat, { features: { multivalue: true } });
  assert.ok(added.length >= 1);
  for (const f of m.functions) assert.ok(resultsOf(m, f).length <= 2);
  sameBehaviour(input, binary, ["a", "b", "c"].flatMap((n) => ARGS.map((a) => [n, a] as [string, unknown[]])));
});

/**
 * The stack signature of body[from, to) as outline's evaluator types a
 * candidate (open mode): null unless its blocks close inside it, its
 * branches stay inside, its inputs have known types, it does not return and
 * it ends reachable.
 */
function sequenceSignature(env: ModuleEnv, body: Body, from: number, to: number, localTypes: Int32Array): { params: number[]; results: number[] } | null {
  const typer = new CodeValidator(env);
  typer.beginSequence(body, localTypes, []);
  for (let i = from; i < to; i++) {
    if (!typer.stepSequence(i) || typer.returned) return null;
  }
  if (typer.depth !== 0 || typer.unreachable) return null;
  const results: number[] = [];
  for (let k = 0; k < typer.stackSize; k++) results.push(typer.stackType(k));
  return { params: typer.inputsRev.slice().reverse(), results };
}

test("validator in open mode: sequence signatures and refusals", async () => {
  const wat = `(module (func (param i32 i64) (result i32) (local f32)
    local.get 0 i32.const 1 i32.add           ;; 0-2
    block local.get 1 i64.eqz br_if 0 end     ;; 3-7
    i32.const 2 i32.mul                       ;; 8-9
    block local.get 0 local.get 0 br_if 1 drop end  ;; 10-15
    drop local.get 0                          ;; 16-17
    return))`;
  const m = readModule(await parse(wat), { decodeBodies: true });
  const env = moduleEnv(m);
  const f = m.functions[0]!;
  const lt = localTypesOf(env, f.typeIndex, f.locals);
  const height = stackHeights(m, 0, env);
  assert.deepEqual(Array.from(height.subarray(0, 6)), [0, 1, 2, 1, 0, 1], "heights count from the base of each block's frame");
  assert.deepEqual(sequenceSignature(env, f.body!, 0, 3, lt), { params: [], results: [I32] });
  assert.deepEqual(sequenceSignature(env, f.body!, 8, 10, lt), { params: [I32], results: [I32] });
  assert.deepEqual(sequenceSignature(env, f.body!, 3, 8, lt), { params: [], results: [] }, "a branch to its own block");
  assert.equal(sequenceSignature(env, f.body!, 10, 16, lt), null, "a branch out of the sequence");
  assert.equal(sequenceSignature(env, f.body!, 3, 6, lt), null, "a block that does not close inside");
  assert.equal(sequenceSignature(env, f.body!, 16, 17, lt), null, "drop of an input of unknown type");
  assert.equal(sequenceSignature(env, f.body!, 17, 19, lt), null, "return");
});

test("liveness: locals read later, overwritten first, and around loops", async () => {
  const wat = `(module (func (param i32) (result i32) (local i32 i32)
    i32.const 1 local.set 1                   ;; 0-1
    i32.const 2 local.set 2                   ;; 2-3
    loop                                      ;; 4
      local.get 1 i32.const 1 i32.add local.set 1   ;; 5-8
      local.get 0 br_if 0                     ;; 9-10
    end                                       ;; 11
    i32.const 0 local.set 2                   ;; 12-13
    local.get 1))`;
  const m = readModule(await parse(wat), { decodeBodies: true });
  const lv = computeLiveness(m.functions[0]!.body!, 3)!;
  assert.equal(lv.liveAfter(1, 1), true, "read in the loop");
  assert.equal(lv.liveAfter(3, 2), false, "overwritten before any read");
  assert.equal(lv.liveAfter(8, 1), true, "read on the next iteration and after the loop");
  assert.equal(lv.liveAfter(10, 0), true, "the loop reads it again");
  assert.equal(lv.liveAfter(12, 0), false, "no read after the loop");
  assert.equal(lv.liveAfter(13, 2), false);
});

test("outline on real -Oz C fixtures: valid output, same behaviour under WASI", async () => {
  for (const f of listFixtures().filter((x) => x.name === "interp-Oz" || x.name === "json-Oz-wasmopt")) {
    let stats: Record<string, number> | undefined;
    const r = await checkFixture(f, (bytes) => {
      const out = optimize(bytes, { passes: ["outline"], checked: true });
      stats = out.report.passes[0]!.stats;
      validateModule(readModule(out.binary, { decodeBodies: true }));
      return out.binary;
    });
    assert.equal(describeFailures(r), null);
    assert.ok((stats?.functionsOutlined ?? 0) > 0 && r.bytesAfter < r.bytesBefore, `${f.name}: ${r.bytesBefore} -> ${r.bytesAfter}`);
  }
});

test("suffix arrays: SA-IS agrees with prefix doubling, and LCP with direct comparison", () => {
  let seed = 12345;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8);
  for (let round = 0; round < 200; round++) {
    const n = 1 + (rand() % 300);
    const k = 1 + (rand() % (round % 3 === 0 ? 2 : 20));
    const period = 1 + (rand() % 7);
    const s = Int32Array.from({ length: n }, (_, i) => (round % 4 === 0 ? (i % period) % k : rand() % k));
    const a = suffixArray(s, k);
    assert.deepEqual(Array.from(a), Array.from(suffixArrayDoubling(s, k)), `n=${n} k=${k}`);
    const lcp = lcpArray(s, a);
    for (let j = 1; j < n; j++) {
      let h = 0;
      while (a[j]! + h < n && a[j - 1]! + h < n && s[a[j]! + h] === s[a[j - 1]! + h]) h++;
      assert.equal(lcp[j], h);
    }
  }
});
