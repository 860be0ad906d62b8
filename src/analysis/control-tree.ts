// The shape of a body's structured control: every construct (block, loop,
// if, try, try_table, and the function body itself as construct 0), where
// it opens, its else-like boundaries (else, catch, catch_all), where it
// closes (end, or delegate), its parent and depth; for every instruction the
// construct it belongs to; what a label names; and the forest of structured
// loops. One linear scan, cached per Body.
//
// Constructs are numbered in the order they open (preorder), so a
// construct's ancestors have smaller numbers. The scan is syntactic: code
// after an unconditional branch (unreachable code) has its structure too.
//
// The cache relies on ops and label immediates never changing in place
// (passes build a new Body; the in-place rewrites in ir/renumber*.ts and
// cleanup touch function, type and global indices only).

import { OPS, idOf } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";
import { LABEL_WORDS } from "../ir/imm-layout.js";

const LOOP = idOf("loop");
const TRY = idOf("try");
const TRY_TABLE = idOf("try_table");
const DELEGATE = idOf("delegate");
const BR_TABLE = idOf("br_table");

/** What each op does to the structure: one table lookup per instruction. */
const PLAIN = 0, OPEN = 1, ARM = 2, CLOSE = 3;
const CLASS = new Uint8Array(OPS.length);
for (const n of ["block", "loop", "if", "try", "try_table"]) CLASS[idOf(n)] = OPEN;
for (const n of ["else", "catch", "catch_all"]) CLASS[idOf(n)] = ARM;
for (const n of ["end", "delegate"]) CLASS[idOf(n)] = CLOSE;

/** The function body's own construct. */
export const FUNCTION = 0;

export class ControlTree {
  /** Number of constructs, the function body (construct 0) included. */
  readonly count: number;
  /** Per construct: index of its opening instruction (-1 for the function body). */
  readonly start: Int32Array;
  /** Per construct: index of its closing `end` (or `delegate`); the body's is its last instruction. */
  readonly end: Int32Array;
  /** Per construct: enclosing construct (-1 for the function body). */
  readonly parent: Int32Array;
  /** Per construct: 0 for the function body, 1 for constructs directly in it, ... */
  readonly depth: Int32Array;
  /** Per construct: op id of its opening instruction (-1 for the function body). */
  readonly opener: Int32Array;
  /** Arms (CSR): the else, catch and catch_all of construct c, in order, are arms[armStart[c] .. armStart[c + 1]). */
  readonly armStart: Int32Array;
  readonly arms: Int32Array;
  /**
   * Per instruction: the construct it belongs to. The opening instruction,
   * the arm boundaries and the closing end of a construct belong to it;
   * every other instruction to the innermost construct around it.
   */
  readonly constructOf: Int32Array;
  /** Per construct: the innermost loop among it and its ancestors (itself if it is a loop), -1 if none. */
  readonly innerLoop: Int32Array;
  /** Per construct: how many of it and its ancestors are loops. */
  readonly loopDepth: Int32Array;
  /** The loop constructs, in order. */
  readonly loops: Int32Array;
  /** Some construct is a try or try_table. */
  readonly hasHandlers: boolean;
  private readonly maxDepth: number;
  /** Constructs grouped by depth (CSR, ascending within a depth), for labels past the parent; built on first use. */
  private byDepthStart: Int32Array | null = null;
  private byDepth: Int32Array | null = null;

  constructor(readonly body: Body) {
    const { ops, count: n } = body;
    let nc = 1;
    let na = 0;
    for (let i = 0; i < n; i++) {
      const k = CLASS[ops[i]!]!;
      if (k === OPEN) nc++;
      else if (k === ARM) na++;
    }
    const start = new Int32Array(nc);
    const end = new Int32Array(nc);
    const parent = new Int32Array(nc);
    const depth = new Int32Array(nc);
    const opener = new Int32Array(nc);
    const constructOf = new Int32Array(n);
    const armAt = new Int32Array(na);
    const armOf = new Int32Array(na);
    start[0] = -1;
    end[0] = -1;
    parent[0] = -1;
    opener[0] = -1;
    let cur = 0;
    let c = 1;
    let a = 0;
    let maxDepth = 0;
    let handlers = false;
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      const k = CLASS[op]!;
      if (cur < 0) throw new Error(`instruction ${i} after the body's final end`);
      if (k === PLAIN) {
        constructOf[i] = cur;
      } else if (k === OPEN) {
        start[c] = i;
        end[c] = -1;
        parent[c] = cur;
        const d = (depth[c] = depth[cur]! + 1);
        if (d > maxDepth) maxDepth = d;
        opener[c] = op;
        if (op === TRY || op === TRY_TABLE) handlers = true;
        constructOf[i] = cur = c++;
      } else if (k === ARM) {
        if (cur === 0) throw new Error(`${OPS[op]!.name} at ${i} outside any construct`);
        constructOf[i] = cur;
        armAt[a] = i;
        armOf[a++] = cur;
      } else {
        constructOf[i] = cur;
        end[cur] = i;
        cur = parent[cur]!;
      }
    }
    if (cur >= 0) throw new Error(`unbalanced body: construct ${cur} (at ${start[cur]}) is not closed`);
    // arms by construct (counting sort keeps them in body order)
    const armStart = new Int32Array(nc + 1);
    for (let k = 0; k < na; k++) armStart[armOf[k]! + 1]!++;
    for (let k = 0; k < nc; k++) armStart[k + 1]! += armStart[k]!;
    const arms = new Int32Array(na);
    const fill = armStart.slice(0, nc);
    for (let k = 0; k < na; k++) arms[fill[armOf[k]!]!++] = armAt[k]!;
    // loop forest
    const innerLoop = new Int32Array(nc);
    const loopDepth = new Int32Array(nc);
    innerLoop[0] = -1;
    let nl = 0;
    for (let k = 1; k < nc; k++) {
      const p = parent[k]!;
      if (opener[k] === LOOP) {
        innerLoop[k] = k;
        loopDepth[k] = loopDepth[p]! + 1;
        nl++;
      } else {
        innerLoop[k] = innerLoop[p]!;
        loopDepth[k] = loopDepth[p]!;
      }
    }
    const loops = new Int32Array(nl);
    for (let k = 1, l = 0; k < nc; k++) if (opener[k] === LOOP) loops[l++] = k;

    this.count = nc;
    this.start = start;
    this.end = end;
    this.parent = parent;
    this.depth = depth;
    this.opener = opener;
    this.armStart = armStart;
    this.arms = arms;
    this.constructOf = constructOf;
    this.innerLoop = innerLoop;
    this.loopDepth = loopDepth;
    this.loops = loops;
    this.hasHandlers = handlers;
    this.maxDepth = maxDepth;
  }

  /** The first arm boundary of c (an if's else, a try's first catch), or -1. */
  firstArm(c: number): number {
    return this.armStart[c + 1]! > this.armStart[c]! ? this.arms[this.armStart[c]!]! : -1;
  }

  isLoop(c: number): boolean {
    return this.opener[c] === LOOP;
  }

  /**
   * The innermost construct whose inside holds instruction i: for a
   * construct's opening and closing instructions its parent (they run
   * outside it), for every other instruction constructOf[i].
   */
  enclosing(i: number): number {
    const c = this.constructOf[i]!;
    return this.start[c] === i || this.end[c] === i ? this.parent[c]! : c;
  }

  /** Nesting depth at instruction i: depth of enclosing(i) (-1 for the body's final end). */
  depthAt(i: number): number {
    const c = this.enclosing(i);
    return c < 0 ? -1 : this.depth[c]!;
  }

  /** The innermost loop whose inside holds instruction i (its own loop and end are outside), or -1. */
  loopOf(i: number): number {
    const c = this.enclosing(i);
    return c < 0 ? -1 : this.innerLoop[c]!;
  }

  /** The loop enclosing loop (or any construct) c, -1 if none. */
  loopParent(c: number): number {
    const p = this.parent[c]!;
    return p < 0 ? -1 : this.innerLoop[p]!;
  }

  /** The ancestor of c that label l names from inside c (l = 0: c itself), or -1 if there is none. */
  ancestor(c: number, l: number): number {
    const d = this.depth[c]! - l;
    if (l < 0 || d < 0) return -1;
    if (l === 0) return c;
    if (l === 1) return this.parent[c]!;
    // the ancestor at depth d is the last construct at that depth to open before c
    if (this.byDepth === null) this.groupByDepth();
    const byDepth = this.byDepth!;
    let lo = this.byDepthStart![d]!;
    let hi = this.byDepthStart![d + 1]! - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (byDepth[mid]! <= c) lo = mid;
      else hi = mid - 1;
    }
    return byDepth[lo]!;
  }

  private groupByDepth(): void {
    const { depth, count: nc, maxDepth } = this;
    const start = new Int32Array(maxDepth + 2);
    for (let k = 0; k < nc; k++) start[depth[k]! + 1]!++;
    for (let d = 0; d <= maxDepth; d++) start[d + 1]! += start[d]!;
    const byDepth = new Int32Array(nc);
    const at = start.slice(0, maxDepth + 1);
    for (let k = 0; k < nc; k++) byDepth[at[depth[k]!]!++] = k;
    this.byDepthStart = start;
    this.byDepth = byDepth;
  }

  /**
   * The construct that label l of instruction i names, or -1. Labels count
   * outward from where i runs; a try_table's catch labels and a delegate's
   * label count from outside their own try.
   */
  target(i: number, l: number): number {
    let c = this.constructOf[i]!;
    if (this.start[c] === i || (this.end[c] === i && this.body.ops[i] === DELEGATE)) c = this.parent[c]!;
    return c < 0 ? -1 : this.ancestor(c, l);
  }

  /**
   * Every construct instruction i's labels name, in immediate order: a
   * br_table's labels then its default, a try_table's catch labels, the
   * label of br, br_if, br_on_*, delegate and rethrow. Empty for the rest.
   */
  targets(i: number): number[] {
    const { ops, imm, immStart } = this.body;
    const op = ops[i]!;
    const w = immStart[i]!;
    if (op === BR_TABLE) {
      const n = imm[w]!;
      const out: number[] = [];
      for (let k = 0; k <= n; k++) out.push(this.target(i, imm[w + 1 + k]!));
      return out;
    }
    if (op === TRY_TABLE) {
      const n = imm[w + 1]!;
      const out: number[] = [];
      for (let k = 0; k < n; k++) out.push(this.target(i, imm[w + 2 + 3 * k + 2]!));
      return out;
    }
    const at = LABEL_WORDS[op];
    return at ? at.map((off) => this.target(i, imm[w + off]!)) : [];
  }

  /** True if a branch to c goes back to its start (c is a loop); otherwise it goes past c's end. */
  branchesToStart(c: number): boolean {
    return this.opener[c] === LOOP;
  }

  /**
   * The instruction a branch to c arrives at: a loop's `loop` (the next to
   * run is its first body instruction), otherwise c's closing instruction
   * (the next to run is the one after it). For the function body, its final
   * end: a branch to it returns.
   */
  landing(c: number): number {
    return this.opener[c] === LOOP ? this.start[c]! : this.end[c]!;
  }

  /**
   * Where the arm holding instruction i ends: the next else, catch,
   * catch_all, end or delegate of enclosing(i) after i. Code from after an
   * unconditional branch up to there never runs.
   */
  armEnd(i: number): number {
    const c = this.enclosing(i);
    if (c < 0) return i;
    for (let k = this.armStart[c]!; k < this.armStart[c + 1]!; k++) if (this.arms[k]! > i) return this.arms[k]!;
    return this.end[c]!;
  }
}

const cache = new WeakMap<Body, ControlTree>();

/** The control tree of `body` (computed once per Body). Throws if its blocks do not nest. */
export function controlTree(body: Body): ControlTree {
  let t = cache.get(body);
  if (!t) cache.set(body, (t = new ControlTree(body)));
  return t;
}

/** The catch clauses of try_table instruction i: [kind, tag, label] words start at imm[at + 3k]. */
export function catchClauses(body: Body, i: number): { count: number; at: number } {
  const w = body.immStart[i]! + 1;
  return { count: body.imm[w]!, at: w + 1 };
}

/** try_table catch kinds that catch every exception (catch_all, catch_all_ref). */
export function catchesAll(kind: number): boolean {
  return kind === 2 || kind === 3;
}
