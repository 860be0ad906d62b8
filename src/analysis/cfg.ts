// Basic blocks of a body and the edges between them, on top of the control
// tree; cached per Body.
//
// Blocks: every control instruction (block, loop, if, else, try, catch,
// catch_all, try_table, end, delegate, the branches, return, the tail calls,
// throw, rethrow, throw_ref, unreachable) is a block of its own, and so is
// every run of other instructions between them. Inside a try or try_table
// body a call may throw to a handler, so there a call is a block of its own
// too. Blocks are numbered in body order; block 0 is the entry.
//
// Edges follow what an interpreter does: `if` goes to the then arm and to
// the instruction after its `else` (or to its `end` when it has none); an
// arm that reaches `else`, `catch` or `catch_all` goes on to the construct's
// `end`; a branch to a loop arrives at its `loop`, a branch to anything else
// at its closing instruction; `end` and `delegate` fall through.
//
// A virtual exit node (number `exit`, after the last block) stands for
// leaving the function: return, the tail calls, a branch to the function's
// label, its final end, `unreachable`, and a throw nothing in the function
// is sure to catch. Traps of other instructions and exceptions leaving calls
// outside any try are not edges, so post-dominance is along the paths that
// end in one of those.
//
// Exceptions, approximated conservatively (more edges, never fewer): a throw,
// rethrow, throw_ref or call inside a try body has an edge to the start of
// every handler of every try around it, outward until a catch_all; a
// try_table catch goes where a branch to its label goes; a `delegate` passes
// its body's exceptions on as if thrown where its try sits inside the
// construct its label names (so a try named from its catch arm does not
// catch them).

import { Eff, OPS, idOf } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";
import { LABEL_WORDS } from "../ir/imm-layout.js";
import { catchClauses, catchesAll, controlTree, type ControlTree } from "./control-tree.js";

const TRY = idOf("try");
const TRY_TABLE = idOf("try_table");
const DELEGATE = idOf("delegate");
const CATCH_ALL = idOf("catch_all");

/** What each op does to control (one table lookup per instruction). */
const PLAIN = 0, OPEN = 1, IF = 2, ARM = 3, CLOSE = 4, BR = 5, BR_IF = 6, BR_TABLE = 7, EXIT = 8, THROW = 9;
const KIND = new Uint8Array(OPS.length);
const kinds: [number, string[]][] = [
  [OPEN, ["block", "loop", "try", "try_table"]],
  [IF, ["if"]],
  [ARM, ["else", "catch", "catch_all"]],
  [CLOSE, ["end", "delegate"]],
  [BR, ["br"]],
  [BR_IF, ["br_if", "br_on_null", "br_on_non_null", "br_on_cast", "br_on_cast_fail"]],
  [BR_TABLE, ["br_table"]],
  [EXIT, ["return", "return_call", "return_call_indirect", "return_call_ref", "unreachable"]],
  [THROW, ["throw", "rethrow", "throw_ref"]],
];
for (const [k, names] of kinds) for (const n of names) KIND[idOf(n)] = k;
/** Calls: they may throw to a handler. */
const CALLS = new Uint8Array(OPS.length);
OPS.forEach((d, id) => {
  if (d.effects & Eff.CALL && KIND[id] === PLAIN) CALLS[id] = 1;
  // a new control instruction in the opcode table must be given its edges here
  if (d.effects & (Eff.BRANCH | Eff.STRUCTURE) && KIND[id] === PLAIN) throw new Error(`cfg: no edges for ${d.name}`);
});

export class Cfg {
  readonly tree: ControlTree;
  /** Number of basic blocks (the exit not included). */
  readonly count: number;
  /** The virtual exit node: `count`. */
  readonly exit: number;
  readonly entry = 0;
  /** First instruction of each block; blockStart[count] = the body's instruction count. */
  readonly blockStart: Int32Array;
  /** Per instruction: its block. */
  readonly blockOf: Int32Array;
  /** Successors of node v (blocks and exit): succ[succStart[v] .. succStart[v + 1]), no duplicates. */
  readonly succStart: Int32Array;
  readonly succ: Int32Array;
  readonly predStart: Int32Array;
  readonly pred: Int32Array;
  /** Nodes reachable from the entry (the exit too if it is), in reverse postorder of a depth-first search. */
  readonly rpo: Int32Array;
  /** Per node: its position in rpo, -1 if unreachable. */
  readonly rpoIndex: Int32Array;
  /** The landings of the throwing instructions that have exception edges (see exceptionLandings). */
  private readonly landings: Map<number, Landings>;

  constructor(readonly body: Body) {
    const tree = (this.tree = controlTree(body));
    const { ops, imm, immStart, count: n } = body;
    // handlers of the throwing instructions in try bodies (only when there are tries)
    const landings = new Map<number, Landings>();
    if (tree.hasHandlers) {
      for (let i = 0; i < n; i++) {
        const op = ops[i]!;
        if (KIND[op] === THROW) landings.set(i, throwLandings(tree, i));
        else if (CALLS[op]) {
          const l = throwLandings(tree, i);
          if (l.to.length > 0) landings.set(i, l);
        }
      }
    }
    const blockOf = new Int32Array(n);
    const starts = new Int32Array(n + 1);
    const throwing = landings.size > 0;
    let nb = 0;
    let prevControl = true;
    for (let i = 0; i < n; i++) {
      const c = KIND[ops[i]!] !== PLAIN || (throwing && landings.has(i));
      if (c || prevControl) starts[nb++] = i;
      blockOf[i] = nb - 1;
      prevControl = c;
    }
    starts[nb] = n;
    const exit = nb;

    // successors (CSR, deduplicated per block)
    const succStart = new Int32Array(nb + 2);
    let succ = new Int32Array(Math.max(8, 2 * nb));
    let ns = 0;
    const seen = new Int32Array(nb + 1).fill(-1);
    let b = 0;
    const add = (v: number): void => {
      if (seen[v] === b) return;
      seen[v] = b;
      if (ns === succ.length) {
        const a = new Int32Array(succ.length * 2);
        a.set(succ);
        succ = a;
      }
      succ[ns++] = v;
    };
    const dest = (t: number, c: number): number => {
      if (c < 0) throw new Error(`cfg: label out of range at instruction ${t}`);
      return c === 0 ? exit : blockOf[tree.landing(c)]!;
    };
    const toLandings = (l: Landings): void => {
      for (const x of l.to) add(x < 0 ? exit : blockOf[x]!);
    };
    for (; b < nb; b++) {
      succStart[b] = ns;
      const t = starts[b + 1]! - 1;
      const op = ops[t]!;
      const w = immStart[t]!;
      switch (KIND[op]) {
        case PLAIN: {
          add(blockOf[t + 1]!);
          const l = landings.size > 0 ? landings.get(t) : undefined;
          if (l) toLandings(l);
          break;
        }
        case OPEN:
          add(blockOf[t + 1]!);
          break;
        case IF: {
          const c = tree.constructOf[t]!;
          const e = tree.firstArm(c);
          add(blockOf[t + 1]!);
          add(blockOf[e >= 0 ? e + 1 : tree.end[c]!]!);
          break;
        }
        case ARM:
          add(blockOf[tree.end[tree.constructOf[t]!]!]!);
          break;
        case CLOSE:
          add(t === n - 1 ? exit : blockOf[t + 1]!);
          break;
        case BR:
          add(dest(t, tree.target(t, imm[w + LABEL_WORDS[op]![0]!]!)));
          break;
        case BR_IF:
          add(dest(t, tree.target(t, imm[w + LABEL_WORDS[op]![0]!]!)));
          add(blockOf[t + 1]!);
          break;
        case BR_TABLE: {
          const k = imm[w]!;
          for (let j = 0; j <= k; j++) add(dest(t, tree.target(t, imm[w + 1 + j]!)));
          break;
        }
        case EXIT:
          add(exit);
          break;
        case THROW: {
          const l = landings.get(t);
          if (l) toLandings(l);
          if (!l || l.escapes) add(exit);
          break;
        }
      }
    }
    succStart[nb] = succStart[nb + 1] = ns;
    succ = succ.slice(0, ns);

    // predecessors (CSR, in order of their source)
    const predStart = new Int32Array(nb + 2);
    for (let k = 0; k < ns; k++) predStart[succ[k]! + 1]!++;
    for (let v = 0; v <= nb; v++) predStart[v + 1]! += predStart[v]!;
    const pred = new Int32Array(ns);
    const at = predStart.slice(0, nb + 1);
    for (let u = 0; u < nb; u++) for (let k = succStart[u]!; k < succStart[u + 1]!; k++) pred[at[succ[k]!]!++] = u;

    const { order, index } = reversePostorder(nb + 1, 0, succStart, succ);

    this.count = nb;
    this.exit = exit;
    this.blockStart = starts.subarray(0, nb + 1);
    this.blockOf = blockOf;
    this.succStart = succStart;
    this.succ = succ;
    this.predStart = predStart;
    this.pred = pred;
    this.rpo = order;
    this.rpoIndex = index;
    this.landings = landings;
  }

  /** exceptionLandings(body, i), from the edges already found where i has some. */
  exceptionLandings(i: number): Landings {
    return this.landings.get(i) ?? throwLandings(this.tree, i);
  }

  successors(v: number): Int32Array {
    return this.succ.subarray(this.succStart[v]!, this.succStart[v + 1]!);
  }

  predecessors(v: number): Int32Array {
    return this.pred.subarray(this.predStart[v]!, this.predStart[v + 1]!);
  }

  /** First instruction of block b. */
  first(b: number): number {
    return this.blockStart[b]!;
  }

  /** Last instruction of block b. */
  last(b: number): number {
    return this.blockStart[b + 1]! - 1;
  }

  reachable(v: number): boolean {
    return this.rpoIndex[v]! >= 0;
  }
}

/** Where an exception thrown at an instruction may go: handler starts (instruction indices, -1 for the exit). */
export interface Landings {
  readonly to: readonly number[];
  /** No catch_all on the way: it may also leave the function. */
  readonly escapes: boolean;
}

/**
 * Where an exception thrown at instruction i of `body` may go, as the CFG's
 * exception edges have it (conservative: more handlers, never fewer).
 * `to`: the instruction each handler starts at (the one after a catch or
 * catch_all; the landing of a try_table catch's label), -1 where a try_table
 * catch names the function's label (the function returns); `escapes`: no
 * catch_all on the way, so it may also leave the function. Any instruction
 * may be asked, not only a throwing one: at the first instruction of a range,
 * the handlers around the range (outline asks where a call it puts there
 * would throw to).
 */
export function exceptionLandings(body: Body, i: number): Landings {
  return cfgOf(body).exceptionLandings(i);
}

/** The handlers an exception thrown at instruction i may reach (see the header). */
function throwLandings(tree: ControlTree, i: number): Landings {
  const { ops, imm, immStart } = tree.body;
  const to: number[] = [];
  let c = tree.enclosing(i);
  let p = i; // where in c the exception is (the instruction, or the construct inside c holding it)
  while (c > 0) {
    const op = tree.opener[c]!;
    if (op === TRY) {
      const first = tree.firstArm(c);
      const e = tree.end[c]!;
      if (p < (first >= 0 ? first : e)) {
        if (ops[e] === DELEGATE) {
          // rethrown where this try sits in the construct the label names, skipping the handlers between
          const t = tree.target(e, imm[immStart[e]!]!);
          if (t <= 0) return { to, escapes: true };
          p = tree.start[c]!;
          c = t;
          continue;
        }
        for (let k = tree.armStart[c]!; k < tree.armStart[c + 1]!; k++) {
          const a = tree.arms[k]!;
          to.push(a + 1);
          if (ops[a] === CATCH_ALL) return { to, escapes: false };
        }
      }
    } else if (op === TRY_TABLE) {
      // everything strictly inside a try_table is its body
      const s = tree.start[c]!;
      const { count, at } = catchClauses(tree.body, s);
      for (let k = 0; k < count; k++) {
        const t = tree.target(s, imm[at + 3 * k + 2]!);
        to.push(t === 0 ? -1 : tree.landing(t));
        if (catchesAll(imm[at + 3 * k]!)) return { to, escapes: false };
      }
    }
    p = tree.start[c]!;
    c = tree.parent[c]!;
  }
  return { to, escapes: true };
}

/** Reverse postorder of the nodes reachable from `root` along the edges of (start, edges); index -1 for the rest. */
export function reversePostorder(nodes: number, root: number, start: Int32Array, edges: Int32Array): { order: Int32Array; index: Int32Array } {
  const index = new Int32Array(nodes).fill(-1);
  const post = new Int32Array(nodes);
  let np = 0;
  const stack = new Int32Array(nodes);
  const next = new Int32Array(nodes);
  let sp = 0;
  // index doubles as the visited mark (-2) until the order is known
  index[root] = -2;
  stack[sp++] = root;
  next[root] = start[root]!;
  while (sp > 0) {
    const v = stack[sp - 1]!;
    if (next[v]! < start[v + 1]!) {
      const w = edges[next[v]!++]!;
      if (index[w] === -1) {
        index[w] = -2;
        next[w] = start[w]!;
        stack[sp++] = w;
      }
      continue;
    }
    sp--;
    post[np++] = v;
  }
  const order = new Int32Array(np);
  for (let k = 0; k < np; k++) {
    const v = post[np - 1 - k]!;
    order[k] = v;
    index[v] = k;
  }
  return { order, index };
}

const cache = new WeakMap<Body, Cfg>();

/** The CFG of `body` (computed once per Body). */
export function cfgOf(body: Body): Cfg {
  let g = cache.get(body);
  if (!g) cache.set(body, (g = new Cfg(body)));
  return g;
}
