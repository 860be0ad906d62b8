// The extractor (src/extract/) on hand-written modules: code moved into a
// new function with its locals renamed, the call site that replaces it
// (arguments, results, live-out locals, tails), exact bytes against the
// written module, typed references keeping their exact types, trial copies,
// and the judging helper.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { estimateViewLeftOut, writeModule } from "../src/binary/writer.js";
import { idOf } from "../src/binary/opcodes/index.js";
import { validateModule } from "../src/analysis/validate.js";
import { codeSize, funcEntrySize, rangeSize } from "../src/analysis/sizes.js";
import { BodyBuilder, type Body } from "../src/ir/body.js";
import type { Module } from "../src/ir/module.js";
import { I32, refType, type ValType } from "../src/ir/types.js";
import { asEstimateView, estimateView, SizeJudge, wholeLength, wholePerView } from "../src/size-target.js";
import { copyRange } from "../src/extract/copy.js";
import { movedBody, siteRename } from "../src/extract/moved-body.js";
import { callSiteBytes, emitCallSite, type CallSite } from "../src/extract/call-site.js";
import { addFunction, groupLocals, SignaturePlan } from "../src/extract/new-function.js";
import { replaceBody, trialCopy, writeTrial } from "../src/extract/trial.js";
import { judgementBudget, judgeInHalves, MIN_JUDGED_SHARE } from "../src/extract/judging.js";
import { sameBehaviour } from "./behaviour.js";

const END = idOf("end");
const opsOf = (b: Body) => Array.from(b.ops.subarray(0, b.count));

/** What one extraction needs: the range [from, to) of defined function `pos`, and how to rebuild it. */
interface Extraction {
  pos: number;
  from: number;
  to: number;
  /** Stack operands the range consumes (the new function's first parameters). */
  stackParams: number;
  rename: (local: number) => number;
  /** New-function locals handed back after the range's own results. */
  outLocals: number[];
  params: ValType[];
  results: ValType[];
  internal: ValType[];
  site: Omit<CallSite, "callee">;
  tailCalls: boolean;
}

/** Extracts with the shared pieces (movedBody, emitCallSite), as outline and fold-blocks do; returns the new function's index and its call site. */
function extract(m: Module, e: Extraction): { callee: number; site: CallSite; body: Body } {
  const host = m.functions[e.pos]!.body!;
  const body = movedBody({ body: host, from: e.from, to: e.to, stackParams: e.stackParams, rename: e.rename, outLocals: e.outLocals });
  const callee = addFunction(m, { params: e.params, results: e.results, locals: groupLocals(e.internal), body }, { trial: false });
  const site: CallSite = { ...e.site, callee };
  const out = new BodyBuilder();
  copyRange(out, host, 0, e.from);
  emitCallSite(out, site, e.tailCalls);
  copyRange(out, host, e.to, host.count);
  replaceBody(m, e.pos, out.finish(), false);
  return { callee, site, body };
}

test("a site with a stack operand, an argument local, a stack result and a live-out local; locals renamed; exact bytes", async () => {
  // ((a+b)*3)^2 - (a+b): the range [1, 10) takes a from the stack and b from
  // local 1, leaves the square on the stack, and writes local 2 (read after it)
  const input = await parse(`(module
    (func (export "f") (param i32 i32) (result i32) (local i32 i32)
      local.get 0
      local.get 1 i32.add local.tee 2 i32.const 3 i32.mul local.set 3 local.get 3 local.get 3 i32.mul
      local.get 2 i32.sub))`);
  const m = readModule(input, { decodeBodies: true });
  const before = writeModule(m).length;
  const host = m.functions[0]!.body!;
  const removed = rangeSize(host, 1, 10);
  const hostBefore = codeSize(host);
  const params = [I32, I32];
  const results = [I32, I32];
  // planned before the module changes (the type is new)
  const sigs = new SignaturePlan(m);
  assert.equal(sigs.find(params, results), -1);
  const { callee, site, body } = extract(m, {
    pos: 0, from: 1, to: 10, stackParams: 1,
    // host local 1 is the second parameter; locals 2 and 3 swap places
    rename: (x) => ({ 1: 1, 2: 3, 3: 2 })[x]!,
    outLocals: [3], params, results, internal: [I32, I32],
    site: { args: [1], stores: [2], exit: "none" }, tailCalls: false,
  });
  assert.equal(callee, 1);
  const newBody = m.functions[0]!.body!;
  assert.deepEqual(opsOf(newBody), ["local.get", "local.get", "call", "local.set", "local.get", "i32.sub", "end"].map(idOf));
  // the renaming reached every local op of the moved code
  const localWords = opsOf(body).flatMap((op, i) => (op === idOf("local.get") || op === idOf("local.set") || op === idOf("local.tee") ? [body.imm[body.immStart[i]!]!] : []));
  assert.deepEqual(localWords, [0, 1, 3, 2, 2, 2, 3]);
  // exact bytes: the host changes by the site minus the range; the module grows by that plus the new function
  const siteBytes = callSiteBytes(site, false);
  assert.equal(codeSize(newBody) - hostBefore, siteBytes - removed);
  const fnBytes = sigs.functionBytes(params, results, funcEntrySize(groupLocals([I32, I32]), body), 0);
  const out = writeModule(m);
  assert.equal(out.length - before, siteBytes - removed + fnBytes);
  validateModule(readModule(out, { decodeBodies: true }));
  sameBehaviour(input, out, [["f", [0, 0]], ["f", [2, 5]], ["f", [-7, 100]], ["f", [123456, 789]]]);
});

test("movedBody: framing before and after the renamed copy; glue maps to the first and last instruction of the span", () => {
  // host: local.get 5, block, i32.const 1, local.set 7, end, return (offsets 100, 101, …)
  const hb = new BodyBuilder(8, true);
  const put = (name: string, off: number, ...w: number[]): void => {
    hb.begin(idOf(name), off);
    for (const x of w) hb.word(x);
  };
  put("local.get", 100, 5);
  put("block", 101, 0x40);
  put("i32.const", 102, 1);
  put("local.set", 103, 7);
  put("end", 104);
  put("return", 105);
  put("end", 106);
  const host = hb.finish();
  // copy [2, 4) of the span [1, 6) (a block without its opener and end, a stripped return), two stack params
  const body = movedBody({
    body: host, from: 2, to: 4, span: { start: 1, end: 6 }, stackParams: 2,
    rename: siteRename([7, 5], [3, 2]), outLocals: [3],
    before: [{ op: idOf("nop"), words: [] }], after: [{ op: idOf("unreachable"), words: [] }],
  });
  assert.deepEqual(opsOf(body), ["local.get", "local.get", "nop", "i32.const", "local.set", "unreachable", "local.get", "end"].map(idOf));
  assert.deepEqual(Array.from(body.offsets!.subarray(0, body.count)), [101, 101, 101, 102, 103, 105, 105, 105]);
  const words = Array.from({ length: body.count }, (_, i) => Array.from(body.imm.subarray(body.immStart[i]!, body.immStart[i + 1]!)));
  assert.deepEqual(words, [[0], [1], [], [1], [3], [], [3], []], "host local 7 is canonical local 0, which the new function numbers 3");
});

const TAIL = `(module
  (func (export "g") (param i32) (result i32) (local i32)
    local.get 0 i32.const 1 i32.add local.set 1 local.get 1 local.get 1 i32.mul return))`;

for (const tailCalls of [true, false]) {
  test(`a tail site ${tailCalls ? "is a return_call where tail calls may be used" : "is call; return where they may not"}`, async () => {
    const input = await parse(TAIL);
    const m = readModule(input, { decodeBodies: true });
    const host = m.functions[0]!.body!;
    const { site } = extract(m, {
      pos: 0, from: 0, to: host.count - 1, stackParams: 0, rename: (x) => x,
      outLocals: [], params: [I32], results: [I32], internal: [I32],
      site: { args: [0], stores: [], exit: "return" }, tailCalls,
    });
    const nb = m.functions[0]!.body!;
    const want = tailCalls ? ["local.get", "return_call", "end"] : ["local.get", "call", "return", "end"];
    assert.deepEqual(opsOf(nb), want.map(idOf));
    assert.equal(codeSize(nb), callSiteBytes(site, tailCalls) + 1);
    const out = writeModule(m);
    validateModule(readModule(out, { decodeBodies: true }));
    sameBehaviour(input, out, [["g", [0]], ["g", [9]], ["g", [-3]]]);
  });
}

test("a site that leaves the function cannot store results in locals; a trap site ends in unreachable", () => {
  const b = new BodyBuilder();
  assert.throws(() => emitCallSite(b, { callee: 3, args: [], stores: [0], exit: "return" }, true));
  const t = new BodyBuilder();
  emitCallSite(t, { callee: 3, args: [2], stores: [], exit: "trap" }, true);
  t.begin(END);
  const body = t.finish();
  assert.deepEqual(opsOf(body), ["local.get", "call", "unreachable", "end"].map(idOf));
  assert.equal(codeSize(body), callSiteBytes({ callee: 3, args: [2], stores: [], exit: "trap" }, true) + 1);
  // a dropped result costs one byte, a stored one its local.set
  assert.equal(callSiteBytes({ callee: 200, args: [], stores: [-1, 300], exit: "none" }, false), 1 + 2 + 1 + 3);
});

test("typed references keep their exact types: ref.func moved out returns (ref $t), a local stays (ref null $t)", async () => {
  const input = await parse(`(module
    (type $t (func (param i32) (result i32)))
    (func $sq (type $t) local.get 0 local.get 0 i32.mul)
    (elem declare func $sq)
    (func (export "h") (param i32) (result i32)
      local.get 0
      ref.func $sq
      call_ref $t))`);
  const m = readModule(input, { decodeBodies: true });
  const exact = refType(0, false);
  const nullable = refType(0, true);
  extract(m, {
    pos: 1, from: 1, to: 2, stackParams: 0, rename: (x) => x,
    outLocals: [], params: [], results: [exact], internal: [nullable],
    site: { args: [], stores: [], exit: "none" }, tailCalls: false,
  });
  const out = readModule(writeModule(m), { decodeBodies: true });
  validateModule(out);
  const added = out.functions[2]!;
  const type = out.types[added.typeIndex]!.composite;
  assert.ok(type.kind === "func");
  assert.deepEqual(type.results, [exact]);
  assert.deepEqual(added.locals, [{ count: 1, type: nullable }]);
});

test("groupLocals shares a declaration between neighbours of one type only", () => {
  assert.deepEqual(groupLocals([I32, I32, refType(0, true), I32]), [{ count: 2, type: I32 }, { count: 1, type: refType(0, true) }, { count: 1, type: I32 }]);
  assert.deepEqual(groupLocals([]), []);
});

test("SignaturePlan: an existing type is reused, a new one is paid for once and numbered after those planned", async () => {
  const m = readModule(await parse(`(module (func (param i32) (result i32) local.get 0))`), { decodeBodies: true });
  const sigs = new SignaturePlan(m);
  assert.equal(sigs.find([I32], [I32]), 0);
  assert.equal(sigs.find([], [I32]), -1);
  // existing type: index byte + size prefix + entry
  assert.equal(sigs.functionBytes([I32], [I32], 10, 0), 1 + 1 + 10);
  // new type () -> (i32): 4 bytes the first time
  assert.equal(sigs.functionBytes([], [I32], 10, 5), 4 + 1 + 1 + 10 + 5);
  sigs.plan([], [I32]);
  assert.equal(sigs.functionBytes([], [I32], 10, 0), 1 + 1 + 10);
});

test("trialCopy and replaceBody: a trial never changes the module it was copied from", async () => {
  const m = readModule(await parse(`(module (func (result i32) i32.const 1) (func (result i32) i32.const 2))`), { decodeBodies: true });
  const orig = m.functions[0]!;
  const origBody = orig.body!;
  const t = trialCopy(m);
  const other = m.functions[1]!.body!;
  replaceBody(t, 0, other, true, []);
  addFunction(t, { params: [], results: [I32], locals: [], body: other }, { trial: true, name: "x" });
  assert.equal(m.functions[0], orig);
  assert.equal(orig.body, origBody);
  assert.equal(m.functions.length, 2);
  assert.equal(t.functions.length, 3);
  assert.equal(t.functions[0]!.body, other);
  replaceBody(m, 0, other, false);
  assert.equal(m.functions[0], orig, "the real module's Func is updated in place");
  assert.equal(orig.body, other);
  assert.ok(orig.dirty);
});

/** A stand-in judge: a module is better when it is shorter. */
const shorter = { better: (a: Uint8Array, b: Uint8Array) => b.length < a.length, prefetch: () => {} } as unknown as SizeJudge;
/** Each item adds its value in bytes to a 100-byte module. */
const writeSum = (taken: readonly number[], batch: readonly number[]) => new Uint8Array(100 + [...taken, ...batch].reduce((s, x) => s + x, 0));

test("judgeInHalves takes every batch the judge accepts and bisects the refused ones in order", () => {
  const items = [-3, -2, 9, -1, -4, 9, -2, -1];
  const r = judgeInHalves(items, { judge: shorter, budget: 100, before: new Uint8Array(100), write: writeSum });
  assert.deepEqual(r.accepted, [-3, -2, -1, -4, -2, -1]);
  assert.equal(r.refused, 2);
  // a budget of one: only the whole batch is judged, and refused
  const one = judgeInHalves(items, { judge: shorter, budget: 1, before: new Uint8Array(100), write: writeSum });
  assert.deepEqual(one, { accepted: [], used: 1, refused: items.length });
});

test("judgeInHalves refuses unjudged a batch whose planned saving is below MIN_JUDGED_SHARE of the module", () => {
  // a 100,000-byte module: a batch must plan to save at least 20 bytes
  const big = new Uint8Array(100_000);
  const write = (taken: readonly number[], batch: readonly number[]) => new Uint8Array(100_000 + [...taken, ...batch].reduce((s, x) => s + x, 0));
  const written: number[][] = [];
  const items = [-30, 60, -12, -6];
  const r = judgeInHalves(items, {
    judge: shorter, budget: 100, before: big,
    write: (t, b) => {
      written.push([...b]);
      return write(t, b);
    },
    // planned savings 30, 0, 12 and 6 (the second item grows the module)
    benefit: (x) => Math.max(0, -x),
  });
  assert.equal(MIN_JUDGED_SHARE * big.length, 20);
  // the whole batch (48 planned) and [-30, 60] (30) are refused, [-30] is
  // taken; [60] (0) and [-12, -6] (18) are below 20: never written, not even ahead
  assert.deepEqual(written, [[-30, 60, -12, -6], [-30, 60], [-30]]);
  assert.deepEqual(r, { accepted: [-30], used: 3, refused: 3 });
  // without planned savings every batch is judged
  const all = judgeInHalves(items, { judge: shorter, budget: 100, before: big, write });
  assert.deepEqual(all, { accepted: [-30, -12, -6], used: 5, refused: 1 });
});

test("judgeInHalves writes a refused batch's second half ahead only where the judge measures in the background", () => {
  const items = [9, -1, -2, 9];
  const run = (measuresAhead: boolean, budget: number): number[][] => {
    const written: number[][] = [];
    const judge = { ...shorter, better: shorter.better, prefetch: () => {}, measuresAhead } as unknown as SizeJudge;
    judgeInHalves(items, {
      judge, budget, before: new Uint8Array(100),
      write: (t, b) => {
        written.push([...b]);
        return writeSum(t, b);
      },
    });
    return written;
  };
  // the whole batch is refused and [-2, 9] written ahead; then [9, -1] and [9] are judged and refused
  assert.deepEqual(run(true, 3), [[9, -1, -2, 9], [-2, 9], [9, -1], [9]]);
  // measured in the foreground, [-2, 9] waits for its turn, which a budget of 3 never gives it
  assert.deepEqual(run(false, 3), [[9, -1, -2, 9], [9, -1], [9]]);
  // with budget for it, the foreground writes each batch once, at its turn
  assert.deepEqual(run(false, 100), [[9, -1, -2, 9], [9, -1], [9], [-1], [-2, 9], [-2], [9]]);
});

test("judgeInHalves with replan: halves are planned again when their turn comes; only planned batches are released", () => {
  const replanned: number[][] = [];
  const released: number[][] = [];
  const taken: number[][] = [];
  const r = judgeInHalves([-1, 9, -2, -3], {
    judge: shorter, budget: 3, before: new Uint8Array(100),
    write: (_t, batch) => writeSum([], batch), // taken items are applied by onTaken, as merge-functions does
    replan: (half) => {
      replanned.push([...half]);
      return half.filter((x) => x !== -3); // -3 no longer pays once something was taken
    },
    onTaken: (b) => taken.push([...b]),
    onRefused: (b) => released.push([...b]),
  });
  // whole batch refused; [-1, 9] replanned and refused; [-1] replanned and taken (budget 3 used); [9] and [-2, -3] left unplanned
  assert.deepEqual(replanned, [[-1, 9], [-1]]);
  assert.deepEqual(taken, [[-1]]);
  assert.deepEqual(released, [[-1, 9, -2, -3], [-1, 9]]);
  assert.deepEqual(r.accepted, [-1]);
  assert.equal(r.used, 3);
});

test("judgementBudget: one table, per pass, shrinking with the module", () => {
  assert.deepEqual([1000, 300 << 10, 5 << 20].map((n) => judgementBudget("outline", n)), [24, 8, 3]);
  assert.deepEqual([1000, 200 << 10, 3 << 20].map((n) => judgementBudget("fold-blocks", n)), [16, 8, 3]);
  assert.deepEqual([1000, 300 << 10, 5 << 20].map((n) => judgementBudget("merge-functions", n)), [7, 3, 1]);
});

test("judgementBudget shrinks where most of the module is what the estimates leave out (data)", async () => {
  // one function and `data` bytes of data; the estimates see the module without its data section
  const mod = async (data: number): Promise<Uint8Array> =>
    await parse(`(module (memory 1) ${"(func (result i32) i32.const 1 i32.const 2 i32.add)".repeat(40)} (data (i32.const 0) "${"a".repeat(data)}"))`);
  const seen = estimateView(await mod(0)).length;
  const whole = (b: Uint8Array): number => b.length / estimateView(b).length;
  // up to 1.5 times what the estimates see: the table's budget (24 below 256 KiB)
  assert.equal(judgementBudget("outline", await mod(0)), 24);
  const under = await mod(Math.floor(seen * 0.3));
  assert.ok(whole(under) < 1.5);
  assert.equal(judgementBudget("outline", under), 24);
  // three times: half of 1.5 / 3 of it
  const three = await mod(seen * 2 - 8);
  assert.ok(Math.abs(whole(three) - 3) < 0.1, `${whole(three)}`);
  assert.equal(judgementBudget("outline", three), 12);
  assert.equal(judgementBudget("fold-blocks", three), 8);
  // never below one
  assert.equal(judgementBudget("outline", await mod(seen * 100)), 1);
  // a length alone is taken as all code
  assert.equal(judgementBudget("outline", three.length), 24);
  // bytes the result ships with besides the module (debug info set aside) count as unseen too
  const bare = await mod(0);
  assert.equal(judgementBudget("outline", bare, 0), 24);
  assert.equal(judgementBudget("outline", bare, Math.floor(bare.length * 0.3)), 24);
  assert.equal(judgementBudget("outline", bare, bare.length * 2), 12);
});

test("trials judged on estimates are written as their estimate view, byte for byte, with the whole length kept", async () => {
  // data of every kind (active on memory 0, passive, on another memory), custom sections in three places, a name section
  const wasm = await parse(`(module
    (memory 1) (memory $m2 1)
    (func $f (export "f") (result i32) i32.const 1 i32.const 2 i32.add)
    (data (i32.const 8) "${"x".repeat(300)}")
    (data "passive bytes")
    (data (memory $m2) (i32.const 0) "on the second memory")
    (@custom "before-all" (before first) "one")
    (@custom "after-code" (after code) "${"z".repeat(200)}")
    (@custom "after-data" (after data) "three"))`);
  const m = readModule(wasm);
  const whole = writeModule(m);
  assert.ok(m.customs.some((c) => c.name === "name") && m.data.length === 3);
  const view = writeModule(m, { estimateView: true });
  assert.deepEqual(view, estimateView(whole), "the writer's view is estimateView of the whole write");
  assert.ok(view.length < whole.length - 500);
  assert.equal(estimateViewLeftOut(m), whole.length - view.length);
  // a judge on estimates gets the view, marked as one; a real judge the whole module
  const estimator = new SizeJudge("balanced", { gzip: (b) => b.length, brotli: (b) => b.length, brotliEstimate: (b) => b.length }).estimator()!;
  const trial = writeTrial(trialCopy(m), estimator);
  assert.deepEqual(trial, view);
  assert.equal(estimateView(trial), trial, "its view is itself");
  assert.equal(wholeLength(trial), whole.length);
  assert.equal(wholePerView(trial), wholePerView(whole));
  assert.equal(judgementBudget("outline", trial), judgementBudget("outline", whole));
  // the tiers go by the whole length too: a 250 KiB view of a 300 KiB module is in the medium one, as the module is
  const medium = asEstimateView(new Uint8Array(250 << 10), 300 << 10);
  assert.equal(judgementBudget("outline", medium), judgementBudget("outline", 300 << 10));
  assert.equal(judgementBudget("outline", medium, 100 << 10), Math.round((8 * 1.5) / ((300 / 250) * (1 + 100 / 300))));
  const real = new SizeJudge("balanced", { gzip: (b) => b.length, brotli: (b) => b.length });
  assert.deepEqual(writeTrial(trialCopy(m), real), whole);
  // the estimator measures a view once, given the whole module (the pass runner's check) or the view written on its own (a trial)
  const runs = { gzip: 0, estimate: 0 };
  const counting = new SizeJudge("balanced", { gzip: (b) => (runs.gzip++, b.length), brotli: (b) => b.length, brotliEstimate: (b) => (runs.estimate++, b.length) }).estimator()!;
  counting.measureAll(writeTrial(trialCopy(m), counting));
  counting.measureAll(writeModule(m));
  counting.measureAll(writeTrial(trialCopy(m), counting));
  assert.deepEqual(runs, { gzip: 1, estimate: 1 });
});

test("judgeInHalves: the floor on what a batch must save scales with the whole module, also for a view", () => {
  // a 1000-byte view of a 100,000-byte module: a batch saving 10 bytes is below MIN_JUDGED_SHARE of the whole
  const base = asEstimateView(new Uint8Array(1000), 100_000);
  assert.ok(10 < MIN_JUDGED_SHARE * 100_000 && 10 > MIN_JUDGED_SHARE * 1000);
  let judged = 0;
  const judge = { better: () => (judged++, true), prefetch: () => {}, measuresAhead: false } as unknown as SizeJudge;
  const r = judgeInHalves([10], { judge, budget: 5, before: base, write: () => new Uint8Array(990), benefit: (x) => x });
  assert.equal(judged, 0, "refused unjudged");
  assert.deepEqual(r.accepted, []);
});
