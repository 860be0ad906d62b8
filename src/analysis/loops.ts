// The natural loops of a body's CFG and how they nest. A back edge is an
// edge u -> h where h dominates u; the natural loop of h is h and every
// block that reaches a back edge's source without passing h. Loops with the
// same header are one loop. Cached per Body.
//
// Found as LLVM's LoopInfo finds them: headers from the innermost out (in
// postorder), walking backwards from the back edges; a block already in an
// inner loop stands for that whole loop, which becomes a child.
//
// On wasm's structured code (always reducible) each natural loop's header
// is the block of a `loop` instruction that some branch inside it targets,
// and its body lies inside that structured loop. The two forests differ in
// what they leave out: a structured loop nothing branches back to is no
// natural loop, and code after the last branch back (the way out) is not in
// the natural loop, so a structured loop placed there has an outer natural
// loop further out (see ControlTree.loops for the structured forest).

import type { Body } from "../ir/body.js";
import { cfgOf, type Cfg } from "./cfg.js";
import { dominatorTree, type DomTree } from "./dominators.js";

export class LoopForest {
  /** Number of natural loops. Loops are numbered by their header's position in reverse postorder: a parent before its children. */
  readonly count: number;
  /** Per loop: its header block. */
  readonly header: Int32Array;
  /** Per loop: the innermost loop around it, -1 for an outermost one. */
  readonly parent: Int32Array;
  /** Per loop: 1 for an outermost loop, 2 inside one, ... */
  readonly depth: Int32Array;
  /** Per CFG node: the innermost loop holding it, -1 if none. */
  readonly loopOf: Int32Array;

  constructor(g: Cfg, dom: DomTree) {
    const nodes = g.count + 1;
    const loopOf = new Int32Array(nodes).fill(-1);
    const headers: number[] = [];
    const parents: number[] = [];
    const work: number[] = [];
    const outermost = (x: number): number => {
      while (parents[x]! >= 0) x = parents[x]!;
      return x;
    };
    for (let k = g.rpo.length - 1; k >= 0; k--) {
      const h = g.rpo[k]!;
      for (let e = g.predStart[h]!; e < g.predStart[h + 1]!; e++) {
        const u = g.pred[e]!;
        if (dom.dominates(h, u)) work.push(u);
      }
      if (work.length === 0) continue;
      const L = headers.length;
      headers.push(h);
      parents.push(-1);
      loopOf[h] = L;
      while (work.length > 0) {
        const b = work.pop()!;
        const x = loopOf[b]!;
        if (x < 0) {
          loopOf[b] = L;
          for (let e = g.predStart[b]!; e < g.predStart[b + 1]!; e++) if (g.reachable(g.pred[e]!)) work.push(g.pred[e]!);
          continue;
        }
        const sub = outermost(x);
        if (sub === L) continue;
        parents[sub] = L;
        // go on from where the inner loop is entered
        const sh = headers[sub]!;
        for (let e = g.predStart[sh]!; e < g.predStart[sh + 1]!; e++) {
          const p = g.pred[e]!;
          if (g.reachable(p) && !dom.dominates(sh, p)) work.push(p);
        }
      }
    }
    // number loops by header in reverse postorder
    const n = headers.length;
    const byRpo = Array.from({ length: n }, (_, l) => l).sort((a, b) => g.rpoIndex[headers[a]!]! - g.rpoIndex[headers[b]!]!);
    const renum = new Int32Array(n);
    byRpo.forEach((l, k) => (renum[l] = k));
    this.count = n;
    this.header = new Int32Array(n);
    this.parent = new Int32Array(n);
    this.depth = new Int32Array(n);
    for (let k = 0; k < n; k++) {
      const l = byRpo[k]!;
      this.header[k] = headers[l]!;
      const p = parents[l]!;
      this.parent[k] = p < 0 ? -1 : renum[p]!;
      this.depth[k] = p < 0 ? 1 : this.depth[renum[p]!]! + 1;
    }
    for (let v = 0; v < nodes; v++) if (loopOf[v]! >= 0) loopOf[v] = renum[loopOf[v]!]!;
    this.loopOf = loopOf;
  }

  /** Loop l holds node v (directly or in a loop inside it). */
  contains(l: number, v: number): boolean {
    let x = this.loopOf[v]!;
    while (x >= 0 && this.depth[x]! > this.depth[l]!) x = this.parent[x]!;
    return x === l;
  }
}

const cache = new WeakMap<Body, LoopForest>();

/** The natural loop forest of `body` (computed once per Body). */
export function loopForest(body: Body): LoopForest {
  let f = cache.get(body);
  if (!f) cache.set(body, (f = new LoopForest(cfgOf(body), dominatorTree(body))));
  return f;
}
