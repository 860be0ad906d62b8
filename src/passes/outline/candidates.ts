// Candidates: repeated substrings of the corpus (LCP intervals of its suffix
// array) that are legal sequences, split by how their locals line up, with
// the exact byte benefit of outlining each group.
//
// Locals are renamed per occurrence by first use (the paper's register
// renaming): occurrences whose canonical local pattern agrees can share one
// function. In that function, a canonical local whose first use is an
// unconditional write is an ordinary local; one that may be read before
// being written is a parameter; one that is written and live after the
// sequence in some occurrence is a result.
//
// The search is here; what a candidate saves, in exact bytes, and the
// bounds that let the search skip repeats early are the cost model's
// (cost.ts).

import { u32Size } from "../../binary/bytes.js";
import { idOf } from "../../binary/opcodes/index.js";
import { LOCAL_WORDS } from "../../ir/imm-layout.js";
import type { Body } from "../../ir/body.js";
import type { Module } from "../../ir/module.js";
import { EXNREF, EXTERNREF, FUNCREF, heapOf, isNullable, isNumeric, isRef, type ValType } from "../../ir/types.js";
import { KIND_FUNC } from "../../analysis/typecontext.js";
import type { ModuleEnv } from "../../analysis/module-env.js";
import { CodeValidator } from "../../analysis/validate-code.js";
import { liveness, type Corpus } from "./corpus.js";
import type { SignaturePlan } from "../../extract/new-function.js";
import type { Exit } from "../../extract/call-site.js";
import { benefitOf, calleeEntryBytes, OutlineCost, repeatMayPay } from "./cost.js";
import { siteKeepsHandlers } from "./exceptions.js";

const LOCAL_GET = idOf("local.get");
const LOCAL_SET = idOf("local.set");
const LOCAL_TEE = idOf("local.tee");
const RETURN = idOf("return");

export const NORMAL = 0;
/** Ends in a return (or a trap after a return inside): the call becomes return_call, or call + return. */
export const RET = 1;
/** Ends in `unreachable` at its top level: the call is followed by `unreachable`. */
export const TRAP = 2;
/** How a call site of each kind leaves (see extract/call-site.ts). */
export const EXIT: readonly Exit[] = ["none", "return", "trap"];

/** Longest sequence considered, in instructions. */
const MAX_LEN = 2000;
/**
 * Most results of an outlined function. V8 in Node 20 (11.3) miscomputes
 * functions that return three or more values once they tier up from Liftoff
 * to TurboFan (web-tree-sitter ran out of bounds with such a function and
 * ran correctly with --liftoff-only or --no-liftoff); two results are
 * returned in registers there and work.
 */
const MAX_RESULTS = 2;
/** Lengths evaluated per repeat (the longest legal one, then shorter ones with fewer locals). */
const MAX_LENGTHS = 3;

export interface Candidate {
  len: number;
  kind: number;
  /** String positions of the occurrences, ascending, non-overlapping. */
  occs: Int32Array;
  /** Number of canonical locals. */
  nc: number;
  /** Per occurrence j: the local index of canonical local c at xs[j * nc + c]. */
  xs: Int32Array;
  /** Per occurrence j: whether result local r is live there at live[j * resultLocals.length + r] (else it is dropped). */
  live: Uint8Array;
  /** Per occurrence: bytes removed minus call-site bytes, without the callee index. */
  gain: Int32Array;
  canonTypes: ValType[];
  paramLocals: number[];
  resultLocals: number[];
  params: ValType[];
  results: ValType[];
  /** Number of leading params that come from the operand stack. */
  stackParams: number;
  /** The callee drops the sequence's final `return` (its `end` returns the same values). */
  stripReturn: boolean;
  /** Callee local index of each canonical local. */
  newIndex: Int32Array;
  /** Callee local declarations (the canonical locals that are not parameters). */
  locals: { count: number; type: ValType }[];
  /** Callee code entry (local declarations + instructions), without its size prefix. */
  bodyBytes: number;
  benefit: number;
}

export interface EvalContext {
  m: Module;
  corpus: Corpus;
  env: ModuleEnv;
  /**
   * Whether a new signature may name (ref $t), the exact type the validator
   * gives `ref.func $f`: only where the output may use typed function
   * references (the input does, or they were enabled). Otherwise such a
   * value is passed on as funcref, all a module without them can ask for.
   */
  typedFuncRefs: boolean;
  multiValue: boolean;
  tailCalls: boolean;
  /** Whether a new signature may name exnref (the input uses or declares exception handling and reference types). */
  exnRefs: boolean;
  /** Bytes a name-section entry for a new function costs (0 without a name section). */
  nameCost: (funcIndex: number) => number;
  /** Signatures of the new functions chosen so far in this round. */
  signatures: SignaturePlan;
  /** Index the next new function will get. */
  nextFunc: number;
}

function allowedType(ctx: EvalContext, t: ValType): boolean {
  return isNumeric(t) || t === FUNCREF || t === EXTERNREF || (t === EXNREF && ctx.exnRefs);
}

/** Type `t` of a value the sequence leaves on the stack as a new signature may name it (see EvalContext.typedFuncRefs). */
function resultType(ctx: EvalContext, t: ValType): ValType {
  if (ctx.typedFuncRefs || !isRef(t) || isNullable(t)) return t;
  const h = heapOf(t);
  return h >= 0 && ctx.env.ctx.kind[h] === KIND_FUNC ? FUNCREF : t;
}

/**
 * `head` followed by the types of canonical locals `locals`, as a fresh
 * packed array: spreading arrays of mixed origins here sent V8 into a
 * deoptimization loop (thousands per run on sql-wasm).
 */
function withTypesOf(head: readonly ValType[], locals: readonly number[], canonTypes: readonly ValType[]): ValType[] {
  const out: ValType[] = [];
  for (let k = 0; k < head.length; k++) out.push(head[k]!);
  for (let k = 0; k < locals.length; k++) out.push(canonTypes[locals[k]!]!);
  return out;
}

/** Grows a typed array scratch buffer to hold at least `n` entries (contents not kept). */
function ensure<T extends Int32Array | Uint8Array | Float64Array>(a: T, n: number): T {
  if (a.length >= n) return a;
  let len = a.length * 2;
  while (len < n) len *= 2;
  return new (a.constructor as { new (n: number): T })(len);
}

/** What every group of one repeat length shares (evaluateLength to evaluateGroup). */
interface GroupShape {
  len: number;
  kind: number;
  /** Types the copy takes from the stack / leaves on it (from the first copy's typing). */
  stackParams: ValType[];
  stackResults: ValType[];
  stripReturn: boolean;
  /** Bytes of a bare call to the next new function. */
  call: number;
  /** Local ops in the copy. */
  localOps: number;
}

/**
 * The search for candidates, with scratch shared by evaluations. Most
 * repeats turn out not to pay, so every evaluation first runs
 * allocation-free bounds on scratch buffers and only builds a Candidate once
 * the cheap bounds leave a chance of a gain. Its steps, outermost first:
 * evaluate (the legal lengths of a repeat, by typing its first copy),
 * evaluateLength (one length: its signature, bounds, groups by local
 * pattern), evaluateGroup (the copies that do not overlap), plan (locals'
 * roles, results by liveness, numbering). The byte figures are the cost
 * model's (cost.ts).
 */
export class Evaluator {
  /** The validator in open mode, typing a repeat's first copy. */
  private typer: CodeValidator;
  private depthAt = new Int32Array(MAX_LEN);
  private stamp: Int32Array;
  private canon: Int32Array;
  private epoch = 0;
  /** Benefit a candidate must beat to be worth keeping (raised as the pool fills). */
  floor = 0;
  // legal lengths found by evaluate
  private legalLen = new Int32Array(MAX_LEN);
  private legalKind = new Uint8Array(MAX_LEN);
  private legalDistinct = new Int32Array(MAX_LEN);
  private legalStrip = new Uint8Array(MAX_LEN);
  private legalInputs = new Int32Array(MAX_LEN);
  private legalSp = new Int32Array(MAX_LEN);
  private legalVals = new Int32Array(MAX_LEN * MAX_RESULTS);
  // per occurrence of a repeat (grown on demand)
  private positions = new Int32Array(64);
  private bytes = new Int32Array(64);
  private xsAll = new Int32Array(1024);
  private groupRep = new Int32Array(64);
  private groupHash = new Int32Array(64);
  private groupSize = new Int32Array(64);
  private groupOf = new Int32Array(64);
  private first = new Int32Array(65);
  private fill = new Int32Array(64);
  private members = new Int32Array(64);
  private occ = new Int32Array(64);
  private keptBytes = new Int32Array(64);
  private sorted = new Int32Array(64);
  private slots = new Int32Array(128);
  private sums = new Int32Array(3);
  // per canonical local / local op of the group being planned
  private read: Uint8Array;
  private written: Uint8Array;
  private definedFirst: Uint8Array;
  private seen: Uint8Array;
  private lastAt: Int32Array;
  private canonAt = new Int32Array(MAX_LEN);
  private nLocalOps = 0;
  private shrink = 0;
  /** The byte figures every bound and benefit compares (cost.ts). */
  private readonly cost: OutlineCost;

  constructor(private readonly ctx: EvalContext) {
    this.cost = new OutlineCost(ctx);
    this.typer = new CodeValidator(ctx.env);
    let maxLocals = 1;
    for (const info of ctx.corpus.infos) maxLocals = Math.max(maxLocals, info.localTypes.length);
    this.stamp = new Int32Array(maxLocals);
    this.canon = new Int32Array(maxLocals);
    this.read = new Uint8Array(maxLocals);
    this.written = new Uint8Array(maxLocals);
    this.definedFirst = new Uint8Array(maxLocals);
    this.seen = new Uint8Array(maxLocals);
    this.lastAt = new Int32Array(maxLocals);
  }

  /**
   * Candidates for a repeat: occurrences at sa[lb, rb] share their first
   * `maxLen` symbols; lengths below `minLen` belong to a larger repeat.
   */
  evaluate(sa: Int32Array, lb: number, rb: number, maxLen: number, minLen: number, out: Candidate[]): void {
    const { corpus } = this.ctx;
    const nOcc = rb - lb + 1;
    const p0 = sa[lb]!;
    maxLen = Math.min(maxLen, MAX_LEN);
    // evaluateLength's quick bound at the longest length: copies only grow with it
    const longest = corpus.psize[p0 + maxLen]! - corpus.psize[p0]!;
    if (!repeatMayPay(nOcc, longest, this.cost.call())) return;
    const info = corpus.infos[corpus.funcAt[p0]!]!;
    const i0 = corpus.instrAt[p0]!;
    const body = info.body;
    const typer = this.typer;
    typer.beginSequence(body, info.localTypes, info.results);
    let nLegal = 0;
    const ep = ++this.epoch;
    let distinct = 0;
    let stripReturn = false;
    for (let t = 0; t < maxLen; t++) {
      const i = i0 + t;
      this.depthAt[t] = typer.depth;
      const op = body.ops[i]!;
      // the callee may end in its own `end` instead of a final return when nothing extra is left under the results
      if (op === RETURN) stripReturn = !typer.unreachable && typer.height <= info.results.length;
      if (!typer.stepSequence(i)) break;
      const lw = LOCAL_WORDS[op];
      if (lw) {
        const x = body.imm[body.immStart[i]! + lw[0]!]!;
        if (this.stamp[x] !== ep) {
          this.stamp[x] = ep;
          distinct++;
        }
      }
      if (typer.depth !== 0) continue;
      const len = t + 1;
      if (typer.unreachable) {
        if (len >= minLen) this.addLegal(nLegal++, len, typer.returned ? RET : TRAP, distinct, typer.returned && op === RETURN && stripReturn);
        break;
      }
      if (!typer.returned && len >= minLen) this.addLegal(nLegal++, len, NORMAL, distinct, false);
    }
    if (nLegal === 0) return;
    // a copy in scratch rather than a subarray: one allocation less per repeat
    const positions = (this.positions = ensure(this.positions, nOcc));
    for (let k = 0; k < nOcc; k++) positions[k] = sa[lb + k]!;
    let lastDistinct = Infinity;
    let tried = 0;
    for (let k = nLegal - 1; k >= 0 && tried < MAX_LENGTHS; k--) {
      const d = this.legalDistinct[k]!;
      if (d >= lastDistinct) continue;
      lastDistinct = d;
      tried++;
      this.evaluateLength(positions, nOcc, k, out);
    }
  }

  /**
   * Records legal length number k and what evaluateLength needs of the
   * typer's state there: inputs so far (a prefix of inputsRev, which only
   * grows) and, when few enough to be results, the values on the stack.
   */
  private addLegal(k: number, len: number, kind: number, distinct: number, stripReturn: boolean): void {
    const typer = this.typer;
    this.legalLen[k] = len;
    this.legalKind[k] = kind;
    this.legalDistinct[k] = distinct;
    this.legalStrip[k] = stripReturn ? 1 : 0;
    this.legalInputs[k] = typer.inputsRev.length;
    const sp = typer.stackSize;
    this.legalSp[k] = sp;
    if (sp <= MAX_RESULTS) for (let v = 0; v < sp; v++) this.legalVals[k * MAX_RESULTS + v] = resultType(this.ctx, typer.stackType(v));
  }

  /** Candidates for the repeat at positions[0, nOcc) cut to legal length number `legal`. */
  private evaluateLength(positions: Int32Array, nOcc: number, legal: number, out: Candidate[]): void {
    const len = this.legalLen[legal]!;
    const kind = this.legalKind[legal]!;
    const ctx = this.ctx;
    const corpus = ctx.corpus;
    const psize = corpus.psize;
    const call = this.cost.call();
    // quick bound: even with free call sites and a free function this must pay
    const firstBytes = psize[positions[0]! + len]! - psize[positions[0]!]!;
    if (!repeatMayPay(nOcc, firstBytes, call)) return;

    // signature from the first occurrence, as evaluate's typing found it
    const typer = this.typer;
    const S = this.legalInputs[legal]!;
    for (let k = 0; k < S; k++) if (!allowedType(ctx, typer.inputsRev[k]!)) return;
    const nStackResults = kind === NORMAL ? this.legalSp[legal]! : 0;
    // plan refuses more results than this, and the stack results are among them
    if (kind === NORMAL && nStackResults > (ctx.multiValue ? MAX_RESULTS : 1)) return;
    const stackResults: ValType[] = [];
    for (let k = 0; k < nStackResults; k++) {
      const t = this.legalVals[legal * MAX_RESULTS + k]!;
      if (!allowedType(ctx, t)) return;
      stackResults.push(t);
    }
    const stripReturn = this.legalStrip[legal] === 1;
    const p0 = positions[0]!;
    const info0 = corpus.infos[corpus.funcAt[p0]!]!;
    const i0 = corpus.instrAt[p0]!;

    // bytes of each copy, read once: positions come in suffix-array order, so psize reads miss the cache
    const bytes = (this.bytes = ensure(this.bytes, nOcc));
    for (let k = 0; k < nOcc; k++) {
      const p = positions[k]!;
      bytes[k] = psize[p + len]! - psize[p]!;
    }
    // every copy but one becoming a bare call must beat the floor
    {
      let ub = -firstBytes;
      for (let k = 0; k < nOcc; k++) ub += bytes[k]! - call;
      if (ub <= Math.max(0, this.floor)) return;
    }
    const localOps = this.localOpsIfMayPay(info0.body, i0, len, nOcc, kind, S, stripReturn, firstBytes, call);
    if (localOps < 0) return;
    const stackParams: ValType[] = [];
    for (let k = S - 1; k >= 0; k--) stackParams.push(typer.inputsRev[k]!);

    const nGroups = this.groupByPattern(positions, nOcc, len, kind, localOps);
    const shape: GroupShape = { len, kind, stackParams, stackResults, stripReturn, call, localOps };
    for (let g = 0; g < nGroups; g++) this.evaluateGroup(positions, g, shape, out);
  }

  /** groupByPattern's hash of the copy at p: its local pattern in prev encoding, and for a repeat ending in a return its function's results. */
  private patternHash(p: number, len: number, kind: number, localOps: number): number {
    const corpus = this.ctx.corpus;
    let h = 0;
    if (kind === RET) {
      const r = corpus.infos[corpus.funcAt[p]!]!.results;
      h = r.length * 977 + (r[0] ?? 0);
    }
    if (localOps > 0) {
      const localPrev = corpus.localPrev;
      for (let t = p; t < p + len; t++) {
        const d = localPrev[t]!;
        if (d < 0) continue;
        h = Math.imul(h ^ (d <= t - p ? d : 0), 0x01000193) + 1;
      }
    }
    return h;
  }

  /**
   * The number of local ops in the first copy b0[i0, i0 + len), or -1 if
   * the repeat cannot pay: the new function costs at least its instructions
   * with 1-byte local indices, the stack-param pushes, end, local-decl
   * count, size prefix, type index and name; each copy gains at most its
   * bytes (this.bytes) minus a bare call, and minus the push of a parameter
   * when the first local access reads: that local is a parameter whatever
   * pattern a copy's locals follow.
   */
  private localOpsIfMayPay(b0: Body, i0: number, len: number, nOcc: number, kind: number, S: number, stripReturn: boolean, firstBytes: number, call: number): number {
    let localOps = 0;
    let shrink = 0;
    let param = 0;
    for (let t = 0; t < len; t++) {
      const op = b0.ops[i0 + t]!;
      const lw = LOCAL_WORDS[op];
      if (!lw) continue;
      if (localOps === 0 && op === LOCAL_GET) param = 2;
      localOps++;
      shrink += u32Size(b0.imm[b0.immStart[i0 + t]! + lw[0]!]!) - 1;
    }
    const bytes = this.bytes;
    const extra = this.cost.exitBytes(EXIT[kind]!);
    let ub = -this.cost.minFuncBytes(firstBytes, shrink, S, stripReturn);
    for (let k = 0; k < nOcc; k++) ub += Math.max(0, bytes[k]! - call - extra - param);
    return ub <= 0 ? -1 : localOps;
  }

  /**
   * Groups the occurrences positions[0, nOcc) by canonical local pattern
   * (compared in prev encoding; a repeat ending in a return also by its
   * function's results): open addressing on the pattern hash, as most
   * groups of long repeats are singletons. Leaves each group's members,
   * contiguous and in suffix-array order, in members[first[g], first[g + 1]);
   * returns the number of groups.
   */
  private groupByPattern(positions: Int32Array, nOcc: number, len: number, kind: number, localOps: number): number {
    const corpus = this.ctx.corpus;
    const localPrev = corpus.localPrev;
    const samePattern = (a: number, b: number): boolean => {
      const pa = positions[a]!;
      const pb = positions[b]!;
      if (localOps > 0) {
        for (let t = 0; t < len; t++) {
          const da = localPrev[pa + t]!;
          if (da < 0) continue;
          const db = localPrev[pb + t]!;
          if ((da <= t ? da : 0) !== (db <= t ? db : 0)) return false;
        }
      }
      if (kind !== RET) return true;
      const ra = corpus.infos[corpus.funcAt[pa]!]!.results;
      const rb = corpus.infos[corpus.funcAt[pb]!]!.results;
      return ra.length === rb.length && ra.every((t, q) => t === rb[q]);
    };
    let cap = 16;
    while (cap < nOcc * 2) cap <<= 1;
    const slots = (this.slots = ensure(this.slots, cap));
    slots.fill(-1, 0, cap);
    const groupRep = (this.groupRep = ensure(this.groupRep, nOcc));
    const groupHash = (this.groupHash = ensure(this.groupHash, nOcc));
    const groupSize = (this.groupSize = ensure(this.groupSize, nOcc));
    const groupOf = (this.groupOf = ensure(this.groupOf, nOcc));
    groupSize.fill(0, 0, nOcc);
    let nGroups = 0;
    for (let k = 0; k < nOcc; k++) {
      const h = this.patternHash(positions[k]!, len, kind, localOps);
      let slot = (h ^ (h >>> 15)) & (cap - 1);
      let gid = -1;
      for (;;) {
        const g = slots[slot]!;
        if (g < 0) break;
        if (groupHash[g] === h && samePattern(groupRep[g]!, k)) {
          gid = g;
          break;
        }
        slot = (slot + 1) & (cap - 1);
      }
      if (gid < 0) {
        gid = nGroups++;
        slots[slot] = gid;
        groupRep[gid] = k;
        groupHash[gid] = h;
      }
      groupOf[k] = gid;
      groupSize[gid]!++;
    }
    const first = (this.first = ensure(this.first, nGroups + 1));
    const fill = (this.fill = ensure(this.fill, nGroups));
    first[0] = 0;
    for (let g = 0; g < nGroups; g++) {
      first[g + 1] = first[g]! + groupSize[g]!;
      fill[g] = first[g]!;
    }
    const members = (this.members = ensure(this.members, nOcc));
    for (let k = 0; k < nOcc; k++) members[fill[groupOf[k]!]!++] = k;
    return nGroups;
  }

  /**
   * The candidate of group g (see groupByPattern), if it pays: bounds on
   * the whole group first, then the copies that do not overlap an earlier
   * one, their locals in order of first use, and plan.
   */
  private evaluateGroup(positions: Int32Array, g: number, sh: GroupShape, out: Candidate[]): void {
    const { len, kind, call, localOps } = sh;
    const psize = this.ctx.corpus.psize;
    const bytes = this.bytes;
    const members = this.members;
    const size = this.groupSize[g]!;
    if (size < 2) return;
    const lo = this.first[g]!;
    const hi = this.first[g + 1]!;
    // upper bound: every copy but one becomes a bare call
    let ub = -bytes[members[lo]!]!;
    for (let m = lo; m < hi; m++) ub += bytes[members[m]!]! - call;
    if (ub <= Math.max(0, this.floor)) return;
    if (!this.groupMayPay(positions, lo, hi, len, kind, sh.stackParams.length, sh.stripReturn, call)) return;
    const sorted = this.sortedPositions(positions, lo, hi);
    const occ = (this.occ = ensure(this.occ, size));
    const keptBytes = (this.keptBytes = ensure(this.keptBytes, size));
    // copies that overlap an earlier one are left out, and those a handler of their host could tell apart
    const corpus = this.ctx.corpus;
    let nKeep = 0;
    let end = -1;
    for (let m = 0; m < size; m++) {
      const p = sorted[m]!;
      if (p < end) continue;
      const info = corpus.infos[corpus.funcAt[p]!]!;
      if (corpus.handlers && !siteKeepsHandlers(info, corpus.instrAt[p]!, len, kind === RET, this.ctx.tailCalls)) continue;
      occ[nKeep] = p;
      keptBytes[nKeep++] = psize[p + len]! - psize[p]!;
      end = p + len;
    }
    if (nKeep < 2) return;
    const stride = Math.max(1, localOps);
    const xsAll = (this.xsAll = ensure(this.xsAll, nKeep * stride));
    let nc = 0;
    for (let j = 0; j < nKeep; j++) nc = this.canonLocals(occ[j]!, len, xsAll, j * stride);
    const c = this.plan(occ, keptBytes, nKeep, xsAll, stride, nc, len, kind, sh.stackParams, sh.stackResults, sh.stripReturn);
    if (c) out.push(c);
  }

  /**
   * Roles of the canonical locals of the copy at body[i0, i0 + len) into
   * read/written/definedFirst (the same for every copy of a group), the
   * offset of each one's last access into lastAt, their ids per local op
   * into canonAt, and nLocalOps and shrink (bytes saved if
   * every local index took one byte). Returns the number of canonical locals.
   */
  private localRoles(b: Body, i0: number, len: number): number {
    const { read, written, definedFirst, seen, canonAt } = this;
    const ep = ++this.epoch;
    let nc = 0;
    let nLocalOps = 0;
    let shrink = 0;
    for (let t = 0; t < len; t++) {
      const op = b.ops[i0 + t]!;
      const lw = LOCAL_WORDS[op];
      if (!lw) continue;
      const x = b.imm[b.immStart[i0 + t]! + lw[0]!]!;
      if (this.stamp[x] !== ep) {
        this.stamp[x] = ep;
        this.canon[x] = nc;
        read[nc] = written[nc] = definedFirst[nc] = seen[nc] = 0;
        nc++;
      }
      shrink += u32Size(x) - 1;
      const c = this.canon[x]!;
      canonAt[nLocalOps++] = c;
      const isWrite = op === LOCAL_SET || op === LOCAL_TEE;
      if (!seen[c]) {
        seen[c] = 1;
        if (isWrite && this.depthAt[t] === 0) definedFirst[c] = 1;
      }
      if (op === LOCAL_GET) read[c] = 1;
      if (isWrite) written[c] = 1;
      this.lastAt[c] = t;
    }
    this.nLocalOps = nLocalOps;
    this.shrink = shrink;
    return nc;
  }

  /**
   * plan's two bounds before liveness, loosened to hold for any subset of
   * the group members[lo, hi) (which copies overlap is not known yet: every
   * parameter read costs at least 2 bytes, every copy at most its bytes).
   * False if no subset can pass them: then sorting the group and listing
   * its locals is not needed.
   */
  private groupMayPay(positions: Int32Array, lo: number, hi: number, len: number, kind: number, S: number, stripReturn: boolean, call: number): boolean {
    const corpus = this.ctx.corpus;
    const members = this.members;
    const bytes = this.bytes;
    const p = positions[members[lo]!]!;
    const info = corpus.infos[corpus.funcAt[p]!]!;
    const nc = this.localRoles(info.body, corpus.instrAt[p]!, len);
    let np = 0;
    for (let c = 0; c < nc; c++) if (this.read[c] && !this.definedFirst[c]) np++;
    this.sumSites(lo, hi, call + 2 * np, this.cost.exitBytes(EXIT[kind]!));
    const sums = this.sums;
    if (sums[0]! - sums[2]! <= Math.max(0, this.floor)) return false;
    return sums[1]! - this.cost.minFuncBytes(bytes[members[lo]!]!, this.shrink, S, stripReturn) > 0;
  }

  /**
   * groupMayPay's sums over members[lo, hi), into sums: bytes saved at the
   * sites [0], the same less each site's extra [1], the smallest copy [2].
   * Its own method, with nothing after the loop: V8 compiles a loop's
   * first long run on the spot (OSR), before the code after the loop has
   * run, and that compiled code is kept and bails out there on every later
   * call (sql-wasm: 859 bail-outs when this loop sat inside groupMayPay).
   */
  private sumSites(lo: number, hi: number, cost: number, extra: number): void {
    const bytes = this.bytes;
    const members = this.members;
    const sums = this.sums;
    const localBytes = 2 * this.nLocalOps;
    sums[0] = 0;
    sums[1] = 0;
    sums[2] = 0x7fffffff;
    for (let m = lo; m < hi; m++) {
      const b = bytes[members[m]!]!;
      sums[0] += Math.max(0, b - cost);
      sums[1] += Math.max(0, b - cost - extra);
      sums[2] = Math.min(sums[2]!, Math.max(0, b - localBytes));
    }
  }

  /** Writes the local indices of the copy at `p`, in order of first use, to out[at...]; returns how many. */
  private canonLocals(p: number, len: number, out: Int32Array, at: number): number {
    const localX = this.ctx.corpus.localX;
    const ep = ++this.epoch;
    let nc = 0;
    for (let t = p; t < p + len; t++) {
      const x = localX[t]!;
      if (x < 0 || this.stamp[x] === ep) continue;
      this.stamp[x] = ep;
      out[at + nc++] = x;
    }
    return nc;
  }

  /** The positions of members[lo, hi), ascending, in this.sorted[0, hi - lo): insertion sort when short, a native sort otherwise. */
  private sortedPositions(positions: Int32Array, lo: number, hi: number): Int32Array {
    const n = hi - lo;
    const out = (this.sorted = ensure(this.sorted, n));
    const members = this.members;
    for (let m = 0; m < n; m++) out[m] = positions[members[lo + m]!]!;
    if (n > 24) {
      out.subarray(0, n).sort();
      return out;
    }
    for (let a = 1; a < n; a++) {
      const p = out[a]!;
      let b = a - 1;
      while (b >= 0 && out[b]! > p) {
        out[b + 1] = out[b]!;
        b--;
      }
      out[b + 1] = p;
    }
    return out;
  }

  /**
   * Roles of the locals, types and exact bytes for one group of occurrences
   * (`occ[0, nOcc)`: their positions, ascending, of `bytes[j]` bytes each;
   * the locals of occurrence j at xsAll[j * stride...]). Steps: the roles
   * of the locals and the bounds they allow (mayPay), the copies' locals
   * packed, the result locals (resultsOf, by liveness), the signature, the
   * new function's locals (calleeLocals), and its exact bytes and each
   * site's gain (cost.ts).
   */
  private plan(occ: Int32Array, bytes: Int32Array, nOcc: number, xsAll: Int32Array, stride: number, nc: number, len: number, kind: number,
    stackParams: ValType[], stackResults: ValType[], stripReturn: boolean): Candidate | null {
    const ctx = this.ctx;
    const corpus = ctx.corpus;
    const info = corpus.infos[corpus.funcAt[occ[0]!]!]!;
    const i0 = corpus.instrAt[occ[0]!]!;
    for (let c = 0; c < nc; c++) if (!allowedType(ctx, info.localTypes[xsAll[c]!]!)) return null;
    this.localRoles(info.body, i0, len);
    if (!this.mayPay(bytes, nOcc, xsAll, stride, nc, kind, stackParams.length, stripReturn)) return null;
    const occs = new Int32Array(nOcc);
    const xs = new Int32Array(nOcc * nc);
    for (let j = 0; j < nOcc; j++) {
      occs[j] = occ[j]!;
      const xo = j * stride;
      for (let c = 0; c < nc; c++) xs[j * nc + c] = xsAll[xo + c]!;
    }
    const canonTypes: ValType[] = [];
    for (let c = 0; c < nc; c++) canonTypes.push(info.localTypes[xs[c]!]!);
    const { resultLocals, live } = this.resultsOf(occs, nOcc, xs, nc, len, kind);
    const isResult = new Uint8Array(nc);
    for (const c of resultLocals) isResult[c] = 1;
    const paramLocals: number[] = [];
    for (let c = 0; c < nc; c++) if (!this.definedFirst[c] && (this.read[c] || isResult[c])) paramLocals.push(c);
    const params = withTypesOf(stackParams, paramLocals, canonTypes);
    const results = kind === NORMAL ? withTypesOf(stackResults, resultLocals, canonTypes) : kind === RET ? withTypesOf(info.results, [], canonTypes) : [];
    if (kind === NORMAL && results.length > (ctx.multiValue ? MAX_RESULTS : 1)) return null;
    if (!results.every((t) => allowedType(ctx, t))) return null;
    const { newIndex, locals } = calleeLocals(nc, stackParams.length, paramLocals, canonTypes);
    const c: Candidate = {
      len,
      kind,
      occs,
      nc,
      xs,
      live,
      gain: this.cost.siteGains(bytes, nOcc, xs, nc, paramLocals, resultLocals, live, EXIT[kind]!),
      canonTypes,
      paramLocals,
      resultLocals,
      params,
      results,
      stackParams: stackParams.length,
      stripReturn,
      newIndex,
      locals,
      bodyBytes: calleeEntryBytes(info.body, i0, len, stackParams.length, stripReturn, newIndex, this.canonAt, resultLocals, locals),
      benefit: 0,
    };
    c.benefit = benefitOf(ctx, c, null, ctx.nextFunc);
    return c.benefit > 0 ? c : null;
  }

  /**
   * plan's bounds before liveness, with the roles localRoles found: every
   * site pays at least the call and the reads of certain parameters, and
   * the new function costs at least a rough copy, then at least its least
   * cost (see evaluateLength).
   */
  private mayPay(bytes: Int32Array, nOcc: number, xsAll: Int32Array, stride: number, nc: number, kind: number, S: number, stripReturn: boolean): boolean {
    const cost = this.cost;
    const repBytes = bytes[0]!;
    const sites = cost.sitesSaveAtMost(bytes, nOcc, xsAll, stride, nc, this.read, this.definedFirst);
    if (sites - Math.max(0, repBytes - 2 * this.nLocalOps) <= Math.max(0, this.floor)) return false;
    return sites - nOcc * cost.exitBytes(EXIT[kind]!) - cost.minFuncBytes(repBytes, this.shrink, S, stripReturn) > 0;
  }

  /**
   * The result locals of a group (canonical locals written in the copy and
   * live after it in some occurrence, in order) and, per occurrence j and
   * result r, whether it is live there: live[j * resultLocals.length + r]
   * (else the site drops it). A body liveness does not analyse counts as
   * live everywhere.
   */
  private resultsOf(occs: Int32Array, nOcc: number, xs: Int32Array, nc: number, len: number, kind: number): { resultLocals: number[]; live: Uint8Array } {
    const corpus = this.ctx.corpus;
    const written = this.written;
    const resultLocals: number[] = [];
    let liveAt: Uint8Array | null = null;
    let anyWritten = false;
    for (let c = 0; c < nc; c++) if (written[c]) anyWritten = true;
    if (kind === NORMAL && anyWritten) {
      const lastAt = this.lastAt;
      const anyLive = this.seen; // reused: seen is not needed past localRoles
      anyLive.fill(0, 0, nc);
      for (let j = 0; j < nOcc; j++) {
        const p = occs[j]!;
        const oi = corpus.infos[corpus.funcAt[p]!]!;
        const lv = liveness(oi);
        const i = corpus.instrAt[p]!;
        for (let c = 0; c < nc; c++) {
          if (!written[c]) continue;
          if (!lv || lv.liveAfterAccess(i + lastAt[c]!, i + len - 1, xs[j * nc + c]!)) {
            liveAt ??= new Uint8Array(nOcc * nc);
            liveAt[j * nc + c] = 1;
            anyLive[c] = 1;
          }
        }
      }
      for (let c = 0; c < nc; c++) if (anyLive[c]) resultLocals.push(c);
    }
    const nr = resultLocals.length;
    const live = new Uint8Array(nOcc * nr);
    for (let j = 0; j < nOcc; j++) for (let r = 0; r < nr; r++) live[j * nr + r] = liveAt![j * nc + resultLocals[r]!]!;
    return { resultLocals, live };
  }
}

/**
 * The new function's local numbering: the S stack params, then the
 * parameter locals in order, then the other canonical locals grouped by
 * type (`newIndex` per canonical local), and their declarations.
 */
function calleeLocals(nc: number, S: number, paramLocals: readonly number[], canonTypes: readonly ValType[]): { newIndex: Int32Array; locals: { count: number; type: ValType }[] } {
  const newIndex = new Int32Array(nc).fill(-1);
  for (let k = 0; k < paramLocals.length; k++) newIndex[paramLocals[k]!] = S + k;
  const others: number[] = [];
  for (let c = 0; c < nc; c++) if (newIndex[c] < 0) others.push(c);
  others.sort((a, b2) => canonTypes[a]! - canonTypes[b2]! || a - b2);
  for (let k = 0; k < others.length; k++) newIndex[others[k]!] = S + paramLocals.length + k;
  const locals: { count: number; type: ValType }[] = [];
  for (let k = 0; k < others.length; ) {
    let j = k;
    while (j < others.length && canonTypes[others[j]!] === canonTypes[others[k]!]) j++;
    locals.push({ count: j - k, type: canonTypes[others[k]!]! });
    k = j;
  }
  return { newIndex, locals };
}

/**
 * Calls `visit(lb, rb, lcp, parentLcp)` for every LCP interval with at least
 * two suffixes and a common prefix of at least one symbol.
 */
export function lcpIntervals(lcp: Int32Array, visit: (lb: number, rb: number, len: number, parentLen: number) => void): void {
  const n = lcp.length;
  const stLcp: number[] = [0];
  const stLb: number[] = [0];
  for (let i = 1; i <= n; i++) {
    const cur = i < n ? lcp[i]! : 0;
    let lb = i - 1;
    while (cur < stLcp[stLcp.length - 1]!) {
      const l = stLcp.pop()!;
      lb = stLb.pop()!;
      const parent = Math.max(cur, stLcp[stLcp.length - 1]!);
      visit(lb, i - 1, l, parent);
    }
    if (cur > stLcp[stLcp.length - 1]!) {
      stLcp.push(cur);
      stLb.push(lb);
    }
  }
}

/** Keeps the `cap` best candidates (a bounded pool: low-benefit ones would be taken last anyway, and later rounds find them again). */
export function prune(out: Candidate[], cap: number): void {
  if (out.length <= cap) return;
  out.sort((a, b) => b.benefit - a.benefit);
  out.length = cap;
}
