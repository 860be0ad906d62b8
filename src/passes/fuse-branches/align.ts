// Aligning the pieces of two arms (SEME-Fusion at statement granularity,
// with Needleman–Wunsch instead of the paper's equal-length linear pairing).
// Two pieces match when their trees match node by node; where two subtrees
// differ and both are pure, non-trapping single numeric values, both are
// evaluated and `select` on the saved condition picks one. Where two
// subtrees are blocks or loops of the same type (isomorphic SESE regions,
// HyBF's CFM-CS), their contents are aligned in turn and melded: one
// construct, matched pieces once, the rest guarded inside it. A piece that
// is not a sequence of trees matches only an identical piece.

import { idOf } from "../../binary/opcodes/index.js";
import type { Body } from "../../ir/body.js";
import { isPureFlags, rangeFlags, type EffectsContext } from "../../analysis/effects.js";
import { rangeSize } from "../../analysis/sizes.js";
import { F32, F64, I32, I64, V128 } from "../../ir/types.js";
import type { ControlTree } from "../../analysis/control-tree.js";
import type { BodyTyping } from "../../analysis/body-typing.js";
import { armOf, type Arm, type Node, type Piece } from "./arms.js";
import { sequenceOf } from "./sequence.js";

export const SELECT = idOf("select");
const BLOCK = idOf("block"), LOOP = idOf("loop"), CALL = idOf("call"), CALL_INDIRECT = idOf("call_indirect"), I32_CONST = idOf("i32.const");

/** Functions already in a table no one else changes: differing callees of one type can go through it. */
export interface Callees {
  table: number;
  /** function index -> its slot */
  slots: ReadonlyMap<number, number>;
  /** function index -> type index */
  types: Int32Array;
  /** For a function without a slot: the slot it would get if one is appended for it, or undefined (none may be). */
  newSlot: ((f: number) => number | undefined) | null;
}

/** One step of the fused code: instructions copied from one arm, the condition, or a select. */
export type Item =
  | { k: "copy"; side: 0 | 1; from: number; to: number; guarded: boolean }
  | { k: "cond" }
  | { k: "select" }
  /** An instruction of the fused code's own (a guard's if, else, end; a slot's i32.const, with `newSlotOf` its function when the slot is to be appended). */
  | { k: "op"; op: number; words: number[]; newSlotOf?: number };

export interface Column {
  /** Piece of the then arm, or -1. */
  a: number;
  /** Piece of the else arm, or -1. */
  b: number;
  /** For a matched pair: the fused code. */
  items: Item[] | null;
  /** Selects, guards, melded region pairs, regions replicated around straight-line code and calls made indirect in it. */
  selects: number;
  guards: number;
  melds: number;
  replicas: number;
  indirect: number;
}

export interface AlignOptions {
  ectx: EffectsContext;
  /** select may take v128 operands (SIMD allowed). */
  simd: boolean;
  /** Most piece pairs compared per if (Needleman–Wunsch is quadratic). */
  maxPairs: number;
  /** Differing callees through a selected slot and call_indirect, or null. */
  callees: Callees | null;
  /** Meld blocks and loops of the same type (CFM-CS); needs ct and t. */
  meld: boolean;
  ct: ControlTree;
  t: BodyTyping;
}

/** Bytes the condition's local.get is assumed to take while aligning (the exact size decides later). */
const COND_BYTES = 2;

class Matcher {
  private readonly sizeA: Int32Array;
  private readonly sizeB: Int32Array;
  selects = 0;
  guards = 0;
  melds = 0;
  replicas = 0;
  indirect = 0;

  constructor(private readonly body: Body, private readonly A: Arm, private readonly B: Arm, private readonly o: AlignOptions) {
    this.sizeA = subtreeSizes(A.nodes);
    this.sizeB = subtreeSizes(B.nodes);
  }

  /** The fused code of pieces p (then) and q (else), or null if they do not match. */
  pieces(p: Piece, q: Piece): Item[] | null {
    const { A, B } = this;
    if (p.roots.length !== q.roots.length || !sameLeaves(p.leaves, q.leaves)) return null;
    if (p.trees && q.trees) {
      const out: Item[] = [];
      for (let r = 0; r < p.roots.length; r++) if (!this.tree(p.roots[r]!, q.roots[r]!, out)) return null;
      return out;
    }
    const pf = A.nodes[p.first]!.from, pt = A.nodes[p.last]!.to;
    const qf = B.nodes[q.first]!.from, qt = B.nodes[q.last]!.to;
    return sameCode(this.body, pf, pt, qf, qt) ? [{ k: "copy", side: 0, from: pf, to: pt, guarded: false }] : null;
  }

  private tree(x: number, y: number, out: Item[]): boolean {
    const nx = this.A.nodes[x]!, ny = this.B.nodes[y]!;
    const mark = out.length;
    const selects = this.selects;
    if (nx.kids.length === ny.kids.length && sameCode(this.body, nx.from, nx.to, ny.from, ny.to)) {
      let ok = true;
      for (let k = 0; k < nx.kids.length && ok; k++) ok = this.tree(nx.kids[k]!, ny.kids[k]!, out);
      if (ok) {
        out.push({ k: "copy", side: 0, from: nx.from, to: nx.to, guarded: false });
        return true;
      }
      out.length = mark;
      this.selects = selects;
    }
    if (this.o.callees && this.indirectCall(nx, ny, out)) return true;
    if (this.o.meld && (this.meld(nx, ny, out) || this.replicate(x, y, out))) return true;
    // both values computed, the condition picks one: only for pure, non-trapping single numeric values
    if (!this.selectable(nx, ny)) return false;
    const fx = this.A.nodes[x - this.sizeA[x]! + 1]!.from;
    const fy = this.B.nodes[y - this.sizeB[y]! + 1]!.from;
    if (!isPureFlags(rangeFlags(this.o.ectx, this.body, fx, nx.to)) || !isPureFlags(rangeFlags(this.o.ectx, this.body, fy, ny.to))) return false;
    out.push({ k: "copy", side: 0, from: fx, to: nx.to, guarded: false }, { k: "copy", side: 1, from: fy, to: ny.to, guarded: false }, { k: "cond" }, { k: "select" });
    this.selects++;
    return true;
  }

  /**
   * Two blocks or two loops of the same value type, without params: their
   * contents aligned and sequenced (guards inside), between one opener and
   * one end. Labels inside keep their depths: the two constructs nest alike
   * around each copied piece.
   */
  private meld(nx: Node, ny: Node, out: Item[]): boolean {
    const { body, o } = this;
    const op = body.ops[nx.from]!;
    if ((op !== BLOCK && op !== LOOP) || body.ops[ny.from] !== op || nx.to - nx.from < 3 || ny.to - ny.from < 3) return false;
    const bt = body.imm[body.immStart[nx.from]!]!;
    if (bt < 0 || body.imm[body.immStart[ny.from]!] !== bt || nx.kids.length > 0 || ny.kids.length > 0) return false;
    const kx = o.ct.constructOf[nx.from]!, ky = o.ct.constructOf[ny.from]!;
    const ia = armOf(body, o.ct, o.t, kx, nx.from + 1, nx.to - 1);
    const ib = armOf(body, o.ct, o.t, ky, ny.from + 1, ny.to - 1);
    if (!ia || !ib) return false;
    const cols = alignArms(body, ia, ib, o);
    if (!cols) return false;
    const sq = sequenceOf({ A: ia, B: ib, cols, results: bt === 0x40 ? [] : [bt], blockType: bt });
    if (!sq) return false;
    out.push({ k: "copy", side: 0, from: nx.from, to: nx.from + 1, guarded: false }, ...sq.items, { k: "copy", side: 0, from: nx.to - 1, to: nx.to, guarded: false });
    this.selects += sq.selects;
    this.guards += sq.guards;
    this.melds += 1 + sq.melds;
    this.replicas += sq.replicas;
    this.indirect += sq.indirect;
    return true;
  }

  /**
   * Calls of two functions of one type, both with a slot in the table (or
   * one that may be appended for them, slots.ts), whose arguments match: the
   * arguments once, then the slot selected on the condition and
   * call_indirect (the signature check cannot fail, a slot cannot change:
   * slots.ts).
   */
  private indirectCall(nx: Node, ny: Node, out: Item[]): boolean {
    const { body } = this;
    const cs = this.o.callees!;
    if (body.ops[nx.from] !== CALL || body.ops[ny.from] !== CALL || nx.kids.length !== ny.kids.length) return false;
    const fa = body.imm[body.immStart[nx.from]!]!, fb = body.imm[body.immStart[ny.from]!]!;
    if (fa === fb || cs.types[fa] !== cs.types[fb]) return false;
    const oldA = cs.slots.get(fa), oldB = cs.slots.get(fb);
    const sa = oldA ?? cs.newSlot?.(fa), sb = oldB ?? cs.newSlot?.(fb);
    if (sa === undefined || sb === undefined) return false;
    const mark = out.length;
    const saved = [this.selects, this.guards, this.melds, this.replicas, this.indirect] as const;
    for (let k = 0; k < nx.kids.length; k++) {
      if (!this.tree(nx.kids[k]!, ny.kids[k]!, out)) {
        out.length = mark;
        [this.selects, this.guards, this.melds, this.replicas, this.indirect] = saved;
        return false;
      }
    }
    const slotA: Item = oldA === undefined ? { k: "op", op: I32_CONST, words: [sa], newSlotOf: fa } : { k: "op", op: I32_CONST, words: [sa] };
    const slotB: Item = oldB === undefined ? { k: "op", op: I32_CONST, words: [sb], newSlotOf: fb } : { k: "op", op: I32_CONST, words: [sb] };
    out.push(slotA, slotB, { k: "cond" }, { k: "select" }, { k: "op", op: CALL_INDIRECT, words: [cs.types[fa]!, cs.table] });
    this.indirect++;
    this.selects++;
    return true;
  }

  /**
   * Region replication: a block or loop on one side, a tree of straight-line
   * code (no control instruction at all) on the other. The region is put
   * around the straight-line code too, where it changes nothing (no branch
   * in that code names it; a loop runs once unless branched to), and the two
   * are melded: the region's contents aligned with that code.
   */
  private replicate(x: number, y: number, out: Item[]): boolean {
    const { body, o, A, B } = this;
    const nx = A.nodes[x]!, ny = B.nodes[y]!;
    const regionA = isRegion(body, nx), regionB = isRegion(body, ny);
    if (regionA === regionB) return false;
    const [rn, sn, sa, si, ss] = regionA ? [nx, ny, B, y, this.sizeB[y]!] : [ny, nx, A, x, this.sizeA[x]!];
    const bt = body.imm[body.immStart[rn.from]!]!;
    if (bt < 0 || rn.kids.length > 0 || rn.to - rn.from < 3) return false;
    if (bt === 0x40 ? sn.pushes.length !== 0 : sn.pushes.length !== 1 || sn.pushes[0] !== bt) return false;
    const sf = sa.nodes[si - ss + 1]!.from;
    for (let i = sf; i < sn.to; i++) if (CONTROL.has(body.ops[i]!)) return false;
    const k = o.ct.constructOf[rn.from]!;
    const inner = armOf(body, o.ct, o.t, k, rn.from + 1, rn.to - 1);
    const plain = armOf(body, o.ct, o.t, o.ct.constructOf[sf]!, sf, sn.to);
    if (!inner || !plain) return false;
    const [ia, ib] = regionA ? [inner, plain] : [plain, inner];
    const cols = alignArms(body, ia, ib, o);
    if (!cols) return false;
    const sq = sequenceOf({ A: ia, B: ib, cols, results: bt === 0x40 ? [] : [bt], blockType: bt });
    if (!sq) return false;
    const side = regionA ? 0 : 1;
    out.push({ k: "copy", side, from: rn.from, to: rn.from + 1, guarded: false }, ...sq.items, { k: "copy", side, from: rn.to - 1, to: rn.to, guarded: false });
    this.selects += sq.selects;
    this.guards += sq.guards;
    this.melds += sq.melds;
    this.replicas += 1 + sq.replicas;
    this.indirect += sq.indirect;
    return true;
  }

  private selectable(nx: Node, ny: Node): boolean {
    if (nx.pushes.length !== 1 || ny.pushes.length !== 1 || nx.pushes[0] !== ny.pushes[0]) return false;
    const t = nx.pushes[0]!;
    return t === I32 || t === I64 || t === F32 || t === F64 || (t === V128 && this.o.simd);
  }
}

/** Instructions that make control flow: straight-line code has none. */
const CONTROL = new Set(["block", "loop", "if", "else", "end", "br", "br_if", "br_table", "return", "unreachable", "try", "try_table", "catch", "catch_all", "delegate", "throw", "throw_ref", "rethrow", "return_call", "return_call_indirect", "return_call_ref", "br_on_null", "br_on_non_null", "br_on_cast", "br_on_cast_fail"].map(idOf));

function isRegion(body: Body, n: Node): boolean {
  const op = body.ops[n.from]!;
  return (op === BLOCK || op === LOOP) && n.to - n.from >= 3;
}

/** Per node: nodes in its expression tree (meaningful inside tree pieces). */
function subtreeSizes(nodes: Node[]): Int32Array {
  const size = new Int32Array(nodes.length);
  for (let j = 0; j < nodes.length; j++) {
    let s = 1;
    for (const k of nodes[j]!.kids) s += size[k]!;
    size[j] = s;
  }
  return size;
}

function sameLeaves(a: number[] | null, b: number[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

/** Instructions [af, at) and [bf, bt) have the same ops and immediates. */
export function sameCode(body: Body, af: number, at: number, bf: number, bt: number): boolean {
  if (at - af !== bt - bf) return false;
  const { ops, imm, immStart } = body;
  for (let k = 0; k < at - af; k++) {
    const i = af + k, j = bf + k;
    if (ops[i] !== ops[j]) return false;
    const wi = immStart[i]!, wj = immStart[j]!;
    const n = immStart[i + 1]! - wi;
    if (immStart[j + 1]! - wj !== n) return false;
    for (let w = 0; w < n; w++) if (imm[wi + w] !== imm[wj + w]) return false;
  }
  return true;
}

/** Estimated bytes of fused code (the condition at COND_BYTES). */
export function itemsSize(body: Body, items: readonly Item[]): number {
  let n = 0;
  for (const it of items) n += it.k === "copy" ? rangeSize(body, it.from, it.to) : it.k === "cond" ? COND_BYTES : it.k === "op" ? 1 + it.words.length : 1;
  return n;
}

function pieceSize(body: Body, arm: Arm, p: Piece): number {
  return rangeSize(body, arm.nodes[p.first]!.from, arm.nodes[p.last]!.to);
}

/**
 * The alignment of the two arms' pieces that saves the most estimated bytes
 * (a matched pair saves both sizes less its fused code; gaps save nothing),
 * as columns in order; null if the arms have too many pieces to compare or
 * no pair pays.
 */
export function alignArms(body: Body, A: Arm, B: Arm, o: AlignOptions): Column[] | null {
  const n = A.pieces.length, m = B.pieces.length;
  if (n * m > o.maxPairs) return null;
  const matcher = new Matcher(body, A, B, o);
  const fused: (Item[] | null)[] = new Array(n * m).fill(null);
  const gain = new Float64Array(n * m);
  const sel = new Int32Array(n * m), grd = new Int32Array(n * m), mld = new Int32Array(n * m), rep = new Int32Array(n * m), ind = new Int32Array(n * m);
  const sa = A.pieces.map((p) => pieceSize(body, A, p));
  const sb = B.pieces.map((p) => pieceSize(body, B, p));
  let any = false;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      matcher.selects = matcher.guards = matcher.melds = matcher.replicas = matcher.indirect = 0;
      const items = matcher.pieces(A.pieces[i]!, B.pieces[j]!);
      if (!items) continue;
      const g = sa[i]! + sb[j]! - itemsSize(body, items);
      if (g <= 0) continue;
      fused[i * m + j] = items;
      gain[i * m + j] = g;
      sel[i * m + j] = matcher.selects;
      grd[i * m + j] = matcher.guards;
      mld[i * m + j] = matcher.melds;
      rep[i * m + j] = matcher.replicas;
      ind[i * m + j] = matcher.indirect;
      any = true;
    }
  }
  if (!any) return null;
  // Needleman–Wunsch with gap score 0: best[i][j] over the first i and j pieces
  const W = m + 1;
  const best = new Float64Array((n + 1) * W);
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      let v = Math.max(best[(i - 1) * W + j]!, best[i * W + j - 1]!);
      if (fused[(i - 1) * m + j - 1]) v = Math.max(v, best[(i - 1) * W + j - 1]! + gain[(i - 1) * m + j - 1]!);
      best[i * W + j] = v;
    }
  }
  const cols: Column[] = [];
  let i = n, j = m;
  while (i > 0 || j > 0) {
    const k = (i - 1) * m + j - 1;
    if (i > 0 && j > 0 && fused[k] && best[i * W + j] === best[(i - 1) * W + j - 1]! + gain[k]!) {
      cols.push({ a: i - 1, b: j - 1, items: fused[k]!, selects: sel[k]!, guards: grd[k]!, melds: mld[k]!, replicas: rep[k]!, indirect: ind[k]! });
      i--;
      j--;
    } else if (i > 0 && (j === 0 || best[i * W + j] === best[(i - 1) * W + j])) {
      cols.push({ a: --i, b: -1, items: null, selects: 0, guards: 0, melds: 0, replicas: 0, indirect: 0 });
    } else {
      cols.push({ a: -1, b: --j, items: null, selects: 0, guards: 0, melds: 0, replicas: 0, indirect: 0 });
    }
  }
  return cols.reverse();
}
