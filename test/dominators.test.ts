// Dominators, post-dominators (analysis/dominators.ts) and natural loops
// (analysis/loops.ts): hand-written bodies, and on random ones the trees
// against the iterative set definition (Dom(v) = {v} ∪ ⋂ Dom(p) over
// predecessors) and the loops against back edges found from those sets,
// and against the structured loops of the control tree.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import type { Body } from "../src/ir/body.js";
import { cfgOf, type Cfg } from "../src/analysis/cfg.js";
import { dominatorTree, instrDominates, instrPostDominates, postDominatorTree, type DomTree } from "../src/analysis/dominators.js";
import { loopForest } from "../src/analysis/loops.js";
import { controlTree } from "../src/analysis/control-tree.js";
import { randomBodies } from "./control-gen.js";

async function bodyOf(wat: string, k = 0): Promise<Body> {
  const m = readModule(await parse(wat), { decodeBodies: true });
  return m.functions[k]!.body!;
}

const at = (b: Body, name: string, nth = 0): number => {
  let seen = 0;
  for (let i = 0; i < b.count; i++) if (OPS[b.ops[i]!]!.name === name && seen++ === nth) return i;
  throw new Error(`no ${name} #${nth}`);
};

test("dominators: an if/else diamond", async () => {
  const b = await bodyOf(`(module (func (param i32) (result i32)
    (local.get 0)
    (if (result i32) (then (i32.const 1)) (else (i32.const 2)))
    (i32.const 3) (i32.add)))`);
  const g = cfgOf(b);
  const dom = dominatorTree(b);
  const pdom = postDominatorTree(b);
  const blk = (i: number): number => g.blockOf[i]!;
  const [iff, one, two, end] = [at(b, "if"), at(b, "i32.const"), at(b, "i32.const", 1), at(b, "end")];
  assert.equal(dom.idom[blk(one)], blk(iff));
  assert.equal(dom.idom[blk(two)], blk(iff));
  assert.equal(dom.idom[blk(end)], blk(iff), "the join's idom is the if, not an arm");
  assert.ok(!dom.dominates(blk(one), blk(end)));
  assert.equal(dom.idom[g.entry], -1);
  assert.equal(pdom.idom[blk(iff)], blk(end));
  assert.ok(pdom.dominates(blk(end), blk(one)) && !pdom.dominates(blk(one), blk(iff)));
  assert.equal(pdom.root, g.exit);
  assert.ok(instrDominates(b, 0, b.count - 1));
  assert.ok(instrPostDominates(b, b.count - 1, 0));
  assert.ok(!instrDominates(b, one, two));
  assert.equal(dominatorTree(b), dom, "cached per body");
});

test("dominators: loops, an endless loop and unreachable code", async () => {
  const b = await bodyOf(`(module (func (param i32)
    (loop $l (br_if $l (local.get 0)) (nop))
    (if (local.get 0) (then (loop $forever (br $forever))))
    (return)
    (nop)))`);
  const g = cfgOf(b);
  const dom = dominatorTree(b);
  const pdom = postDominatorTree(b);
  const loop = g.blockOf[at(b, "loop")]!;
  const brIf = g.blockOf[at(b, "br_if")]!;
  assert.ok(dom.dominates(loop, brIf));
  assert.equal(pdom.idom[loop], g.blockOf[at(b, "local.get")]!);
  const forever = g.blockOf[at(b, "br")]!;
  assert.ok(dom.has(forever) && !pdom.has(forever), "an endless loop never reaches the exit");
  const dead = g.blockOf[at(b, "nop", 1)]!;
  assert.ok(!dom.has(dead) && !dom.dominates(g.entry, dead) && !dom.dominates(dead, dead));
});

test("natural loops: nesting, a loop nothing branches back to, code after the last back edge", async () => {
  const b = await bodyOf(`(module (func (param i32)
    (loop $a
      (loop $b (br_if $b (local.get 0)))
      (br_if $a (local.get 0))
      (loop $c (br_if $c (local.get 0))))
    (loop $once (nop))))`);
  const g = cfgOf(b);
  const lf = loopForest(b);
  const hdr = (nth: number): number => g.blockOf[at(b, "loop", nth)]!;
  assert.deepEqual([...lf.header], [hdr(0), hdr(1), hdr(2)], "$once never repeats: no natural loop");
  assert.deepEqual([...lf.parent], [-1, 0, -1], "$c follows $a's last back edge: not inside $a's natural loop");
  assert.deepEqual([...lf.depth], [1, 2, 1]);
  assert.equal(lf.loopOf[g.blockOf[at(b, "br_if")]!], 1);
  assert.ok(lf.contains(0, g.blockOf[at(b, "br_if")]!));
  assert.ok(!lf.contains(1, g.blockOf[at(b, "br_if", 1)]!));
  const t = controlTree(b);
  assert.deepEqual([...t.loops].map((c) => t.loopParent(c)), [-1, t.loops[0], t.loops[0], -1], "the structured forest keeps $c in $a");
});

/** Dominator sets by the iterative definition, over the nodes `root` reaches along `edgesIn`'s reverse. */
function domSets(nodes: number, root: number, edgesIn: (v: number) => Iterable<number>, reached: Set<number>): Map<number, Set<number>> {
  const all = [...reached];
  const dom = new Map<number, Set<number>>();
  for (const v of all) dom.set(v, v === root ? new Set([v]) : new Set(all));
  let changed = true;
  while (changed) {
    changed = false;
    for (const v of all) {
      if (v === root) continue;
      const ins = [...edgesIn(v)].filter((p) => reached.has(p)).map((p) => dom.get(p)!);
      const next = new Set(ins.length ? [...ins[0]!].filter((x) => ins.every((d) => d.has(x))) : []);
      next.add(v);
      if (next.size !== dom.get(v)!.size) {
        dom.set(v, next);
        changed = true;
      }
    }
  }
  void nodes;
  return dom;
}

function reachedFrom(root: number, edgesOut: (v: number) => Iterable<number>): Set<number> {
  const seen = new Set([root]);
  const work = [root];
  while (work.length) for (const w of edgesOut(work.pop()!)) if (!seen.has(w)) (seen.add(w), work.push(w));
  return seen;
}

function checkTree(t: DomTree, sets: Map<number, Set<number>>, nodes: number, root: number): void {
  for (let v = 0; v < nodes; v++) {
    const d = sets.get(v);
    assert.equal(t.has(v), d !== undefined);
    if (!d) {
      assert.equal(t.idom[v], -1);
      continue;
    }
    for (let a = 0; a < nodes; a++) assert.equal(t.dominates(a, v), d.has(a), `${a} dom ${v}`);
    // the immediate dominator: the strict dominator every other strict dominator dominates
    if (v === root) assert.equal(t.idom[v], -1);
    else {
      const strict = [...d].filter((a) => a !== v);
      const idom = strict.find((a) => strict.every((x) => sets.get(a)!.has(x)));
      assert.equal(t.idom[v], idom);
    }
  }
}

test("dominators and post-dominators: random bodies against the iterative set definition", () => {
  let pairs = 0;
  for (const b of randomBodies(0xd0d0, 300)) {
    const g = cfgOf(b);
    const nodes = g.count + 1;
    const fwd = reachedFrom(g.entry, (v) => g.successors(v));
    checkTree(dominatorTree(b), domSets(nodes, g.entry, (v) => g.predecessors(v), fwd), nodes, g.entry);
    const back = reachedFrom(g.exit, (v) => g.predecessors(v));
    checkTree(postDominatorTree(b), domSets(nodes, g.exit, (v) => g.successors(v), back), nodes, g.exit);
    pairs += nodes * nodes;
  }
  assert.ok(pairs > 50000, `pairs checked: ${pairs}`);
});

/** Natural loops by definition: header -> body, from the back edges the dominator sets give. */
function refLoops(g: Cfg, sets: Map<number, Set<number>>): Map<number, Set<number>> {
  const loops = new Map<number, Set<number>>();
  for (const [u, du] of sets) {
    for (const h of g.successors(u)) {
      if (!du.has(h)) continue;
      let body = loops.get(h);
      if (!body) loops.set(h, (body = new Set([h])));
      const work = [u];
      while (work.length) {
        const x = work.pop()!;
        if (body.has(x)) continue;
        body.add(x);
        for (const p of g.predecessors(x)) if (sets.has(p)) work.push(p);
      }
    }
  }
  return loops;
}

test("natural loops: random bodies against the definition and the structured loops", () => {
  let loops = 0;
  for (const b of randomBodies(0x100b, 600)) {
    const g = cfgOf(b);
    const nodes = g.count + 1;
    const sets = domSets(nodes, g.entry, (v) => g.predecessors(v), reachedFrom(g.entry, (v) => g.successors(v)));
    const ref = refLoops(g, sets);
    const lf = loopForest(b);
    assert.deepEqual([...lf.header].sort((x, y) => x - y), [...ref.keys()].sort((x, y) => x - y));
    const bodyOfLoop = (l: number): Set<number> => ref.get(lf.header[l]!)!;
    for (let v = 0; v < nodes; v++) {
      // innermost: the smallest loop body holding v
      const holding = [...Array(lf.count).keys()].filter((l) => bodyOfLoop(l).has(v));
      const inner = holding.sort((x, y) => bodyOfLoop(x).size - bodyOfLoop(y).size)[0] ?? -1;
      assert.equal(lf.loopOf[v], inner, `loop of ${v}`);
      for (let l = 0; l < lf.count; l++) assert.equal(lf.contains(l, v), bodyOfLoop(l).has(v));
    }
    const t = controlTree(b);
    for (let l = 0; l < lf.count; l++) {
      const p = lf.parent[l]!;
      if (p >= 0) {
        assert.ok(p < l, "parents come first");
        assert.ok([...bodyOfLoop(l)].every((v) => bodyOfLoop(p).has(v)) && bodyOfLoop(p).size > bodyOfLoop(l).size);
      }
      // the header is a structured loop's `loop`; the body lies inside it; the parent is a structured ancestor
      const s = g.first(lf.header[l]!);
      const c = t.constructOf[s]!;
      assert.ok(t.isLoop(c) && t.start[c] === s);
      for (const v of bodyOfLoop(l)) assert.ok(v < g.count && g.first(v) >= s && g.last(v) <= t.end[c]!);
      if (p >= 0) {
        let a = t.parent[c]!;
        const pc = t.constructOf[g.first(lf.header[p]!)]!;
        while (a >= 0 && a !== pc) a = t.parent[a]!;
        assert.equal(a, pc);
      }
      loops++;
    }
    // every structured loop some reachable branch inside it goes back to is a natural loop
    for (const c of t.loops) {
      const h = g.blockOf[t.start[c]!]!;
      const back = [...g.predecessors(h)].some((u) => g.reachable(u) && g.first(u) > t.start[c]! && g.last(u) < t.end[c]!);
      assert.equal(lf.header.includes(h), back);
    }
  }
  assert.ok(loops > 100, `loops checked: ${loops}`);
});
