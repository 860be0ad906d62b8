// Idempotent backward slices (DIGEST §1.3, stages a and b of §1.8): from a
// binary numeric instruction (the criterion), the pure computation its value
// depends on, through the operand stack and through locals (SSA def-use),
// as a DAG of pure operations over a stop set.
//
// Stop rules (the paper's): parameters; values of a shallower loop depth
// than the criterion; a μ (loop-header φ) of the same depth or deeper.
// Stage b goes through a γ that one branch decides (analysis/gsa.ts
// twoWay: an if/else or if merge, a br_if out of a block) as a γ node
// γ(predicate, whenTrue, whenFalse), and through the value an `if` with one
// result leaves when its whole nest is in the slice; any other γ (a
// br_table, several deciding branches), and every γ in stage a, is a stop.
// Stage a's instructions all dominate the criterion; stage b's may sit in
// arms that do not.
// Idempotence (DIGEST §1.8): constants, non-trapping numeric and SIMD ops,
// select, global.get of immutable globals (analysis/effects.ts decides);
// div/rem only with a constant divisor pushed right before it that cannot
// trap. Anything else (loads, calls, mutable globals, trapping ops, values
// a construct leaves) refuses the whole slice, as in the paper.
//
// Wasm adds one condition the paper's SSA does not need: at the criterion,
// the call that replaces it reads each stop value from its local, so that
// local must still hold it there (no write to it on any path between the
// slice's read and the criterion), checked for every read of it the slice
// makes: a read in an arm matters on the paths through that arm. Off those
// paths the slice's function may compute with other values (a select
// evaluates both sides), which is harmless as every operation is pure and
// cannot trap.

import { Eff, OPS, idOf } from "../../binary/opcodes/index.js";
import { bodyOf } from "../../binary/reader.js";
import type { Body } from "../../ir/body.js";
import type { Func, Module } from "../../ir/module.js";
import { F32, F64, I32, I64, isRef, V128, type ValType } from "../../ir/types.js";
import { popCount, pushCount, typeBody, type BodyTyping } from "../../analysis/body-typing.js";
import { controlTree, type ControlTree } from "../../analysis/control-tree.js";
import { gsaOf, type Gsa } from "../../analysis/gsa.js";
import type { Cfg } from "../../analysis/cfg.js";
import { effectsContext, instrFlags, isPureFlags, rangeFlags, type EffectsContext } from "../../analysis/effects.js";
import { loopForest, type LoopForest } from "../../analysis/loops.js";
import { localTypesOf, moduleEnv, type ModuleEnv } from "../../analysis/module-env.js";
import { DEF, localSsa, PARAM, PHI, ZERO, type LocalSsa } from "../../analysis/ssa.js";
import { lastAtOrBefore } from "../../last-at-or-before.js";

const LOCAL_GET = idOf("local.get");
const LOCAL_SET = idOf("local.set");
const LOCAL_TEE = idOf("local.tee");
const IF = idOf("if");
const ELSE = idOf("else");
const END = idOf("end");
/** Types a γ may have: select and an if's single result take them without any feature beyond the value's own. */
const GAMMA_TYPES = new Set<number>([I32, I64, F32, F64, V128]);

/** A value leaf of a slice: a stop value (becomes a parameter). */
export const STOP_PARAM = 0, STOP_OUTER = 1, STOP_MU = 2, STOP_GAMMA = 3;
export type StopKind = typeof STOP_PARAM | typeof STOP_OUTER | typeof STOP_MU | typeof STOP_GAMMA;

/** A node of the slice's value DAG. */
export type SliceNode =
  /** A pure instruction of the parent; `args` are node indices, one per operand. */
  | { kind: "op"; instr: number; args: number[]; type: ValType }
  /** Stop value `stop` (an index into Slice.stops). */
  | { kind: "stop"; stop: number; type: ValType }
  /** The default (zero) a declared local has on entry, read before any write. */
  | { kind: "zero"; type: ValType }
  /**
   * γ(predicate, whenTrue, whenFalse): `args` are [whenTrue, whenFalse,
   * predicate] (select's operand order); `phi` the SSA φ it stands for, or
   * -1 when it is the value of the `if` construct at instruction `construct`.
   */
  | { kind: "gamma"; args: number[]; type: ValType; phi: number; construct: number };

export interface Stop {
  /** SSA value (analysis/ssa.ts). */
  value: number;
  /** The local that holds it at the criterion (the call site reads it there). */
  local: number;
  kind: StopKind;
  type: ValType;
}

export interface Slice {
  /** Index into m.functions. */
  func: number;
  criterion: number;
  /** Operands before their users; the criterion's node is last. */
  nodes: SliceNode[];
  stops: Stop[];
  /** The parent's instructions the slice is made of (operations, local.get/set/tee), ascending, the criterion included. */
  instrs: number[];
  /** I of the paper's cost model: operations other than constants (an LLVM constant is no instruction). */
  size: number;
  /** Loop depth of the criterion (0: in no loop). */
  depth: number;
  /** The φs its γ nodes stand for (their local definitions may die with it). */
  phis: number[];
  /** The `if` instructions whose whole construct is in the slice (its value is a γ node). */
  constructs: number[];
}

/** Why a criterion has no slice. */
export type Refusal =
  /** An instruction that is not idempotent (load, store, call, mutable global, may trap, atomic ...); `instr` says which. */
  | { reason: "impure"; instr: number }
  /** A value a construct leaves (block or loop result, block parameter; an if result whose nest is not all in the slice): stage c or never. */
  | { reason: "construct"; instr: number }
  /** A stop value's local is written between the slice's read of it and the criterion. */
  | { reason: "stop-moved"; instr: number }
  /** More than the limit of instructions. */
  | { reason: "too-big"; instr: number }
  /** Unreachable code, a declared reference local's null default, an idempotent op with several results. */
  | { reason: "other"; instr: number };

export interface IdentifyOptions {
  /** Largest slice (instructions of the parent) looked at; larger ones are refused. */
  maxInstrs: number;
  /** Blocks a stop-availability search may visit before refusing. */
  maxSearch: number;
  /** Stage b: go through γs one branch decides and through if results (false: stage a, every γ a stop). */
  throughIfs: boolean;
}

export const DEFAULT_IDENTIFY: IdentifyOptions = { maxInstrs: 64, maxSearch: 4096, throughIfs: true };
/** Stage a alone (straight-line slices), for measuring what stage b adds. */
export const STAGE_A: IdentifyOptions = { ...DEFAULT_IDENTIFY, throughIfs: false };

const BINARY_SIG = /^(i32|i64|f32|f64|v128) (i32|i64|f32|f64|v128) -> (i32|i64|f32|f64|v128)$/;
/** Per op: 1 if it is a binary numeric instruction (two operands, one result, fixed numeric types, no memory). */
const BINARY = Uint8Array.from(OPS, (d) => (d.sig !== undefined && BINARY_SIG.test(d.sig) && !(d.effects & (Eff.READ_MEM | Eff.WRITE_MEM)) ? 1 : 0));
const DIVS = new Set(["div_s", "div_u", "rem_s", "rem_u"].flatMap((o) => [idOf(`i32.${o}`), idOf(`i64.${o}`)]));
const CONSTS = new Set(["i32.const", "i64.const", "f32.const", "f64.const", "v128.const"].map(idOf));

/** True for a constant (no instruction in the paper's count I). */
export function isConst(op: number): boolean {
  return CONSTS.has(op);
}

/** True if op is a binary numeric instruction, the paper's criterion. */
export function isCriterionOp(op: number): boolean {
  return BINARY[op] === 1;
}

/** Thrown inside `build` and caught by `slice`; no Error, whose stack trace cost 13 % of findSlices (half the criteria are refused). */
class Refused {
  constructor(readonly refusal: Refusal) {}
}

/** What the slicer knows about one function; build once, ask for every criterion. */
export class FunctionSlicer {
  readonly body: Body;
  readonly typing: BodyTyping;
  readonly ssa: LocalSsa;
  readonly cfg: Cfg;
  readonly loops: LoopForest;
  readonly localTypes: Int32Array;
  readonly gsa: Gsa;
  readonly tree: ControlTree;
  /** Per push slot: the instruction that pops it, -1 if none does. */
  private readonly consumerOfPush: Int32Array;
  /** Per (block of the read, block of the criterion): the blocks a path between them may pass (see reaches); null: too far to search. */
  private readonly between = new Map<number, Uint8Array | null>();
  private readonly headers: Set<number>;
  /**
   * Operand producers whose exploration is known to end in a refusal, by (producer, criterion loop depth, stage):
   * see build. In a hash round every criterion's slice reaches back to the same load; this refuses the next
   * criterion where it meets that chain instead of walking it again.
   */
  private readonly doomed = new Map<number, Refusal>();

  constructor(
    readonly m: Module,
    readonly func: number,
    readonly env: ModuleEnv = moduleEnv(m),
    readonly effects: EffectsContext = effectsContext(m),
    readonly options: IdentifyOptions = DEFAULT_IDENTIFY,
  ) {
    const f: Func = m.functions[func]!;
    this.body = bodyOf(m, f);
    this.typing = typeBody(m, m.numImportedFuncs + func, env);
    this.localTypes = localTypesOf(env, f.typeIndex, f.locals);
    const nParams = env.ctx.params[f.typeIndex]?.length ?? 0;
    this.ssa = localSsa(this.body, nParams, this.localTypes.length);
    this.gsa = gsaOf(this.body, nParams, this.localTypes.length);
    this.tree = controlTree(this.body);
    this.cfg = this.ssa.cfg;
    this.loops = loopForest(this.body);
    this.headers = new Set(this.loops.header);
    const t = this.typing;
    this.consumerOfPush = new Int32Array(t.pushType.length).fill(-1);
    for (let i = 0; i < this.body.count; i++) {
      for (let k = t.popStart[i]!; k < t.popStart[i + 1]!; k++) {
        const s = t.popFrom[k]!;
        if (s >= 0) this.consumerOfPush[s] = i;
      }
    }
  }

  /** The binary numeric instructions in reachable code: the criteria. */
  criteria(): number[] {
    const out: number[] = [];
    const { ops } = this.body;
    for (let i = 0; i < this.body.count; i++) if (BINARY[ops[i]!] && this.typing.height[i]! >= 0) out.push(i);
    return out;
  }

  /** Loop depth of instruction i (0: in no loop). */
  depthOf(i: number): number {
    const l = this.loops.loopOf[this.cfg.blockOf[i]!]!;
    return l < 0 ? 0 : this.loops.depth[l]!;
  }

  /** The instruction that pops the single value instruction i pushes, -1 if none does. */
  consumerOf(i: number): number {
    const t = this.typing;
    if (pushCount(t, i) !== 1) return -1;
    return this.consumerOfPush[t.pushStart[i]!]!;
  }

  /** The producer of operand k of instruction i, -1 in unreachable code. */
  producerOf(i: number, k: number): number {
    const s = this.typing.popFrom[this.typing.popStart[i]! + k]!;
    return s < 0 ? -1 : this.typing.pushedBy[s]!;
  }

  /** The slice of criterion c, or why there is none (`throughIfs` false: its stage-a slice). */
  slice(c: number, throughIfs = this.options.throughIfs): Slice | Refusal {
    try {
      return this.build(c, throughIfs);
    } catch (e) {
      if (e instanceof Refused) return e.refusal;
      throw e;
    }
  }

  private build(c: number, throughIfs: boolean): Slice {
    const depth = this.depthOf(c);
    // The producers being explored outside every γ (a γ catches refusals under it). A refusal for a reason fixed
    // by the path alone (impure, construct, other: not stop-moved, which depends on c, nor too-big, a total) that
    // reaches the top was thrown outside every γ, and the path from each of these producers to where it was thrown
    // passes no φ, only ops and SSA definitions reached at this loop depth: exploring any of them again, for
    // another criterion at the same depth and stage, ends in a refusal too (a value on that path cannot have been
    // reached before without throwing). So they are doomed, and the criterion's occurrences are the same as
    // without the memo; only which reason a refused criterion is counted under may differ.
    const path: number[] = [];
    const memo = depth < 64;
    const keyOf = (p: number): number => (p * 64 + depth) * 2 + (throughIfs ? 1 : 0);
    try {
      return this.explore(c, throughIfs, depth, path, memo ? keyOf : null);
    } catch (e) {
      if (memo && e instanceof Refused && path.length > 0) {
        const r = e.refusal.reason;
        if (r === "impure" || r === "construct" || r === "other") for (const p of path) this.doomed.set(keyOf(p), e.refusal);
      }
      throw e;
    }
  }

  private explore(c: number, throughIfs: boolean, depth: number, path: number[], keyOf: ((p: number) => number) | null): Slice {
    const nodes: SliceNode[] = [];
    const stops: Stop[] = [];
    const instrs: number[] = [];
    const inSlice = new Set<number>();
    const phis: number[] = [];
    const constructs: number[] = [];
    const { ops } = this.body;
    /** Node of each SSA value already reached (defs, stops, zeros, γs). */
    const ofValue = new Map<number, number>();
    /** ofValue's keys in the order set, so that a γ given up on can be undone. */
    const valueKeys: number[] = [];
    const setValue = (v: number, n: number): number => {
      ofValue.set(v, n);
      valueKeys.push(v);
      return n;
    };
    const add = (i: number): void => {
      if (inSlice.has(i)) return;
      inSlice.add(i);
      instrs.push(i);
      if (instrs.length > this.options.maxInstrs) throw new Refused({ reason: "too-big", instr: c });
    };
    /** The node of the value instruction p pushes (p an operand producer). */
    const pushed = (p: number): number => {
      if (p < 0) throw new Refused({ reason: "other", instr: c });
      if (keyOf !== null) {
        const known = this.doomed.get(keyOf(p));
        if (known !== undefined) throw new Refused(known);
      }
      path.push(p);
      const op = ops[p]!;
      let n: number;
      if (op === LOCAL_GET) {
        add(p);
        n = valueNode(this.ssa.readOf(p), p);
      } else if (op === LOCAL_TEE) {
        add(p);
        n = defNode(p);
      } else n = opNode(p);
      path.pop();
      return n;
    };
    /** The value local.set/tee d stores. */
    const defNode = (d: number): number => {
      const v = this.ssa.defined[d]!;
      const known = ofValue.get(v);
      if (known !== undefined) return known;
      const n = pushed(this.producerOf(d, 0));
      return setValue(v, n);
    };
    const stopNode = (v: number, x: number, kind: StopKind, get: number): number => {
      if (!this.holds(x, get, c)) throw new Refused({ reason: "stop-moved", instr: get });
      stops.push({ value: v, local: x, kind, type: this.localTypes[x]! });
      nodes.push({ kind: "stop", stop: stops.length - 1, type: this.localTypes[x]! });
      return setValue(v, nodes.length - 1);
    };
    /** The node of SSA value v of local x, read (directly or through φs of x) by local.get `get`. */
    const valueNode = (v: number, get: number): number => {
      if (v < 0) throw new Refused({ reason: "other", instr: get });
      const x = this.ssa.local[v]!;
      const known = ofValue.get(v);
      if (known !== undefined) {
        // another read of a stop value: its local must hold it at the criterion on the paths through this read too
        const k = nodes[known]!;
        if (k.kind === "stop" && !this.holds(x, get, c)) throw new Refused({ reason: "stop-moved", instr: get });
        return known;
      }
      const kind = this.ssa.kind[v]!;
      const type = this.localTypes[x]!;
      if (kind === ZERO) {
        if (isRef(type)) throw new Refused({ reason: "other", instr: get });
        nodes.push({ kind: "zero", type });
        return setValue(v, nodes.length - 1);
      }
      if (kind === PARAM) return stopNode(v, x, STOP_PARAM, get);
      if (kind === PHI) {
        const at = this.ssa.at[v]!;
        const l = this.loops.loopOf[at]!;
        const d = l < 0 ? 0 : this.loops.depth[l]!;
        // any φ of a shallower depth stops by the paper's rule, a μ too (its loop is stage c)
        if (d < depth) return stopNode(v, x, STOP_OUTER, get);
        if (this.headers.has(at)) return stopNode(v, x, STOP_MU, get);
        if (throughIfs) {
          const g = gammaOfPhi(v, get);
          if (g >= 0) return g;
        }
        return stopNode(v, x, STOP_GAMMA, get);
      }
      const d = this.ssa.at[v]!;
      if (this.depthOf(d) < depth) return stopNode(v, x, STOP_OUTER, get);
      add(d);
      return setValue(v, defNode(d));
    };
    /** γ node of φ v when one branch decides it and everything it needs is idempotent; -1 (nothing added) otherwise. */
    const gammaOfPhi = (v: number, get: number): number => {
      const tw = this.gsa.twoWay(v);
      const type = this.localTypes[this.ssa.local[v]!]!;
      if (!tw || !GAMMA_TYPES.has(type) || popCount(this.typing, tw.branch) !== 1) return -1;
      const mark = { nodes: nodes.length, stops: stops.length, instrs: instrs.length, keys: valueKeys.length, phis: phis.length, constructs: constructs.length, path: path.length };
      try {
        const operands = this.ssa.operands[v]!;
        const whenTrue = valueNode(operands[tw.whenTrue]!, get);
        const whenFalse = valueNode(operands[tw.whenFalse]!, get);
        const cond = pushed(this.producerOf(tw.branch, 0));
        nodes.push({ kind: "gamma", args: [whenTrue, whenFalse, cond], type, phi: v, construct: -1 });
        phis.push(v);
        return setValue(v, nodes.length - 1);
      } catch (e) {
        if (!(e instanceof Refused)) throw e;
        // give the γ up: undo what it added, and stop at it instead
        nodes.length = mark.nodes;
        stops.length = mark.stops;
        for (const i of instrs.splice(mark.instrs)) inSlice.delete(i);
        for (const k of valueKeys.splice(mark.keys)) ofValue.delete(k);
        phis.length = mark.phis;
        constructs.length = mark.constructs;
        path.length = mark.path;
        return -1;
      }
    };
    /** γ node of the value an `if` with one numeric result and an else leaves at its end e. */
    const ifResult = (e: number): number => {
      const k = this.tree.constructOf[e]!;
      const i = this.tree.start[k]!;
      const arm = this.tree.firstArm(k);
      const bt = this.body.imm[this.body.immStart[i]!]!;
      if (!throughIfs || ops[i] !== IF || this.tree.end[k] !== e || arm < 0 || ops[arm] !== ELSE || !GAMMA_TYPES.has(bt) || popCount(this.typing, i) !== 1) {
        throw new Refused({ reason: "construct", instr: e });
      }
      add(i);
      add(arm);
      add(e);
      const whenTrue = pushed(this.producerOf(arm, 0));
      const whenFalse = pushed(this.producerOf(e, 0));
      const cond = pushed(this.producerOf(i, 0));
      nodes.push({ kind: "gamma", args: [whenTrue, whenFalse, cond], type: bt, phi: -1, construct: i });
      constructs.push(i);
      return nodes.length - 1;
    };
    const opNode = (p: number): number => {
      const op = ops[p]!;
      const t = this.typing;
      if (op === END) return ifResult(p);
      if (OPS[op]!.effects & Eff.STRUCTURE) throw new Refused({ reason: "construct", instr: p });
      if (!this.idempotent(p)) throw new Refused({ reason: "impure", instr: p });
      if (pushCount(t, p) !== 1) throw new Refused({ reason: "other", instr: p });
      const type = t.pushType[t.pushStart[p]!]!;
      add(p);
      const args: number[] = [];
      for (let k = 0; k < popCount(t, p); k++) args.push(pushed(this.producerOf(p, k)));
      nodes.push({ kind: "op", instr: p, args, type });
      return nodes.length - 1;
    };
    opNode(c);
    // an if's value is a γ only when its whole nest goes: every instruction in its arms is the slice's
    for (const i of constructs) {
      for (let k = i + 1; k < this.tree.end[this.tree.constructOf[i]!]!; k++) if (!inSlice.has(k)) throw new Refused({ reason: "construct", instr: k });
    }
    instrs.sort((a, b) => a - b);
    let size = 0;
    for (const n of nodes) if (n.kind === "gamma" || (n.kind === "op" && !CONSTS.has(ops[n.instr]!))) size++;
    return { func: this.func, criterion: c, nodes, stops, instrs, size, depth, phis, constructs };
  }

  /** DIGEST §1.8's classifier for one instruction p (its divisor, for div/rem, being its operand 1). */
  idempotent(p: number): boolean {
    const op = this.body.ops[p]!;
    if (op === LOCAL_GET || op === LOCAL_SET || op === LOCAL_TEE) return false;
    if (DIVS.has(op)) {
      // effects.ts rules a div/rem safe when the constant right before it is a safe divisor
      return this.producerOf(p, 1) === p - 1 && isPureFlags(rangeFlags(this.effects, this.body, p - 1, p + 1));
    }
    return isPureFlags(instrFlags(this.effects, this.body, p));
  }

  /**
   * True if local x still holds, at instruction c, the value the local.get g
   * read (g dominates c): no local.set/tee of x lies on a path from g to c
   * that does not run g again.
   */
  holds(x: number, g: number, c: number): boolean {
    const defs = this.ssa.defsOf(x);
    if (defs.length === 0) return true;
    const bo = this.cfg.blockOf;
    const bg = bo[g]!, bc = bo[c]!;
    if (bg === bc && g < c) {
      // defs are in body order: is the first one after g before c?
      const k = lastAtOrBefore(defs, (d) => d, g) + 1;
      return k === defs.length || defs[k]! >= c;
    }
    const mid = this.betweenBlocks(bg, bc);
    if (!mid) return false;
    for (const d of defs) {
      const b = bo[d]!;
      if (b === bg ? d > g : b === bc ? d < c || mid[b] === 1 : mid[b] === 1) return false;
    }
    return true;
  }

  /**
   * Blocks (marked 1) on some path from the end of bg to bc that does not
   * enter bg again: reachable forwards from bg's successors and backwards
   * from bc's predecessors, neither search entering bg. bc is marked only if
   * it lies on a cycle of such blocks (then its instructions after c count).
   */
  private betweenBlocks(bg: number, bc: number): Uint8Array | null {
    const key = bg * (this.cfg.count + 1) + bc;
    if (this.between.has(key)) return this.between.get(key)!;
    const g = this.cfg;
    const n = g.count + 1;
    const fwd = new Uint8Array(n);
    const bwd = new Uint8Array(n);
    let budget = this.options.maxSearch;
    const search = (mark: Uint8Array, from: number, start: Int32Array, edges: Int32Array): boolean => {
      const work: number[] = [];
      for (let e = start[from]!; e < start[from + 1]!; e++) work.push(edges[e]!);
      while (work.length > 0) {
        const v = work.pop()!;
        if (v === bg || mark[v]) continue;
        if (--budget < 0) return false;
        mark[v] = 1;
        for (let e = start[v]!; e < start[v + 1]!; e++) work.push(edges[e]!);
      }
      return true;
    };
    let out: Uint8Array | null = null;
    if (search(fwd, bg, g.succStart, g.succ) && search(bwd, bc, g.predStart, g.pred)) {
      out = new Uint8Array(n);
      for (let v = 0; v < n; v++) out[v] = fwd[v]! & bwd[v]!;
    }
    this.between.set(key, out);
    return out;
  }
}
