// Local liveness: which locals may still be read after an instruction.
// Backward dataflow over the basic blocks of structured control flow
// (block/loop/if/else/end, br/br_if/br_table, return, unreachable, tail
// calls). Only live-in bitsets per basic block are stored; a query finds
// the next access of the local and, if it is past the basic block, asks the
// live-in sets of the successors. Bodies with
// exception handling (try/catch/delegate/try_table/throw) are not analysed
// (computeLiveness returns null), so callers treat them as opaque.

import { idOf, opSet } from "../binary/opcodes/index.js";
import type { Body } from "../ir/body.js";

const BLOCK = idOf("block");
const LOOP = idOf("loop");
const IF = idOf("if");
const ELSE = idOf("else");
const END = idOf("end");
const BR = idOf("br");
const BR_IF = idOf("br_if");
const BR_TABLE = idOf("br_table");
const RETURN = idOf("return");
const UNREACHABLE = idOf("unreachable");
const RETURN_CALL = idOf("return_call");
const RETURN_CALL_INDIRECT = idOf("return_call_indirect");
const LOCAL_GET = idOf("local.get");
const LOCAL_SET = idOf("local.set");
const LOCAL_TEE = idOf("local.tee");
/** Per op: 1 for control instructions this analysis does not model. */
const OPAQUE = opSet(["try", "catch", "catch_all", "delegate", "rethrow", "throw", "throw_ref", "try_table", "br_on_null", "br_on_non_null", "br_on_cast", "br_on_cast_fail", "return_call_ref"]);

/** Control instructions: each forms a basic block of its own. */
function isControl(op: number): boolean {
  return op === BLOCK || op === LOOP || op === IF || op === ELSE || op === END || op === BR || op === BR_IF ||
    op === BR_TABLE || op === RETURN || op === UNREACHABLE || op === RETURN_CALL || op === RETURN_CALL_INDIRECT;
}

/** Most bitset words one function may take; beyond it the function is not analysed. */
const MAX_WORDS = 1 << 24;

export interface Liveness {
  /** True if local x may be read after instruction i executes (before being overwritten). */
  liveAfter(i: number, x: number): boolean;
  /**
   * liveAfter(i, x) when instruction q <= i accesses x and (q, i] does not:
   * the next access of x is then known without a search.
   */
  liveAfterAccess(q: number, i: number, x: number): boolean;
}

/**
 * Computes liveness of `nLocals` locals (params included) over `body`.
 * Returns null for bodies with instructions it does not model.
 */
export function computeLiveness(body: Body, nLocals: number): Liveness | null {
  const n = body.count;
  const ops = body.ops;
  const imm = body.imm;
  const st = body.immStart;
  // matching ends and elses
  const endOf = new Int32Array(n).fill(-1);
  const elseOf = new Int32Array(n).fill(-1);
  const stack: number[] = [];
  for (let i = 0; i < n; i++) {
    const op = ops[i]!;
    if (OPAQUE[op] === 1) return null;
    if (op === BLOCK || op === LOOP || op === IF) stack.push(i);
    else if (op === ELSE) elseOf[stack[stack.length - 1]!] = i;
    else if (op === END && stack.length) endOf[stack.pop()!] = i;
  }
  // basic blocks
  const bbOf = new Int32Array(n);
  const starts = new Int32Array(n + 1);
  let nbb = 0;
  for (let i = 0; i < n; i++) {
    if (i === 0 || isControl(ops[i]!) || isControl(ops[i - 1]!)) starts[nbb++] = i;
    bbOf[i] = nbb - 1;
  }
  starts[nbb] = n;
  const bbStart = starts.subarray(0, nbb + 1);
  const words = (nLocals + 31) >>> 5;
  if (words * nbb > MAX_WORDS) return null;
  // successors (CSR); -1 = function exit (nothing live)
  const succStart = new Int32Array(nbb + 1);
  const succ: number[] = [];
  const frames: number[] = [-1];
  const target = (l: number): number => {
    const o = frames[frames.length - 1 - l];
    if (o === undefined || o < 0) return -1;
    return ops[o] === LOOP ? bbOf[o]! : bbOf[endOf[o]!]!;
  };
  for (let b = 0; b < nbb; b++) {
    succStart[b] = succ.length;
    const t = bbStart[b + 1]! - 1;
    const op = ops[t]!;
    const next = t + 1 < n ? bbOf[t + 1]! : -1;
    if (op === BLOCK || op === LOOP) {
      succ.push(next);
      frames.push(t);
    } else if (op === IF) {
      succ.push(next);
      succ.push(elseOf[t]! >= 0 ? bbOf[elseOf[t]! + 1]! : bbOf[endOf[t]!]!);
      frames.push(t);
    } else if (op === ELSE) {
      succ.push(bbOf[endOf[frames[frames.length - 1]!]!]!);
    } else if (op === END) {
      frames.pop();
      if (t < n - 1) succ.push(next);
    } else if (op === BR) succ.push(target(imm[st[t]!]!));
    else if (op === BR_IF) {
      succ.push(target(imm[st[t]!]!));
      succ.push(next);
    } else if (op === BR_TABLE) {
      const w = st[t]!;
      const cnt = imm[w]!;
      for (let k = 0; k <= cnt; k++) succ.push(target(imm[w + 1 + k]!));
    } else if (op === RETURN || op === UNREACHABLE || op === RETURN_CALL || op === RETURN_CALL_INDIRECT) {
      // no successors
    } else succ.push(next);
  }
  succStart[nbb] = succ.length;
  const succs = Int32Array.from(succ);

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
        if (c < 0) continue;
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
  return new FuncLiveness(body, bbOf, bbStart, succStart, succs, liveIn, words, nextAccess);
}

/** The answer of computeLiveness: one class (not closures per function) so queries are monomorphic calls. */
class FuncLiveness implements Liveness {
  constructor(
    private readonly body: Body,
    private readonly bbOf: Int32Array,
    private readonly bbStart: Int32Array,
    private readonly succStart: Int32Array,
    private readonly succs: Int32Array,
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

  /** Whether x, next accessed at j (-1: never) after i, is live after i. */
  private liveFrom(i: number, x: number, j: number): boolean {
    const b = this.bbOf[i]!;
    if (j >= 0 && j < this.bbStart[b + 1]!) return this.body.ops[j] === LOCAL_GET;
    const bit = 1 << (x & 31);
    const wx = x >>> 5;
    const { succStart, succs, liveIn, words } = this;
    for (let s = succStart[b]!; s < succStart[b + 1]!; s++) {
      const c = succs[s]!;
      if (c >= 0 && (liveIn[c * words + wx]! & bit) !== 0) return true;
    }
    return false;
  }
}
