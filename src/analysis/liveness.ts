// Local liveness: which locals may still be read after an instruction.
// Backward dataflow over the basic blocks of the body's CFG (analysis/cfg.ts).
// Only live-in bitsets per basic block are stored; a query finds the next
// access of the local and, if it is past the basic block, asks the live-in
// sets of the successors.
//
// Exception handling needs nothing of its own here: the CFG gives every
// instruction that may throw to a handler in the body (a throw, rethrow or
// throw_ref, and a call inside a try or try_table body) a block of its own
// with an edge to each handler it may reach, so a local the handler reads is
// live after the throwing instruction and after the writes before it. The
// CFG's exception edges are conservative (more handlers, never fewer), so
// liveness is too. Exceptions that leave the function, like returns, make
// nothing live.

import { idOf } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";
import { cfgOf } from "./cfg.js";

const LOCAL_GET = idOf("local.get");
const LOCAL_SET = idOf("local.set");
const LOCAL_TEE = idOf("local.tee");

/** Most bitset words one function may take; beyond it the function is not analysed. */
const MAX_WORDS = 1 << 24;

export interface Liveness {
  /**
   * True if local x may be read after instruction i executes (before being
   * overwritten): on the way control falls through or branches, or, for an
   * instruction that may throw to a handler in the body, in that handler.
   */
  liveAfter(i: number, x: number): boolean;
  /**
   * liveAfter(i, x) when instruction q <= i accesses x and (q, i] does not:
   * the next access of x is then known without a search.
   */
  liveAfterAccess(q: number, i: number, x: number): boolean;
  /**
   * True if local x may be read from instruction i on, before being
   * overwritten (live on entry to i): for a handler's first instruction, may
   * the handler read x.
   */
  liveBefore(i: number, x: number): boolean;
}

/**
 * Computes liveness of `nLocals` locals (params included) over `body`.
 * Returns null only when the bitsets would be too large (MAX_WORDS).
 */
export function computeLiveness(body: Body, nLocals: number): Liveness | null {
  const n = body.count;
  const ops = body.ops;
  const imm = body.imm;
  const st = body.immStart;
  const g = cfgOf(body);
  const nbb = g.count;
  const { blockOf: bbOf, blockStart: bbStart, succStart, succ: succs } = g;
  const words = (nLocals + 31) >>> 5;
  if (words * nbb > MAX_WORDS) return null;

  // per block, each local it accesses once, by its first access: a read
  // makes it live on entry, a write dead, whatever is live on exit (CSR)
  const accStart = new Int32Array(nbb + 1);
  const accLocal = new Int32Array(n);
  const accRead = new Uint8Array(n);
  const seenIn = new Int32Array(nLocals).fill(-1);
  let nAcc = 0;
  for (let b = 0; b < nbb; b++) {
    accStart[b] = nAcc;
    for (let i = bbStart[b]!; i < bbStart[b + 1]!; i++) {
      const op = ops[i]!;
      if (op !== LOCAL_GET && op !== LOCAL_SET && op !== LOCAL_TEE) continue;
      const x = imm[st[i]!]!;
      if (seenIn[x] === b) continue;
      seenIn[x] = b;
      accLocal[nAcc] = x;
      accRead[nAcc++] = op === LOCAL_GET ? 1 : 0;
    }
  }
  accStart[nbb] = nAcc;

  const liveIn = new Uint32Array(words * nbb);
  const tmp = new Uint32Array(words);
  // iterate to a fixpoint, last block first (most edges go forward)
  let changed = true;
  while (changed) {
    changed = false;
    for (let b = nbb - 1; b >= 0; b--) {
      // live on exit: the union of the successors' live-in
      tmp.fill(0);
      for (let s = succStart[b]!; s < succStart[b + 1]!; s++) {
        const c = succs[s]!;
        if (c >= nbb) continue; // the exit
        const base = c * words;
        for (let k = 0; k < words; k++) tmp[k]! |= liveIn[base + k]!;
      }
      for (let a = accStart[b]!; a < accStart[b + 1]!; a++) {
        const x = accLocal[a]!;
        if (accRead[a] === 1) tmp[x >>> 5]! |= 1 << (x & 31);
        else tmp[x >>> 5]! &= ~(1 << (x & 31));
      }
      const base = b * words;
      for (let k = 0; k < words; k++) {
        if (liveIn[base + k] !== tmp[k]) {
          liveIn[base + k] = tmp[k]!;
          changed = true;
        }
      }
    }
  }

  // per local access: the next access of the same local, -1 if none
  const nextAccess = new Int32Array(n).fill(-1);
  const lastAccess = new Int32Array(nLocals).fill(-1);
  for (let i = 0; i < n; i++) {
    const op = ops[i]!;
    if (op !== LOCAL_GET && op !== LOCAL_SET && op !== LOCAL_TEE) continue;
    const x = imm[st[i]!]!;
    if (lastAccess[x]! >= 0) nextAccess[lastAccess[x]!] = i;
    lastAccess[x] = i;
  }
  return new FuncLiveness(body, bbOf, bbStart, succStart, succs, nbb, liveIn, words, nextAccess);
}

/** The answer of computeLiveness: one class (not closures per function) so queries are monomorphic calls. */
class FuncLiveness implements Liveness {
  constructor(
    private readonly body: Body,
    private readonly bbOf: Int32Array,
    private readonly bbStart: Int32Array,
    private readonly succStart: Int32Array,
    private readonly succs: Int32Array,
    /** The CFG's exit node: nothing is live there. */
    private readonly exit: number,
    private readonly liveIn: Uint32Array,
    private readonly words: number,
    private readonly nextAccess: Int32Array,
  ) {}

  liveAfter(i: number, x: number): boolean {
    const { ops, imm, immStart: st } = this.body;
    const end = this.bbStart[this.bbOf[i]! + 1]!;
    let j = i + 1;
    while (j < end && !((ops[j] === LOCAL_GET || ops[j] === LOCAL_SET || ops[j] === LOCAL_TEE) && imm[st[j]!] === x)) j++;
    return this.liveFrom(i, x, j < end ? j : -1);
  }

  liveAfterAccess(q: number, i: number, x: number): boolean {
    return this.liveFrom(i, x, this.nextAccess[q]!);
  }

  liveBefore(i: number, x: number): boolean {
    const { ops, imm, immStart: st } = this.body;
    const b = this.bbOf[i]!;
    const end = this.bbStart[b + 1]!;
    for (let j = i; j < end; j++) {
      if ((ops[j] === LOCAL_GET || ops[j] === LOCAL_SET || ops[j] === LOCAL_TEE) && imm[st[j]!] === x) return ops[j] === LOCAL_GET;
    }
    return this.liveFrom(end - 1, x, -1);
  }

  /** Whether x, next accessed at j (-1: never) after i, is live after i. */
  private liveFrom(i: number, x: number, j: number): boolean {
    const b = this.bbOf[i]!;
    if (j >= 0 && j < this.bbStart[b + 1]!) return this.body.ops[j] === LOCAL_GET;
    const bit = 1 << (x & 31);
    const wx = x >>> 5;
    const { succStart, succs, liveIn, words } = this;
    for (let s = succStart[b]!; s < succStart[b + 1]!; s++) {
      const c = succs[s]!;
      if (c < this.exit && (liveIn[c * words + wx]! & bit) !== 0) return true;
    }
    return false;
  }
}
