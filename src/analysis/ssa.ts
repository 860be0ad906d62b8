// SSA over a function's locals: which definition each `local.get` reads,
// with φ-values where definitions merge, and def-use chains. Built on the
// shared CFG (cfg.ts) by the on-demand construction of Braun et al. ("Simple
// and Efficient Construction of Static Single Assignment Form", CC 2013):
// a read looks backwards from the block it is in, placing a φ at a block
// with several predecessors (before reading its operands, which is what
// closes loops), and φs that merge one value only are removed afterwards.
// Structured wasm gives reducible CFGs, for which that leaves minimal SSA.
//
// Values, numbered from 0:
//   PARAM    the value a parameter has on entry;
//   ZERO     the default (zero or null) of a declared local on entry;
//   DEF      a `local.set` / `local.tee` (its instruction);
//   PHI      a merge at the start of a block, one operand per predecessor.
// A `local.get` in code the entry cannot reach reads UNREACHABLE (-1), and
// definitions there reach nothing.
//
// Everything is computed with explicit stacks: functions with tens of
// thousands of blocks must not exhaust the call stack.

import { idOf } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";
import { cfgOf, type Cfg } from "./cfg.js";
import { dominatorTree, type DomTree } from "./dominators.js";

const LOCAL_GET = idOf("local.get");
const LOCAL_SET = idOf("local.set");
const LOCAL_TEE = idOf("local.tee");

export const PARAM = 0, ZERO = 1, DEF = 2, PHI = 3;
export type ValueKind = typeof PARAM | typeof ZERO | typeof DEF | typeof PHI;
/** What a `local.get` reads in code the entry cannot reach. */
export const UNREACHABLE = -1;

/** The operand list of every non-φ value (never written to). */
const NO_OPERANDS: number[] = Object.freeze([]) as unknown as number[];
/** In `reads`: a `local.get` whose value is not worked out yet. */
const PENDING = -3;
/** In the per-local tables while a local is being completed: nothing recorded for that block yet. */
const ABSENT = -3;

/**
 * The SSA of one function's locals. Values are made one local at a time,
 * when something first asks about that local (readOf, getsOf, phisUsing):
 * a local's values are read only by its own gets and φs, and a pass that
 * looks at part of a function (slices: its cold criteria) asks about few
 * of its locals. Definitions and entry values exist from the start.
 */
export class LocalSsa {
  /** Per value: its kind (PARAM, ZERO, DEF, PHI). */
  readonly kind: ValueKind[] = [];
  /** Per value: the local it is a value of. */
  readonly local: number[] = [];
  /** Per value: DEF: its instruction; PHI: its block; PARAM, ZERO: -1. */
  readonly at: number[] = [];
  /**
   * Per φ value: its operands, one per predecessor of its block in `cfg.pred`
   * order, led for the entry block (a loop at the start of a function) by the
   * value on entry to the function; UNREACHABLE for a predecessor the entry
   * cannot reach. Other values: empty.
   */
  readonly operands: number[][] = [];
  /** Per DEF instruction (`local.set`/`local.tee`): its value; -2 elsewhere. */
  readonly defined: Int32Array;
  /** Per instruction: for a `local.get`, the value it reads, UNREACHABLE, or PENDING; -2 elsewhere. */
  private readonly reads: Int32Array;
  /** Per value whose local is done: the gets that read it and the live φs that have it as an operand. */
  private readonly gets: number[][] = [];
  private readonly phis: number[][] = [];
  /** Per local: 1 once its values are complete. */
  private readonly done: Uint8Array;
  /** The gets of each local (CSR over locals, in body order). */
  private readonly getStart: Int32Array;
  private readonly getList: Int32Array;
  /** The definitions of each local (CSR over locals, in body order). */
  private readonly defStart: Int32Array;
  private readonly defList: Int32Array;
  /** Per local: its value on entry to the function. */
  private readonly entryValue: number[] = [];

  constructor(
    readonly cfg: Cfg,
    readonly nParams: number,
    readonly nLocals: number,
  ) {
    const g = cfg;
    const body = g.body;
    const n = body.count;
    this.reads = new Int32Array(n).fill(-2);
    this.defined = new Int32Array(n).fill(-2);
    this.done = new Uint8Array(nLocals);
    const { ops, imm, immStart } = body;
    // gets and definitions per local (CSR), in body order
    const getStart = new Int32Array(nLocals + 1);
    const defStart = new Int32Array(nLocals + 1);
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op === LOCAL_GET) getStart[imm[immStart[i]!]! + 1]!++;
      else if (op === LOCAL_SET || op === LOCAL_TEE) defStart[imm[immStart[i]!]! + 1]!++;
    }
    for (let x = 0; x < nLocals; x++) {
      getStart[x + 1]! += getStart[x]!;
      defStart[x + 1]! += defStart[x]!;
    }
    this.getStart = getStart;
    this.defStart = defStart;
    this.getList = new Int32Array(getStart[nLocals]!);
    this.defList = new Int32Array(defStart[nLocals]!);
    const getAt = getStart.slice(0, nLocals);
    const defAt = defStart.slice(0, nLocals);
    for (let i = 0; i < n; i++) {
      const op = ops[i]!;
      if (op !== LOCAL_SET && op !== LOCAL_TEE) continue;
      const x = imm[immStart[i]!]!;
      this.defined[i] = this.add(DEF, x, i);
      this.defList[defAt[x]!++] = i;
    }
    for (let x = 0; x < nLocals; x++) this.entryValue.push(this.add(x < nParams ? PARAM : ZERO, x, -1));
    // a get reads the last definition before it in its block, else (PENDING) the block's entry value,
    // which for a local never written is its entry value; current[x] holds a definition made earlier
    // in block b while stamp[x] is b + 1
    const current = new Int32Array(nLocals);
    const stamp = new Int32Array(nLocals);
    for (let b = 0; b < g.count; b++) {
      const live = g.rpoIndex[b]! >= 0;
      for (let i = g.blockStart[b]!; i < g.blockStart[b + 1]!; i++) {
        const op = ops[i]!;
        if (op === LOCAL_SET || op === LOCAL_TEE) {
          const x = imm[immStart[i]!]!;
          current[x] = this.defined[i]!;
          stamp[x] = b + 1;
        } else if (op === LOCAL_GET) {
          const x = imm[immStart[i]!]!;
          this.getList[getAt[x]!++] = i;
          this.reads[i] = !live ? UNREACHABLE : stamp[x] === b + 1 ? current[x]! : defStart[x] === defStart[x + 1] ? this.entryValue[x]! : PENDING;
        }
      }
    }
    // (blocks are consecutive ranges of the body, so getList is in body order)
  }

  /** Number of values made so far (removed φs keep their numbers but are no longer read by anything). */
  get count(): number {
    return this.kind.length;
  }

  /** The value the `local.get` at instruction i reads (UNREACHABLE in code the entry cannot reach); -2 if i is no local.get. */
  readOf(i: number): number {
    const v = this.reads[i]!;
    if (v !== PENDING) return v;
    this.complete(this.cfg.body.imm[this.cfg.body.immStart[i]!]!);
    return this.reads[i]!;
  }

  /** The `local.get` instructions that read `v`, in body order. */
  getsOf(v: number): readonly number[] {
    if (v < 0) return [];
    this.complete(this.local[v]!);
    return this.gets[v] ?? [];
  }

  /** The φ values that have `v` among their operands. */
  phisUsing(v: number): readonly number[] {
    if (v < 0) return [];
    this.complete(this.local[v]!);
    return this.phis[v] ?? [];
  }

  /** The `local.set`/`local.tee` instructions of local x, in body order. */
  defsOf(x: number): Int32Array {
    return this.defList.subarray(this.defStart[x]!, this.defStart[x + 1]!);
  }

  /** Makes the values of every local (for callers that look at all of them). */
  completeAll(): this {
    for (let x = 0; x < this.nLocals; x++) this.complete(x);
    return this;
  }

  /** The non-φ values that may reach `v` (itself if it is no φ), through φ operands. */
  origins(v: number): number[] {
    const out: number[] = [];
    const seen = new Set<number>([v]);
    const stack = [v];
    while (stack.length > 0) {
      const w = stack.pop()!;
      if (this.kind[w] !== PHI) {
        out.push(w);
        continue;
      }
      for (const o of this.operands[w]!) {
        if (o >= 0 && !seen.has(o)) {
          seen.add(o);
          stack.push(o);
        }
      }
    }
    return out.sort((a, b) => a - b);
  }

  /** False for a φ that construction removed (it merged one value only). */
  live(v: number): boolean {
    return this.kind[v] !== PHI || this.operands[v]!.length > 0;
  }

  /** Works out what every get of local x reads, removes x's trivial φs, and records the uses of x's values. */
  private complete(x: number): void {
    if (this.done[x]) return;
    this.done[x] = 1;
    const first = this.count;
    const g = this.cfg;
    const gets = this.getList.subarray(this.getStart[x]!, this.getStart[x + 1]!);
    let pending = false;
    for (const i of gets) if (this.reads[i] === PENDING) pending = true;
    if (pending) {
      // per block: x's last definition in it, and x's value on entry once known (ABSENT: not yet)
      const lastDef = new Int32Array(g.count).fill(ABSENT);
      const entry = new Int32Array(g.count).fill(ABSENT);
      // the one block holding every definition of x (-1 if several do): its last definition is what
      // every block it strictly dominates reads on entry (no other definition can come between), so
      // reads there need no walk and leave no φ (they were all trivial ones)
      let defBlock = -2;
      for (const d of this.defsOf(x)) {
        const b = g.blockOf[d]!;
        lastDef[b] = this.defined[d]!;
        defBlock = defBlock === -2 || defBlock === b ? b : -1;
      }
      const dom = dominatorTree(g.body);
      for (const i of gets) if (this.reads[i] === PENDING) this.reads[i] = this.readEntry(g.blockOf[i]!, x, lastDef, entry, defBlock, dom);
    }
    // every φ made here is one of x's
    removeTrivialPhis(this, first, gets, this.reads);
    for (const i of gets) {
      const v = this.reads[i]!;
      if (v >= 0) (this.gets[v] ??= []).push(i);
    }
    for (let v = first; v < this.count; v++) {
      if (!this.live(v)) continue;
      const ops = this.operands[v]!;
      for (let k = 0; k < ops.length; k++) if (ops[k]! >= 0 && ops.indexOf(ops[k]!) === k) (this.phis[ops[k]!] ??= []).push(v);
    }
  }

  /** The value of x on entry to block b0: explicit-stack version of Braun et al.'s readVariableRecursive. */
  private readEntry(b0: number, x: number, lastDef: Int32Array, entry: Int32Array, defBlock: number, dom: DomTree): number {
    const known = entry[b0]!;
    if (known !== ABSENT) return known;
    const g = this.cfg;
    const initial = this.entryValue[x]!;
    // frames: blocks whose entry value is wanted (a φ block reads its operands in order)
    const blocks: number[] = [b0];
    let result = -1;
    while (blocks.length > 0) {
      const b = blocks[blocks.length - 1]!;
      let v = entry[b]!;
      // the entry block has the function's entry as one more predecessor (first)
      const first = b === g.entry ? 1 : 0;
      const np = g.predStart[b + 1]! - g.predStart[b]! + first;
      if (v === ABSENT) {
        if (b === g.entry && np === 1) v = initial;
        else if (g.rpoIndex[b]! < 0) v = UNREACHABLE;
        else if (defBlock >= 0 && dom.strictlyDominates(defBlock, b)) v = lastDef[defBlock]!;
        else if (np === 1) {
          // one predecessor: its value at its end
          const p = g.pred[g.predStart[b]!]!;
          const d = lastDef[p]!;
          if (d !== ABSENT) v = d;
          else {
            const pv = entry[p]!;
            if (pv === ABSENT) {
              blocks.push(p);
              continue;
            }
            v = pv;
          }
        } else {
          // a φ, placed before its operands are read (closes loops)
          v = this.add(PHI, x, b);
        }
        entry[b] = v;
      }
      if (this.kind[v] === PHI && this.at[v] === b && this.operands[v]!.length < np) {
        // read the φ's operands one at a time
        const ops = this.operands[v]!;
        let waiting = false;
        while (ops.length < np) {
          if (ops.length < first) {
            ops.push(initial);
            continue;
          }
          const p = g.pred[g.predStart[b]! + ops.length - first]!;
          if (g.rpoIndex[p]! < 0) {
            ops.push(UNREACHABLE);
            continue;
          }
          const d = lastDef[p]!;
          if (d !== ABSENT) {
            ops.push(d);
            continue;
          }
          const pv = entry[p]!;
          if (pv === ABSENT) {
            blocks.push(p);
            waiting = true;
            break;
          }
          ops.push(pv);
        }
        if (waiting) continue;
      }
      result = v;
      blocks.pop();
    }
    return result;
  }

  /** @internal */
  add(kind: ValueKind, local: number, at: number): number {
    this.kind.push(kind);
    this.local.push(local);
    this.at.push(at);
    this.operands.push(kind === PHI ? [] : NO_OPERANDS);
    return this.kind.length - 1;
  }
}

/**
 * SSA of the locals of `body`, whose function has `nParams` parameters and
 * `nLocals` locals in all (parameters included). Cached per Body.
 */
export function localSsa(body: Body, nParams: number, nLocals: number): LocalSsa {
  let s = cache.get(body);
  if (!s || s.nParams !== nParams || s.nLocals !== nLocals) cache.set(body, (s = new LocalSsa(cfgOf(body), nParams, nLocals)));
  return s;
}

const cache = new WeakMap<Body, LocalSsa>();

/**
 * Replaces every φ from value `first` on whose operands are one value and
 * itself by that value (operands from predecessors the entry cannot reach
 * do not count), until none is left: replacing one can make the φs that use
 * it trivial, so those are looked at again. Then the reads of `gets` and
 * every operand are redirected to what their value became; removed φs keep
 * their number with no operands. The φs from `first` on are all of one
 * local's, and only that local's gets and φs read them.
 */
function removeTrivialPhis(s: LocalSsa, first: number, gets: Int32Array, reads: Int32Array): void {
  const n = s.count - first;
  if (n === 0) return;
  const to = new Int32Array(n);
  for (let v = 0; v < n; v++) to[v] = v + first;
  const find = (v: number): number => {
    if (v < first) return v;
    let r = v;
    while (r >= first && to[r - first] !== r) r = to[r - first]!;
    while (v >= first && to[v - first] !== r) {
      const w = to[v - first]!;
      to[v - first] = r;
      v = w;
    }
    return r;
  };
  // users of each φ as linked lists of edges (head, next; tail to append one list to another)
  let nEdges = 0;
  for (let v = first; v < s.count; v++) nEdges += s.operands[v]!.length;
  const head = new Int32Array(n).fill(-1);
  const tail = new Int32Array(n).fill(-1);
  const next = new Int32Array(nEdges);
  const user = new Int32Array(nEdges);
  let e = 0;
  const work: number[] = [];
  for (let v = first; v < s.count; v++) {
    work.push(v);
    for (const o of s.operands[v]!) {
      if (o < first || o === v) continue;
      user[e] = v;
      next[e] = head[o - first]!;
      if (head[o - first] === -1) tail[o - first] = e;
      head[o - first] = e++;
    }
  }
  while (work.length > 0) {
    const v = work.pop()!;
    if (to[v - first] !== v) continue;
    let same = -1;
    let trivial = true;
    for (const o0 of s.operands[v]!) {
      const o = find(o0);
      if (o < 0 || o === v || o === same) continue;
      if (same >= 0) {
        trivial = false;
        break;
      }
      same = o;
    }
    // (same < 0: a φ that merges only itself, which no block the entry reaches has)
    if (!trivial || same < 0) continue;
    to[v - first] = same;
    // v's users now use `same`: they may be trivial now, and again when `same` goes (v's list joins same's)
    const h = head[v - first]!;
    for (let k = h; k >= 0; k = next[k]!) if (to[user[k]! - first] === user[k]) work.push(user[k]!);
    if (same >= first && h >= 0) {
      const j = same - first;
      if (head[j] === -1) head[j] = h;
      else next[tail[j]!] = h;
      tail[j] = tail[v - first]!;
      head[v - first] = -1;
    }
  }
  for (let v = first; v < s.count; v++) {
    const ops = s.operands[v]!;
    if (find(v) !== v) ops.length = 0;
    else for (let k = 0; k < ops.length; k++) ops[k] = find(ops[k]!);
  }
  for (const i of gets) if (reads[i]! >= first) reads[i] = find(reads[i]!);
}
