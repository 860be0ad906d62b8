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

const LOCAL_GET = idOf("local.get");
const LOCAL_SET = idOf("local.set");
const LOCAL_TEE = idOf("local.tee");

export const PARAM = 0, ZERO = 1, DEF = 2, PHI = 3;
export type ValueKind = typeof PARAM | typeof ZERO | typeof DEF | typeof PHI;
/** What a `local.get` reads in code the entry cannot reach. */
export const UNREACHABLE = -1;

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
  /** Per instruction: for a `local.get`, the value it reads (or UNREACHABLE); -2 elsewhere. */
  readonly read: Int32Array;
  /** Per DEF instruction (`local.set`/`local.tee`): its value; -2 elsewhere. */
  readonly defined: Int32Array;
  private usesCache: { gets: number[][]; phis: number[][] } | null = null;

  constructor(
    readonly cfg: Cfg,
    readonly nParams: number,
    readonly nLocals: number,
  ) {
    this.read = new Int32Array(cfg.body.count).fill(-2);
    this.defined = new Int32Array(cfg.body.count).fill(-2);
  }

  /** Number of values (removed φs keep their numbers but are no longer read by anything). */
  get count(): number {
    return this.kind.length;
  }

  /** The `local.get` instructions that read `v`. */
  getsOf(v: number): readonly number[] {
    return this.uses().gets[v] ?? [];
  }

  /** The φ values that have `v` among their operands. */
  phisUsing(v: number): readonly number[] {
    return this.uses().phis[v] ?? [];
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

  private uses(): { gets: number[][]; phis: number[][] } {
    if (this.usesCache) return this.usesCache;
    const gets: number[][] = [];
    const phis: number[][] = [];
    this.read.forEach((v, i) => {
      if (v >= 0) (gets[v] ??= []).push(i);
    });
    for (let v = 0; v < this.count; v++) {
      if (this.kind[v] !== PHI || !this.live(v)) continue;
      for (const o of new Set(this.operands[v]!)) if (o >= 0) (phis[o] ??= []).push(v);
    }
    return (this.usesCache = { gets, phis });
  }

  /** False for a φ that construction removed (it merged one value only). */
  live(v: number): boolean {
    return this.kind[v] !== PHI || this.operands[v]!.length > 0;
  }

  /** @internal */
  add(kind: ValueKind, local: number, at: number): number {
    this.kind.push(kind);
    this.local.push(local);
    this.at.push(at);
    this.operands.push([]);
    return this.kind.length - 1;
  }
}

/**
 * SSA of the locals of `body`, whose function has `nParams` parameters and
 * `nLocals` locals in all (parameters included). Cached per Body.
 */
export function localSsa(body: Body, nParams: number, nLocals: number): LocalSsa {
  let s = cache.get(body);
  if (!s || s.nParams !== nParams || s.nLocals !== nLocals) cache.set(body, (s = build(body, nParams, nLocals)));
  return s;
}

const cache = new WeakMap<Body, LocalSsa>();

function build(body: Body, nParams: number, nLocals: number): LocalSsa {
  const g = cfgOf(body);
  const s = new LocalSsa(g, nParams, nLocals);
  const { ops, imm, immStart } = body;
  const key = (b: number, x: number): number => b * nLocals + x;
  // the last definition of each local in each block, and the DEF values
  const lastDef = new Map<number, number>();
  for (let i = 0; i < body.count; i++) {
    const op = ops[i]!;
    if (op !== LOCAL_SET && op !== LOCAL_TEE) continue;
    const x = imm[immStart[i]!]!;
    const v = s.add(DEF, x, i);
    s.defined[i] = v;
    lastDef.set(key(g.blockOf[i]!, x), v);
  }
  const initial: number[] = [];
  for (let x = 0; x < nLocals; x++) initial.push(s.add(x < nParams ? PARAM : ZERO, x, -1));
  /** Value of each local on entry to a block, once known (a φ while its operands are being read). */
  const entry = new Map<number, number>();
  const reachable = (b: number): boolean => g.rpoIndex[b]! >= 0;

  /** The value of x on entry to block b: explicit-stack version of Braun et al.'s readVariableRecursive. */
  const readEntry = (b0: number, x: number): number => {
    const known = entry.get(key(b0, x));
    if (known !== undefined) return known;
    // frames: blocks whose entry value is wanted (a φ block reads its operands in order)
    const blocks: number[] = [b0];
    let result = -1;
    while (blocks.length > 0) {
      const b = blocks[blocks.length - 1]!;
      const k = key(b, x);
      let v = entry.get(k);
      // the entry block has the function's entry as one more predecessor (first)
      const first = b === g.entry ? 1 : 0;
      const np = g.predStart[b + 1]! - g.predStart[b]! + first;
      if (v === undefined) {
        if (b === g.entry && np === 1) v = initial[x]!;
        else if (!reachable(b)) v = UNREACHABLE;
        else if (np === 1) {
          // one predecessor: its value at its end
          const p = g.pred[g.predStart[b]!]!;
          const d = lastDef.get(key(p, x));
          if (d !== undefined) v = d;
          else {
            const pv = entry.get(key(p, x));
            if (pv === undefined) {
              blocks.push(p);
              continue;
            }
            v = pv;
          }
        } else {
          // a φ, placed before its operands are read (closes loops)
          v = s.add(PHI, x, b);
          entry.set(k, v);
        }
        if (np <= 1 || !reachable(b)) entry.set(k, v);
      }
      if (s.kind[v] === PHI && s.at[v] === b && s.operands[v]!.length < np) {
        // read the φ's operands one at a time
        const ops = s.operands[v]!;
        let waiting = false;
        while (ops.length < np) {
          if (ops.length < first) {
            ops.push(initial[x]!);
            continue;
          }
          const p = g.pred[g.predStart[b]! + ops.length - first]!;
          if (!reachable(p)) {
            ops.push(UNREACHABLE);
            continue;
          }
          const d = lastDef.get(key(p, x));
          if (d !== undefined) {
            ops.push(d);
            continue;
          }
          const pv = entry.get(key(p, x));
          if (pv === undefined) {
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
  };

  // every local.get reads the last definition before it in its block, else the block's entry value
  const current = new Map<number, number>();
  for (let b = 0; b < g.count; b++) {
    current.clear();
    const live = reachable(b);
    for (let i = g.blockStart[b]!; i < g.blockStart[b + 1]!; i++) {
      const op = ops[i]!;
      if (!live) {
        if (op === LOCAL_GET) s.read[i] = UNREACHABLE;
        continue;
      }
      if (op === LOCAL_SET || op === LOCAL_TEE) current.set(imm[immStart[i]!]!, s.defined[i]!);
      else if (op === LOCAL_GET) {
        const x = imm[immStart[i]!]!;
        s.read[i] = current.get(x) ?? readEntry(b, x);
      }
    }
  }
  removeTrivialPhis(s);
  return s;
}

/**
 * Replaces every φ whose operands are one value and itself by that value
 * (operands from predecessors the entry cannot reach do not count), until
 * none is left: replacing one can make the φs that use it trivial, so those
 * are looked at again. Then every read and operand is redirected to what its
 * value became; removed φs keep their number with no operands.
 */
function removeTrivialPhis(s: LocalSsa): void {
  const n = s.count;
  const to = new Int32Array(n);
  for (let v = 0; v < n; v++) to[v] = v;
  const find = (v: number): number => {
    if (v < 0) return v;
    let r = v;
    while (to[r] !== r) r = to[r]!;
    while (to[v] !== r) {
      const w = to[v]!;
      to[v] = r;
      v = w;
    }
    return r;
  };
  const users: number[][] = [];
  const work: number[] = [];
  for (let v = 0; v < n; v++) {
    if (s.kind[v] !== PHI) continue;
    work.push(v);
    for (const o of s.operands[v]!) if (o >= 0 && o !== v) (users[o] ??= []).push(v);
  }
  while (work.length > 0) {
    const v = work.pop()!;
    if (to[v] !== v) continue;
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
    to[v] = same;
    // v's users now use `same`: they may be trivial now, and again when `same` goes
    const us = users[v] ?? [];
    const into = (users[same] ??= []);
    for (const u of us) {
      if (to[u] !== u) continue;
      work.push(u);
      if (u !== same) into.push(u);
    }
  }
  for (let v = 0; v < n; v++) {
    if (s.kind[v] !== PHI) continue;
    s.operands[v] = find(v) !== v ? [] : s.operands[v]!.map(find);
  }
  s.read.forEach((r, i) => {
    if (r >= 0) s.read[i] = find(r);
  });
}
