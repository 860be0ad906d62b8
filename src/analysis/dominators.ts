// Dominator and post-dominator trees over a body's CFG (analysis/cfg.ts),
// by Cooper, Harvey and Kennedy, "A Simple, Fast Dominance Algorithm"
// (2001): iterate idom(v) = the nearest common dominator of v's processed
// predecessors, in reverse postorder, until nothing changes. Dominance
// queries are O(1) through depth-first intervals on the tree. Cached per Body.
//
// The dominator tree is rooted at the entry block, the post-dominator tree
// at the virtual exit (along reversed edges; see cfg.ts for which ways out
// of a function are edges to the exit). Nodes the root does not reach
// (unreachable code; for post-dominance, blocks that cannot leave the
// function, such as an endless loop) are in neither tree: idom -1 and no
// dominance either way.

import type { Body } from "../ir/body.js";
import { cfgOf, reversePostorder, type Cfg } from "./cfg.js";

export class DomTree {
  /** Per node: immediate dominator, -1 for the root and for nodes not in the tree. */
  readonly idom: Int32Array;
  /** Children in the tree (CSR): children[childStart[v] .. childStart[v + 1]). */
  readonly childStart: Int32Array;
  readonly children: Int32Array;
  /** Per node: preorder number in the tree, and one past the last number in its subtree (-1 if not in the tree). */
  private readonly pre: Int32Array;
  private readonly past: Int32Array;

  constructor(readonly root: number, idom: Int32Array) {
    const n = idom.length;
    this.idom = idom;
    const childStart = new Int32Array(n + 1);
    for (let v = 0; v < n; v++) if (idom[v]! >= 0) childStart[idom[v]! + 1]!++;
    for (let v = 0; v < n; v++) childStart[v + 1]! += childStart[v]!;
    const children = new Int32Array(childStart[n]!);
    const at = childStart.slice(0, n);
    for (let v = 0; v < n; v++) if (idom[v]! >= 0) children[at[idom[v]!]!++] = v;
    this.childStart = childStart;
    this.children = children;
    // preorder numbers and subtree ends, without recursion
    const pre = new Int32Array(n).fill(-1);
    const past = new Int32Array(n).fill(-1);
    const stack = new Int32Array(n);
    const next = new Int32Array(n);
    let sp = 0;
    let num = 0;
    pre[root] = num++;
    next[root] = childStart[root]!;
    stack[sp++] = root;
    while (sp > 0) {
      const v = stack[sp - 1]!;
      if (next[v]! < childStart[v + 1]!) {
        const w = children[next[v]!++]!;
        pre[w] = num++;
        next[w] = childStart[w]!;
        stack[sp++] = w;
      } else {
        past[v] = num;
        sp--;
      }
    }
    this.pre = pre;
    this.past = past;
  }

  /** Node v is in the tree (the root reaches it). */
  has(v: number): boolean {
    return this.pre[v]! >= 0;
  }

  /** a dominates b (every node dominates itself); false if either is not in the tree. */
  dominates(a: number, b: number): boolean {
    const pa = this.pre[a]!;
    const pb = this.pre[b]!;
    return pa >= 0 && pb >= 0 && pa <= pb && pb < this.past[a]!;
  }

  strictlyDominates(a: number, b: number): boolean {
    return a !== b && this.dominates(a, b);
  }

  childrenOf(v: number): Int32Array {
    return this.children.subarray(this.childStart[v]!, this.childStart[v + 1]!);
  }
}

/**
 * Cooper–Harvey–Kennedy over `nodes` nodes: `order` is a reverse postorder
 * from the root (order[0]) of the nodes it reaches, `index` each node's
 * position in it (-1: not reached), (inStart, inEdges) the edges into each
 * node along the direction of flow.
 */
function idoms(nodes: number, order: Int32Array, index: Int32Array, inStart: Int32Array, inEdges: Int32Array): Int32Array {
  const idom = new Int32Array(nodes).fill(-1);
  const root = order[0]!;
  idom[root] = root;
  let changed = true;
  while (changed) {
    changed = false;
    for (let k = 1; k < order.length; k++) {
      const v = order[k]!;
      let d = -1;
      for (let e = inStart[v]!; e < inStart[v + 1]!; e++) {
        let p = inEdges[e]!;
        if (idom[p]! < 0) continue; // not reached, or not processed yet
        if (d < 0) {
          d = p;
          continue;
        }
        // walk both fingers up to their nearest common dominator
        let q = d;
        while (p !== q) {
          while (index[p]! > index[q]!) p = idom[p]!;
          while (index[q]! > index[p]!) q = idom[q]!;
        }
        d = p;
      }
      if (idom[v] !== d) {
        idom[v] = d;
        changed = true;
      }
    }
  }
  idom[root] = -1;
  return idom;
}

/** The dominator tree of a CFG, rooted at its entry. */
export function dominatorsOf(g: Cfg): DomTree {
  return new DomTree(g.entry, idoms(g.count + 1, g.rpo, g.rpoIndex, g.predStart, g.pred));
}

/** The post-dominator tree of a CFG, rooted at its exit (reversed edges). */
export function postDominatorsOf(g: Cfg): DomTree {
  const { order, index } = reversePostorder(g.count + 1, g.exit, g.predStart, g.pred);
  return new DomTree(g.exit, idoms(g.count + 1, order, index, g.succStart, g.succ));
}

const domCache = new WeakMap<Body, DomTree>();
const postCache = new WeakMap<Body, DomTree>();

/** Dominator tree over the blocks of `body` (cfgOf(body)); computed once per Body. */
export function dominatorTree(body: Body): DomTree {
  let t = domCache.get(body);
  if (!t) domCache.set(body, (t = dominatorsOf(cfgOf(body))));
  return t;
}

/** Post-dominator tree over the blocks of `body` (cfgOf(body)); computed once per Body. */
export function postDominatorTree(body: Body): DomTree {
  let t = postCache.get(body);
  if (!t) postCache.set(body, (t = postDominatorsOf(cfgOf(body))));
  return t;
}

/** Instruction i runs before j on every path from the entry to j (i = j included). */
export function instrDominates(body: Body, i: number, j: number): boolean {
  const g = cfgOf(body);
  const a = g.blockOf[i]!;
  const b = g.blockOf[j]!;
  if (a === b) return i <= j && dominatorTree(body).has(a);
  return dominatorTree(body).dominates(a, b);
}

/** Instruction i runs after j on every path from j to the exit (i = j included). */
export function instrPostDominates(body: Body, i: number, j: number): boolean {
  const g = cfgOf(body);
  const a = g.blockOf[i]!;
  const b = g.blockOf[j]!;
  if (a === b) return i >= j && postDominatorTree(body).has(a);
  return postDominatorTree(body).dominates(a, b);
}
