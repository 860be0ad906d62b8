// Outline's cost model: what a candidate saves, in exact bytes, and the
// cheap bounds the search uses to skip repeats that cannot pay. The search
// (candidates.ts Evaluator) finds repeats, types them and decides the roles
// of their locals; every byte figure it compares comes from here. Sizes of
// instructions and local declarations are analysis/sizes.ts's, call sites
// extract/call-site.ts's and new functions extract/new-function.ts's.
//
// Most repeats do not pay, so the bounds run before anything is built:
// a repeat of n copies of b bytes saves at most (n - 1) * b minus n bare
// calls (repeatMayPay), and the new function costs at least its copy with
// one-byte local indices, the parameter pushes, `end` and its entry's
// fixed bytes (minFuncBytes).

import { u32Size } from "../../binary/bytes.js";
import type { Body } from "../../ir/body.js";
import { LOCAL_WORDS } from "../../ir/imm-layout.js";
import type { ValType } from "../../ir/types.js";
import { instrSize, localDeclsSize } from "../../analysis/sizes.js";
import { exitBytes, localOpBytes, marshalBytes, type Exit } from "../../extract/call-site.js";
import type { Candidate, EvalContext } from "./candidates.js";

/** Bytes of `call f`: the least a call site costs. */
export function bareCallBytes(funcIndex: number): number {
  return 1 + u32Size(funcIndex);
}

/** Whether `n` copies of `copyBytes` bytes can pay at all: every copy but one becoming a call of `call` bytes must save more than 4. */
export function repeatMayPay(n: number, copyBytes: number, call: number): boolean {
  return (n - 1) * copyBytes - n * call > 4;
}

/** The cost model of one round: the index the next new function gets, tail calls, and its name's bytes. */
export class OutlineCost {
  /** ctx.nameCost(nameFuncIndex), cached: it builds a string. */
  private nameFuncIndex = -1;
  private nameBytesNow = 0;

  constructor(private readonly ctx: EvalContext) {}

  /** Bytes of a bare call to the next new function. */
  call(): number {
    return bareCallBytes(this.ctx.nextFunc);
  }

  /** Bytes after the call at a site that leaves the way `exit` says. */
  exitBytes(exit: Exit): number {
    return exitBytes(exit, this.ctx.tailCalls);
  }

  /** Bytes of the next new function's name-section entry. */
  nameBytes(): number {
    const f = this.ctx.nextFunc;
    if (f !== this.nameFuncIndex) {
      this.nameFuncIndex = f;
      this.nameBytesNow = this.ctx.nameCost(f);
    }
    return this.nameBytesNow;
  }

  /**
   * The least the new function can cost: a copy of `copyBytes` bytes with
   * 1-byte local indices (`shrink` less), the stack-param pushes, its `end`
   * unless a final return is stripped, local-decl count, size prefix, type
   * index and name.
   */
  minFuncBytes(copyBytes: number, shrink: number, stackParams: number, stripReturn: boolean): number {
    return copyBytes - shrink + 2 * stackParams + (stripReturn ? 0 : 1) + 3 + this.nameBytes();
  }

  /**
   * What the sites of a group save at most before liveness is known: each
   * copy's bytes less a bare call and the reads of the locals that are
   * certainly parameters (read, and not written first), for the copies
   * `bytes[0, n)` whose locals are at xs[j * stride + c].
   */
  sitesSaveAtMost(bytes: Int32Array, n: number, xs: Int32Array, stride: number, nc: number, read: Uint8Array, definedFirst: Uint8Array): number {
    const call = this.call();
    let sites = 0;
    for (let j = 0; j < n; j++) {
      sites += bytes[j]! - call;
      const xo = j * stride;
      for (let c = 0; c < nc; c++) if (read[c] && !definedFirst[c]) sites -= localOpBytes(xs[xo + c]!);
    }
    return sites;
  }

  /** Per copy: the bytes removed (`bytes[j]`) minus its call site without the callee index (see Candidate.gain). */
  siteGains(bytes: Int32Array, n: number, xs: Int32Array, nc: number, paramLocals: readonly number[], resultLocals: readonly number[], live: Uint8Array, exit: Exit): Int32Array {
    const nr = resultLocals.length;
    const gain = new Int32Array(n);
    const args = new Int32Array(paramLocals.length);
    const stores = new Int32Array(nr);
    for (let j = 0; j < n; j++) {
      for (let k = 0; k < paramLocals.length; k++) args[k] = xs[j * nc + paramLocals[k]!]!;
      for (let r = 0; r < nr; r++) stores[r] = live[j * nr + r] ? xs[j * nc + resultLocals[r]!]! : -1;
      gain[j] = bytes[j]! - marshalBytes(args, stores, exit, this.ctx.tailCalls);
    }
    return gain;
  }
}

/**
 * Exact bytes of the new function's code entry (local declarations and
 * instructions, no size prefix) as outline/rewrite.ts builds it from the
 * copy at body[i0, i0 + len): the stack-param pushes, the copy with each
 * local op's index renamed (`canonAt`: the canonical local of each local op
 * in order; `newIndex`: its index in the new function), less a stripped
 * final return, the pushes of the result locals, and `end`.
 */
export function calleeEntryBytes(b: Body, i0: number, len: number, stackParams: number, stripReturn: boolean,
  newIndex: Int32Array, canonAt: Int32Array, resultLocals: readonly number[], locals: readonly { count: number; type: ValType }[]): number {
  let code = 0;
  for (let k = 0; k < stackParams; k++) code += 1 + u32Size(k);
  let li = 0;
  for (let t = 0; t < len; t++) {
    const i = i0 + t;
    code += instrSize(b, i);
    const lw = LOCAL_WORDS[b.ops[i]!];
    if (lw) {
      const x = b.imm[b.immStart[i]! + lw[0]!]!;
      code += u32Size(newIndex[canonAt[li++]!]!) - u32Size(x);
    }
  }
  if (stripReturn) code -= 1;
  for (const c of resultLocals) code += 1 + u32Size(newIndex[c]!);
  code += 1;
  return localDeclsSize(locals) + code;
}

/** Bytes of the new function: type (if new), function-section entry, code entry with size prefix, name. */
export function functionOverhead(ctx: EvalContext, c: Candidate, funcIndex: number): number {
  return ctx.signatures.functionBytes(c.params, c.results, c.bodyBytes, ctx.nameCost(funcIndex));
}

/**
 * Benefit of `c` restricted to occurrences `keep` (indices into c.occs; null:
 * all of them, without building the list), if the new function gets `funcIndex`.
 */
export function benefitOf(ctx: EvalContext, c: Candidate, keep: readonly number[] | null, funcIndex: number): number {
  const n = keep ? keep.length : c.gain.length;
  if (n < 2) return -1;
  let g = 0;
  const call = u32Size(funcIndex);
  for (let j = 0; j < n; j++) g += c.gain[keep ? keep[j]! : j]! - call;
  return g - functionOverhead(ctx, c, funcIndex);
}
