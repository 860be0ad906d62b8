// The control tree (analysis/control-tree.ts): constructs, their arms and
// ends, what each instruction belongs to, what labels name, the structured
// loop forest; on hand-written bodies and against plain scans on random ones.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { OPS, idOf } from "../src/binary/opcodes/index.js";
import { BodyBuilder, type Body } from "../src/ir/body.js";
import { controlTree, FUNCTION } from "../src/analysis/control-tree.js";
import { randomBodies, refArms, refEnd, refLabel, refOpenAt } from "./control-gen.js";

async function bodyOf(wat: string, k = 0): Promise<Body> {
  const m = readModule(await parse(wat), { decodeBodies: true });
  return m.functions[k]!.body!;
}

const names = (b: Body): string[] => Array.from(b.ops, (op) => OPS[op]!.name);
const at = (b: Body, name: string, nth = 0): number => {
  let seen = 0;
  for (let i = 0; i < b.count; i++) if (OPS[b.ops[i]!]!.name === name && seen++ === nth) return i;
  throw new Error(`no ${name} #${nth}`);
};

test("control tree: nesting, arms, ends, parents and depths", async () => {
  const b = await bodyOf(`(module (func (param i32)
    (block (loop (if (local.get 0) (then nop) (else (br 2))) (br 0)))
    nop))`);
  assert.deepEqual(names(b), ["block", "loop", "local.get", "if", "nop", "else", "br", "end", "br", "end", "end", "nop", "end"]);
  const t = controlTree(b);
  assert.equal(t.count, 4);
  assert.deepEqual([...t.start], [-1, 0, 1, 3]);
  assert.deepEqual([...t.end], [12, 10, 9, 7]);
  assert.deepEqual([...t.parent], [-1, 0, 1, 2]);
  assert.deepEqual([...t.depth], [0, 1, 2, 3]);
  assert.deepEqual([...t.constructOf], [1, 2, 2, 3, 3, 3, 3, 3, 2, 2, 1, 0, 0]);
  assert.equal(t.firstArm(3), 5);
  assert.equal(t.firstArm(1), -1);
  assert.equal(t.enclosing(3), 2, "an if runs in its parent");
  assert.equal(t.enclosing(5), 3, "an else is inside its if");
  assert.equal(t.enclosing(12), -1, "the final end closes the function");
  assert.equal(t.depthAt(4), 3);
  assert.equal(t.depthAt(11), 0);
  assert.equal(controlTree(b), t, "cached per body");
});

test("control tree: labels name constructs; loops are branched to at their start", async () => {
  const b = await bodyOf(`(module (func (param i32)
    (block $out (loop $top
      (block $a (block $b (br_table $a $b $top $out 0 (local.get 0))))
      (br_if $top (local.get 0))))
    (br 0)))`);
  const t = controlTree(b);
  const bt = at(b, "br_table");
  // block $out = 1, loop $top = 2, block $a = 3, block $b = 4
  assert.deepEqual(t.targets(bt), [3, 4, 2, 1, 4]);
  assert.equal(t.target(bt, 5), -1, "out of range");
  assert.deepEqual(t.targets(at(b, "br_if")), [2]);
  assert.deepEqual(t.targets(at(b, "br")), [FUNCTION]);
  assert.ok(t.branchesToStart(2) && !t.branchesToStart(1));
  assert.equal(t.landing(2), t.start[2]);
  assert.equal(t.landing(3), t.end[3]);
  assert.equal(t.landing(FUNCTION), b.count - 1);
});

test("control tree: if without else, unreachable tails, armEnd", async () => {
  const b = await bodyOf(`(module (func (param i32) (result i32)
    (if (local.get 0) (then (return (i32.const 1)) nop (block nop) nop))
    (block (br 0) (i32.const 2) drop)
    (unreachable) (i32.const 3)))`);
  const t = controlTree(b);
  const ret = at(b, "return");
  const ifEnd = t.end[t.constructOf[at(b, "if")]!]!;
  assert.equal(t.firstArm(t.constructOf[at(b, "if")]!), -1);
  assert.equal(t.armEnd(ret), ifEnd, "dead code after return runs to the if's end, over the nested block");
  const br = at(b, "br");
  assert.equal(t.armEnd(br), br + 3);
  assert.equal(t.armEnd(at(b, "unreachable")), b.count - 1);
});

test("control tree: exception handling: try arms, delegate and try_table labels count from outside", async () => {
  const b = await bodyOf(`(module (tag $e) (func (param i32)
    block $b
      try
        (call 0 (i32.const 1))
        try throw $e delegate 1
      catch $e
        rethrow 0
      catch_all
      end
      (try_table (catch $e $b) (catch_all 0) nop)
    end))`);
  const t = controlTree(b);
  const tr = t.constructOf[at(b, "try")]!;
  assert.deepEqual([...t.arms.subarray(t.armStart[tr]!, t.armStart[tr + 1]!)], [at(b, "catch"), at(b, "catch_all")]);
  const inner = t.constructOf[at(b, "try", 1)]!;
  assert.equal(t.end[inner], at(b, "delegate"));
  assert.deepEqual(t.targets(at(b, "delegate")), [1], "delegate 1 from outside the inner try: block $b");
  assert.deepEqual(t.targets(at(b, "rethrow")), [tr]);
  const tt = at(b, "try_table");
  assert.deepEqual(t.targets(tt), [1, 1], "try_table catch labels skip the try_table itself");
  assert.ok(t.hasHandlers);
});

test("control tree: loop forest", async () => {
  const b = await bodyOf(`(module (func (param i32)
    (loop $a (block (loop $b nop) (loop $c (loop $d (br_if $d (local.get 0))))))
    (loop $e nop)))`);
  const t = controlTree(b);
  const [a, bb, c, d, e] = [...t.loops];
  assert.equal(t.loops.length, 5);
  assert.deepEqual([a, bb, c, d, e].map((l) => t.loopParent(l!)), [-1, a, a, c, -1]);
  assert.deepEqual([a, bb, c, d, e].map((l) => t.loopDepth[l!]), [1, 2, 2, 3, 1]);
  assert.equal(t.loopOf(at(b, "br_if")), d);
  assert.equal(t.loopOf(t.start[d]!), c, "a loop's own loop instruction is outside it");
  assert.equal(t.loopOf(t.end[d]!), c);
  assert.equal(t.loopOf(b.count - 2), -1);
});

test("control tree: unbalanced bodies are rejected", () => {
  const bb = new BodyBuilder();
  bb.begin(idOf("block"));
  bb.word(0x40);
  bb.begin(idOf("end"));
  assert.throws(() => controlTree(bb.finish()), /not closed/);
});

test("control tree: random bodies against plain scans", () => {
  const bodies = randomBodies(0xc0ffee, 400);
  let labels = 0;
  for (const b of bodies) {
    const t = controlTree(b);
    const opener = new Map<number, number>(); // instruction -> construct
    for (let c = 1; c < t.count; c++) opener.set(t.start[c]!, c);
    assert.equal(opener.size, t.count - 1);
    for (let c = 1; c < t.count; c++) {
      const s = t.start[c]!;
      assert.equal(t.end[c], refEnd(b, s));
      assert.deepEqual([...t.arms.subarray(t.armStart[c]!, t.armStart[c + 1]!)], refArms(b, s));
      const st = refOpenAt(b, s);
      assert.equal(t.parent[c], st.length ? opener.get(st[st.length - 1]!) : FUNCTION);
      assert.equal(t.depth[c], st.length + 1);
      const loops = st.filter((x) => OPS[b.ops[x]!]!.name === "loop");
      assert.equal(t.loopParent(c), loops.length ? opener.get(loops[loops.length - 1]!) : -1);
      assert.equal(t.loopDepth[c], loops.length + (t.isLoop(c) ? 1 : 0));
    }
    const toC = (s: number): number => (s === -1 ? FUNCTION : s === -2 ? -1 : opener.get(s)!);
    for (let i = 0; i < b.count; i++) {
      const st = refOpenAt(b, i);
      assert.equal(t.enclosing(i), i === b.count - 1 ? -1 : st.length ? opener.get(st[st.length - 1]!) : FUNCTION, `enclosing ${i}`);
      const inLoop = st.filter((x) => OPS[b.ops[x]!]!.name === "loop");
      assert.equal(t.loopOf(i), inLoop.length ? opener.get(inLoop[inLoop.length - 1]!) : -1);
      const name = OPS[b.ops[i]!]!.name;
      const w = b.immStart[i]!;
      // labels count from where the instruction runs (for try_table and delegate: outside their try)
      const from = st;
      let expect: number[] = [];
      if (name === "br_table") expect = Array.from({ length: b.imm[w]! + 1 }, (_, k) => b.imm[w + 1 + k]!);
      else if (name === "try_table") expect = Array.from({ length: b.imm[w + 1]! }, (_, k) => b.imm[w + 4 + 3 * k]!);
      else if (["br", "br_if", "br_on_null", "delegate", "rethrow"].includes(name)) expect = [b.imm[w]!];
      assert.deepEqual(t.targets(i), expect.map((l) => toC(refLabel(from, l))), `labels of ${name} at ${i}`);
      labels += expect.length;
      // dead code after an unconditional branch runs to the next boundary at the same depth
      if (["br", "return", "unreachable", "throw"].includes(name)) {
        let j = i + 1;
        for (let d = 0; ; j++) {
          const n = OPS[b.ops[j]!]!.name;
          if (d === 0 && ["end", "delegate", "else", "catch", "catch_all"].includes(n)) break;
          if (["block", "loop", "if", "try", "try_table"].includes(n)) d++;
          else if (n === "end" || n === "delegate") d--;
        }
        assert.equal(t.armEnd(i), j);
      }
    }
  }
  assert.ok(labels > 2000, `labels checked: ${labels}`);
});
