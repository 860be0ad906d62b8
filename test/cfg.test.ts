// The CFG (analysis/cfg.ts): blocks, edges, reverse postorder; on
// hand-written bodies and, on random ones, every block's successors against
// the semantics instruction by instruction, and reachability against a
// brute-force search over instructions.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import type { Body } from "../src/ir/body.js";
import { cfgOf, type Cfg } from "../src/analysis/cfg.js";
import { randomBodies, refCallInTry, refSucc } from "./control-gen.js";

async function bodyOf(wat: string, k = 0): Promise<Body> {
  const m = readModule(await parse(wat), { decodeBodies: true });
  return m.functions[k]!.body!;
}

/** Each block as "first-last:op..>succ,succ" (x = exit). */
function show(g: Cfg): string[] {
  const out: string[] = [];
  for (let v = 0; v < g.count; v++) {
    const ops = [];
    for (let i = g.first(v); i <= g.last(v); i++) ops.push(OPS[g.body.ops[i]!]!.name);
    const s = [...g.successors(v)].map((w) => (w === g.exit ? "x" : String(w)));
    out.push(`${v}:${ops.join(" ")}>${s.join(",")}`);
  }
  return out;
}

test("cfg: straight-line code is one block; the final end goes to the exit", async () => {
  const g = cfgOf(await bodyOf(`(module (func (result i32) (i32.add (i32.const 1) (i32.const 2))))`));
  assert.deepEqual(show(g), ["0:i32.const i32.const i32.add>1", "1:end>x"]);
  assert.equal(g.exit, 2);
  assert.deepEqual([...g.rpo], [0, 1, 2]);
  assert.deepEqual([...g.predecessors(g.exit)], [1]);
});

test("cfg: if with and without else, loop back edges, br_table", async () => {
  const g = cfgOf(await bodyOf(`(module (func (param i32)
    (if (local.get 0) (then nop) (else nop))
    (if (local.get 0) (then nop))
    (loop $l (br_if $l (local.get 0)))
    (block (block (br_table 0 1 0 (local.get 0))))))`));
  assert.deepEqual(show(g), [
    "0:local.get>1",
    "1:if>2,4", // then arm; the instruction after else
    "2:nop>3",
    "3:else>5", // the then arm goes on to the end
    "4:nop>5",
    "5:end>6",
    "6:local.get>7",
    "7:if>8,9", // no else: to the end
    "8:nop>9",
    "9:end>10",
    "10:loop>11",
    "11:local.get>12",
    "12:br_if>10,13", // back to the loop instruction
    "13:end>14",
    "14:block>15",
    "15:block>16",
    "16:local.get>17",
    "17:br_table>18,19", // duplicates once
    "18:end>19",
    "19:end>20",
    "20:end>x",
  ]);
  assert.deepEqual([...g.predecessors(10)], [9, 12]);
  assert.deepEqual([...g.predecessors(19)], [17, 18]);
});

test("cfg: code after return, br and unreachable is unreachable; a branch to the function label exits", async () => {
  const g = cfgOf(await bodyOf(`(module (func (param i32) (result i32)
    (block (br 0) (drop (i32.const 9)))
    (if (local.get 0) (then (br 1 (i32.const 1))))
    (return (i32.const 2))
    (unreachable)))`));
  const dead = [];
  for (let v = 0; v < g.count; v++) if (!g.reachable(v)) dead.push(show(g)[v]);
  assert.deepEqual(dead, ["2:i32.const drop>3", "11:unreachable>x", "12:end>x"]);
  const br1 = g.blockOf[8]!;
  assert.equal(OPS[g.body.ops[g.first(br1)]!]!.name, "br");
  assert.deepEqual([...g.successors(br1)], [g.exit]);
  assert.ok(g.reachable(g.exit));
});

test("cfg: exceptions: calls in a try body end their block and reach every handler; delegate and try_table", async () => {
  const b = await bodyOf(`(module (tag $e) (func
    (call 0)
    block $b
      try
        (call 0)
        try throw $e delegate 1
        nop
      catch $e
        (call 0)
      catch_all
        (rethrow 0)
      end
      (try_table (catch $e $b) (call 0))
    end))`);
  const g = cfgOf(b);
  assert.deepEqual(show(g), [
    "0:call>1", // outside any try: part of its run
    "1:block>2",
    "2:try>3",
    "3:call>4,9,11", // next, the catch $e handler, the catch_all handler
    "4:try>5",
    "5:throw>x", // delegate 1 names block $b: no try there, the exception leaves
    "6:delegate>7",
    "7:nop>8",
    "8:catch>12", // the body that reaches catch goes on to the end
    "9:call>10", // in a handler, not in the body: not its own block
    "10:catch_all>12",
    "11:rethrow>x",
    "12:end>13",
    "13:try_table>14",
    "14:call>15,16", // the catch goes to block $b's end
    "15:end>16",
    "16:end>17",
    "17:end>x",
  ]);
});

/** Nodes reachable from `from` along the successor lists, `from` included. */
function reach(g: Cfg, from: number): Set<number> {
  const seen = new Set([from]);
  const work = [from];
  while (work.length) for (const w of g.successors(work.pop()!)) if (!seen.has(w)) (seen.add(w), work.push(w));
  return seen;
}

test("cfg: random bodies: blocks, edges and reachability against the semantics", () => {
  const bodies = randomBodies(0x5eed, 300);
  let edges = 0;
  for (const b of bodies) {
    const g = cfgOf(b);
    const n = b.count;
    const next = Array.from({ length: n }, (_, i) => refSucc(b, i));
    // blocks: control instructions alone, runs of others between them
    const control = (i: number): boolean => {
      const d = OPS[b.ops[i]!]!;
      return d.name === "unreachable" || (d.effects & (16 | 16384)) !== 0 || refCallInTry(b, i);
    };
    const leaders: number[] = [];
    for (let i = 0; i < n; i++) if (i === 0 || control(i) || control(i - 1)) leaders.push(i);
    assert.deepEqual([...g.blockStart.subarray(0, g.count)], leaders);
    assert.equal(g.blockStart[g.count], n);
    for (let i = 0; i < n; i++) assert.ok(g.first(g.blockOf[i]!) <= i && i <= g.last(g.blockOf[i]!));
    // each block's successors are where its last instruction may go
    const blockOrExit = (x: number): number => (x < 0 ? g.exit : g.blockOf[x]!);
    for (let v = 0; v < g.count; v++) {
      const want = [...new Set(next[g.last(v)]!.map(blockOrExit))];
      assert.deepEqual([...g.successors(v)].sort((x, y) => x - y), want.sort((x, y) => x - y), `successors of ${v}`);
      edges += want.length;
    }
    assert.equal(g.successors(g.exit).length, 0);
    // predecessors mirror successors
    for (let v = 0; v <= g.count; v++) {
      for (const p of g.predecessors(v)) assert.ok(g.successors(p).includes(v));
      for (const s of g.successors(v)) assert.ok(g.predecessors(s).includes(v));
    }
    // reachability: from every block, against a search over instructions
    for (let v = 0; v < g.count; v++) {
      const seen = new Set<number>([g.first(v)]);
      const work = [g.first(v)];
      let exits = false;
      while (work.length) {
        for (const j of next[work.pop()!]!) {
          if (j < 0) exits = true;
          else if (!seen.has(j)) (seen.add(j), work.push(j));
        }
      }
      const want = new Set([...seen].map((j) => g.blockOf[j]!));
      if (exits) want.add(g.exit);
      assert.deepEqual([...reach(g, v)].sort((x, y) => x - y), [...want].sort((x, y) => x - y), `reach from ${v}`);
    }
    // reverse postorder: the entry first, every reachable node once, after one of its predecessors
    const fromEntry = reach(g, g.entry);
    assert.equal(g.rpo[0], g.entry);
    assert.deepEqual([...g.rpo].sort((x, y) => x - y), [...fromEntry].sort((x, y) => x - y));
    for (let v = 0; v <= g.count; v++) {
      assert.equal(g.reachable(v), fromEntry.has(v));
      if (v !== g.entry && g.reachable(v)) assert.ok([...g.predecessors(v)].some((p) => g.rpoIndex[p]! < g.rpoIndex[v]!));
    }
  }
  assert.ok(edges > 5000, `edges checked: ${edges}`);
});
