// Gated SSA (DIGEST §1.2) on top of the SSA over locals (ssa.ts): which
// branch predicates decide the value of each φ. Cached per Body.
//
// - γ: a φ at a merge that is no loop header. Its predicates are the
//   conditional branches (if, br_if, br_on_*, br_table: its index is a
//   predicate too) in the blocks on acyclic paths from the merge's immediate
//   dominator to the merge (back edges ignored) — the set the slicer needs,
//   not the Boolean formula (Tu & Padua's gating paths give the formula).
// - μ: a φ at a natural loop's header (its value recurs through a back edge);
//   its predicates are those of the entry side, computed the same way.
// - η: a value leaving a natural loop; the loop's exit predicates are the
//   conditional branches in the loop with a successor outside it.
//
// `twoWay` names the common γ a single branch decides: a merge of two
// predecessors, one reached only when its immediate dominator's branch went
// one way, the other only when it went the other way — γ(p, x_true, x_false),
// re-emittable as `select` or as an `if` with a result.

import { idOf } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";
import type { Cfg } from "./cfg.js";
import { dominatorTree, type DomTree } from "./dominators.js";
import { loopForest, type LoopForest } from "./loops.js";
import { localSsa, PHI, type LocalSsa } from "./ssa.js";

const IF = idOf("if");
const ELSE = idOf("else");
const BR_IF = idOf("br_if");
const CONDITIONAL = new Set(["if", "br_if", "br_table", "br_on_null", "br_on_non_null", "br_on_cast", "br_on_cast_fail"].map(idOf));

export const GAMMA = 0, MU = 1;
export type GateKind = typeof GAMMA | typeof MU;

/** A γ that one branch decides: which φ operand arrives when its condition is true (non-zero) and when it is false. */
export interface TwoWay {
  /** The `if` or `br_if` instruction (alone in the merge's immediate dominator). */
  branch: number;
  /** Operand indices into ssa.operands[v]. */
  whenTrue: number;
  whenFalse: number;
}

export class Gsa {
  private readonly gates = new Map<number, readonly number[]>();
  private readonly exits = new Map<number, readonly number[]>();
  private readonly headers: Set<number>;

  constructor(
    readonly ssa: LocalSsa,
    readonly dom: DomTree,
    readonly loops: LoopForest,
  ) {
    this.headers = new Set(loops.header);
  }

  get cfg(): Cfg {
    return this.ssa.cfg;
  }

  /** MU for a φ at a loop header, GAMMA for any other φ; -1 for a value that is no φ. */
  gateKind(v: number): GateKind | -1 {
    if (this.ssa.kind[v] !== PHI) return -1;
    return this.headers.has(this.ssa.at[v]!) ? MU : GAMMA;
  }

  /** The conditional branch instructions on acyclic paths from the immediate dominator of φ v's block to it, ascending. */
  predicates(v: number): readonly number[] {
    const known = this.gates.get(v);
    if (known) return known;
    const g = this.cfg;
    const b = this.ssa.at[v]!;
    const d = this.dom.idom[b]!;
    const out: number[] = [];
    if (d >= 0) {
      // backwards from the merge over forward edges, not past the dominator: every block met lies on such a path
      const seen = new Uint8Array(g.count + 1);
      const work = [b];
      seen[b] = 1;
      while (work.length > 0) {
        const x = work.pop()!;
        if (x !== b) this.addBranch(x, out);
        if (x === d) continue;
        for (let e = g.predStart[x]!; e < g.predStart[x + 1]!; e++) {
          const p = g.pred[e]!;
          if (seen[p] || !g.reachable(p) || this.dom.dominates(x, p)) continue; // x -> ... back edge p -> x
          seen[p] = 1;
          work.push(p);
        }
      }
    }
    out.sort((a, c) => a - c);
    this.gates.set(v, out);
    return out;
  }

  /** η's predicates: the conditional branches of natural loop l that may leave it, ascending. */
  exitPredicates(l: number): readonly number[] {
    const known = this.exits.get(l);
    if (known) return known;
    const g = this.cfg;
    const out: number[] = [];
    for (let b = 0; b < g.count; b++) {
      if (!g.reachable(b) || !this.loops.contains(l, b)) continue;
      let leaves = false;
      for (let e = g.succStart[b]!; e < g.succStart[b + 1]!; e++) if (!this.loops.contains(l, g.succ[e]!)) leaves = true;
      if (leaves) this.addBranch(b, out);
    }
    this.exits.set(l, out);
    return out;
  }

  /** The deciding branch of γ v when one `if`/`br_if` alone decides which of its two operands arrives, else null. */
  twoWay(v: number): TwoWay | null {
    if (this.gateKind(v) !== GAMMA) return null;
    const g = this.cfg;
    const b = this.ssa.at[v]!;
    if (g.predStart[b + 1]! - g.predStart[b]! !== 2) return null;
    const d = this.dom.idom[b]!;
    if (d < 0 || d >= g.count) return null;
    const i = g.blockStart[d]!;
    const op = g.body.ops[i]!;
    if (op !== IF && op !== BR_IF) return null;
    const [t, f] = this.successorsOf(i);
    if (t < 0 || f < 0 || t === f) return null;
    const side = (p: number): number => {
      if (p === d) return t === b ? 1 : f === b ? 0 : -1;
      if (t !== b && this.onlyFrom(t, d) && this.dom.dominates(t, p)) return 1;
      if (f !== b && this.onlyFrom(f, d) && this.dom.dominates(f, p)) return 0;
      return -1;
    };
    const s0 = side(g.pred[g.predStart[b]!]!);
    const s1 = side(g.pred[g.predStart[b]! + 1]!);
    if (s0 < 0 || s1 < 0 || s0 === s1) return null;
    return s0 === 1 ? { branch: i, whenTrue: 0, whenFalse: 1 } : { branch: i, whenTrue: 1, whenFalse: 0 };
  }

  /** The blocks an `if` or `br_if` at i goes to when its condition is true and when false. */
  private successorsOf(i: number): [number, number] {
    const g = this.cfg;
    const tree = g.tree;
    if (g.body.ops[i] === IF) {
      const c = tree.constructOf[i]!;
      const arm = tree.firstArm(c);
      const elseAt = arm >= 0 && g.body.ops[arm] === ELSE ? arm : -1;
      return [g.blockOf[i + 1]!, elseAt >= 0 ? g.blockOf[elseAt + 1]! : g.blockOf[tree.end[c]!]!];
    }
    const c = tree.target(i, g.body.imm[g.body.immStart[i]!]!);
    if (c < 0) return [-1, -1];
    // a branch to the function's label leaves it: the exit node
    const to = c === 0 ? g.exit : g.blockOf[tree.landing(c)]!;
    return [to, g.blockOf[i + 1]!];
  }

  /** Block x's only predecessor is d. */
  private onlyFrom(x: number, d: number): boolean {
    const g = this.cfg;
    return g.predStart[x + 1]! - g.predStart[x]! === 1 && g.pred[g.predStart[x]!] === d;
  }

  private addBranch(x: number, out: number[]): void {
    const g = this.cfg;
    if (x >= g.count) return;
    const i = g.blockStart[x]!;
    if (CONDITIONAL.has(g.body.ops[i]!)) out.push(i);
  }
}

const cache = new WeakMap<Body, Gsa>();

/** The gates of the SSA of `body` (see localSsa for nParams and nLocals); cached per Body. */
export function gsaOf(body: Body, nParams: number, nLocals: number): Gsa {
  const ssa = localSsa(body, nParams, nLocals);
  let s = cache.get(body);
  if (!s || s.ssa !== ssa) cache.set(body, (s = new Gsa(ssa, dominatorTree(body), loopForest(body))));
  return s;
}
