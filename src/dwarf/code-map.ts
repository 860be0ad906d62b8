// The address map of a run (binary/address-map.ts: output file offsets →
// input file offsets) in DWARF's terms: addresses are offsets into the code
// section's payload, of the input or of the output. It cuts the output code
// into pieces (a run of bytes copied unchanged, one re-encoded instruction,
// or glue with no origin), each within one output function, and answers the
// two questions the rewrite asks: which output code came from an input range
// (image), and where an input instruction went (start, afterCall).

import type { AddressMap } from "../binary/address-map.js";
import { sectionSpans } from "../binary/sections.js";
import { DwarfReader } from "./bytes.js";
import { lastAtOrBefore } from "../last-at-or-before.js";

export interface Piece {
  /** Output address range [out, end). */
  out: number;
  end: number;
  /** Input address of its origin: a run's first byte or an instruction's start; -1: glue. */
  src: number;
  run: boolean;
  /** Index of the output function it lies in. */
  fn: number;
}

export interface Interval {
  lo: number;
  hi: number;
}

export interface CodeSpan {
  start: number;
  end: number;
}

/** Function bodies (after each size) of a binary's code section, as code-section offsets. */
export function functionSpans(binary: Uint8Array): { codeStart: number; functions: CodeSpan[] } {
  const code = sectionSpans(binary).find((s) => s.id === 10);
  if (!code) return { codeStart: 0, functions: [] };
  const r = new DwarfReader(binary, code.payload, code.end, "code section");
  const functions: CodeSpan[] = [];
  for (let n = r.uleb(); n > 0; n--) {
    const size = r.uleb();
    functions.push({ start: r.pos - code.payload, end: r.pos - code.payload + size });
    r.skip(size);
  }
  return { codeStart: code.payload, functions };
}

export class CodeMap {
  /** How many pieces; piece k is pieceOut[k], pieceEnd[k], ... (typed arrays: a large module has millions). */
  readonly count: number;
  /** Output address range [out, end) of each piece. */
  readonly pieceOut: Int32Array;
  readonly pieceEnd: Int32Array;
  /** Input address of each piece's origin: a run's first byte or an instruction's start; -1: glue. */
  readonly pieceSrc: Int32Array;
  /** 1: a run of copied bytes; 0: one re-encoded instruction, or glue. */
  readonly pieceRun: Uint8Array;
  /** Index of the output function each piece lies in. */
  readonly pieceFn: Int32Array;
  /** Piece indices, sorted by src (glue left out). */
  private readonly bySrc: Int32Array;
  /** nonGlue[k]: pieces with an origin among pieces[0..k). */
  private readonly nonGlue: Int32Array;
  /** Piece indices of the runs alone, sorted by src. */
  private readonly runsBySrc: Int32Array;
  /** reach[j]: the furthest input address a run among runsBySrc[0..j] covers (prefix maximum of src + length). */
  private readonly reach: Float64Array;
  private objects: Piece[] | null = null;

  /**
   * `map` maps file offsets of `output` to file offsets of `input`;
   * `functions` and `inputFunctions` are the two binaries' function bodies;
   * `code` is the output's code section payload (to check an instruction's
   * opcode).
   */
  constructor(
    map: AddressMap,
    readonly functions: readonly CodeSpan[],
    outCodeStart: number,
    inCodeStart: number,
    private readonly code: Uint8Array,
    readonly inputFunctions: readonly CodeSpan[],
  ) {
    const e = map.entries;
    const outs = new Int32Array(e.length);
    const ends = new Int32Array(e.length);
    const srcs = new Int32Array(e.length);
    const runs = new Uint8Array(e.length);
    const fns = new Int32Array(e.length);
    let n = 0;
    let withSrc = 0;
    let numRuns = 0;
    let fn = 0;
    for (let k = 0; k < e.length; k++) {
      const out = e[k]!.out - outCodeStart;
      while (fn < functions.length && functions[fn]!.end <= out) fn++;
      if (fn >= functions.length) break;
      const f = functions[fn]!;
      if (out < f.start) continue;
      const next = k + 1 < e.length ? e[k + 1]!.out - outCodeStart : f.end;
      const end = Math.min(e[k]!.len > 0 ? out + e[k]!.len : next, f.end);
      if (end <= out) continue;
      const src = e[k]!.src === 0 ? -1 : e[k]!.src - inCodeStart;
      outs[n] = out;
      ends[n] = end;
      srcs[n] = src;
      fns[n] = fn;
      if (src >= 0) withSrc++;
      if (e[k]!.len > 0) {
        runs[n] = 1;
        if (src >= 0) numRuns++;
      }
      n++;
    }
    this.count = n;
    this.pieceOut = outs.subarray(0, n);
    this.pieceEnd = ends.subarray(0, n);
    this.pieceSrc = srcs.subarray(0, n);
    this.pieceRun = runs.subarray(0, n);
    this.pieceFn = fns.subarray(0, n);
    this.bySrc = sortedBySrc(this.pieceSrc, withSrc);
    this.runsBySrc = new Int32Array(numRuns);
    this.reach = new Float64Array(numRuns);
    let far = -1;
    for (let i = 0, j = 0; i < this.bySrc.length; i++) {
      const k = this.bySrc[i]!;
      if (runs[k] === 0) continue;
      this.runsBySrc[j] = k;
      far = Math.max(far, srcs[k]! + (ends[k]! - outs[k]!));
      this.reach[j++] = far;
    }
    this.nonGlue = new Int32Array(n + 1);
    for (let k = 0; k < n; k++) this.nonGlue[k + 1] = this.nonGlue[k]! + (srcs[k]! >= 0 ? 1 : 0);
  }

  /** The pieces as objects (for tests and tools; the queries read the arrays). */
  get pieces(): readonly Piece[] {
    if (this.objects === null) {
      this.objects = [];
      for (let k = 0; k < this.count; k++) {
        this.objects.push({ out: this.pieceOut[k]!, end: this.pieceEnd[k]!, src: this.pieceSrc[k]!, run: this.pieceRun[k] === 1, fn: this.pieceFn[k]! });
      }
    }
    return this.objects;
  }

  /** First position in `order` (piece indices sorted by src) whose src is >= x. */
  private lowerBound(x: number, order: Int32Array = this.bySrc): number {
    const src = this.pieceSrc;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (src[order[mid]!]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Input bytes a piece stands for past its src: a run's length, else 1 (its instruction's start). */
  private srcLen(k: number): number {
    return this.pieceRun[k] === 1 ? this.pieceEnd[k]! - this.pieceOut[k]! : 1;
  }

  /** Runs that start before x and reach past it (the walk stops where no earlier run reaches x). */
  private runsInto(x: number, visit: (k: number) => void): void {
    for (let j = this.lowerBound(x, this.runsBySrc) - 1; j >= 0 && this.reach[j]! > x; j--) {
      const k = this.runsBySrc[j]!;
      if (this.pieceSrc[k]! + this.srcLen(k) > x) visit(k);
    }
  }

  /** Found pieces of the last `within` query (piece index, output part), in output order. */
  private foundK = new Int32Array(64);
  private foundLo = new Int32Array(64);
  private foundHi = new Int32Array(64);

  private grow(n: number): void {
    if (n <= this.foundK.length) return;
    const size = Math.max(n, this.foundK.length * 2);
    const k = new Int32Array(size);
    const lo = new Int32Array(size);
    const hi = new Int32Array(size);
    k.set(this.foundK);
    lo.set(this.foundLo);
    hi.set(this.foundHi);
    this.foundK = k;
    this.foundLo = lo;
    this.foundHi = hi;
  }

  /**
   * Pieces whose origin lies in input range [a, b) and whose index is in
   * [kFrom, kTo), in output order, into found*; returns how many. Pieces are
   * in output order and never overlap, so output order is piece order. The
   * smaller of the two ways is taken: one pass over the pieces in the index
   * range (a scope whose recorded end is past the code: -Oz writes high_pc
   * 2^32 for some), or the src index, sorting what it found.
   */
  private within(a: number, b: number, kFrom = 0, kTo = this.count): number {
    const src = this.pieceSrc;
    const i0 = this.lowerBound(a);
    const i1 = this.lowerBound(b);
    let n = 0;
    if (i1 - i0 > kTo - kFrom) {
      this.grow(kTo - kFrom);
      for (let k = kFrom; k < kTo; k++) {
        const s = src[k]!;
        if (s < 0 || s + this.srcLen(k) <= a || s >= b) continue;
        this.record(n++, k, a, b);
      }
      return n;
    }
    // runs that begin before a and reach into it (rare: most code is re-encoded)
    const runs: number[] = [];
    if (this.runsBySrc.length > 0) this.runsInto(a, (k) => runs.push(k));
    this.grow(runs.length + i1 - i0);
    const found = this.foundK;
    let sorted = true;
    let last = -1;
    for (const k of runs) {
      if (k < kFrom || k >= kTo) continue;
      if (k < last) sorted = false;
      found[n++] = last = k;
    }
    const bySrc = this.bySrc;
    for (let i = i0; i < i1; i++) {
      const k = bySrc[i]!;
      if (k < kFrom || k >= kTo) continue;
      if (k < last) sorted = false;
      found[n++] = last = k;
    }
    if (!sorted) found.subarray(0, n).sort();
    for (let w = 0; w < n; w++) this.record(w, found[w]!, a, b);
    return n;
  }

  /** found*[w] := piece k, and the part of its output whose origin lies in input range [a, b). */
  private record(w: number, k: number, a: number, b: number): void {
    const out = this.pieceOut[k]!;
    const src = this.pieceSrc[k]!;
    const end = this.pieceEnd[k]!;
    this.foundK[w] = k;
    this.foundLo[w] = src >= a ? out : out + (a - src);
    this.foundHi[w] = this.pieceRun[k] === 1 ? Math.min(end, out + (b - src)) : end;
  }

  /**
   * The pieces image() must look at for parts inside the output window
   * [lo, hi): those that overlap it, the glue around them and the first
   * piece with an origin beyond that glue on each side (a part joined across
   * glue into the window starts or ends there).
   */
  private windowPieces(lo: number, hi: number): [number, number] {
    const n = this.count;
    const src = this.pieceSrc;
    // pieces never overlap, so both their starts and their ends ascend
    let kFrom = lastAtOrBefore(this.pieceEnd, (end) => end, lo) + 1;
    while (kFrom > 0 && src[kFrom - 1]! < 0) kFrom--;
    if (kFrom > 0) kFrom--;
    let kTo = lastAtOrBefore(this.pieceOut, (out) => out, hi - 1) + 1;
    while (kTo < n && src[kTo]! < 0) kTo++;
    if (kTo < n) kTo++;
    return [kFrom, kTo];
  }

  /**
   * The output code that came from input range [a, b): maximal intervals in
   * output order. Two parts join where only glue lies between them in one
   * function (a call that replaced code, a thunk's marshalling). With
   * `clip` (sorted output intervals the caller intersects the answer with),
   * parts wholly outside clip's span may be left out.
   */
  image(a: number, b: number, clip: readonly Interval[] | null = null): Interval[] {
    const out: Interval[] = [];
    if (clip !== null && clip.length === 0) return out;
    let lastK = -1;
    const [kFrom, kTo] = clip === null ? [0, this.count] : this.windowPieces(clip[0]!.lo, clip[clip.length - 1]!.hi);
    const n = this.within(a, b, kFrom, kTo);
    for (let w = 0; w < n; w++) {
      const k = this.foundK[w]!;
      const lo = this.foundLo[w]!;
      const hi = this.foundHi[w]!;
      const prev = out[out.length - 1];
      if (prev && lo <= prev.hi) {
        prev.hi = Math.max(prev.hi, hi);
      } else if (
        prev &&
        this.pieceFn[lastK] === this.pieceFn[k] &&
        this.pieceEnd[lastK] === prev.hi &&
        this.pieceOut[k] === lo &&
        this.nonGlue[k]! - this.nonGlue[lastK + 1]! === 0
      ) {
        prev.hi = hi;
      } else out.push({ lo, hi });
      lastK = k;
    }
    return out;
  }

  /**
   * Where the input instruction at `x` begins in the output, if it went to
   * exactly one place (re-encoded as one instruction or as several in a row).
   */
  start(x: number): number | null {
    const n = this.within(x, x + 1);
    if (n === 0) return null;
    for (let w = 1; w < n; w++) {
      if (this.pieceOut[this.foundK[w]!] !== this.pieceEnd[this.foundK[w - 1]!]) return null;
    }
    return this.foundLo[0]!;
  }

  /**
   * The output address just after the call instruction that ended at input
   * address `x` (a call site's return address), if that call went to exactly
   * one place and is still a call there.
   */
  afterCall(x: number): number | null {
    // inside or at the end of a run: the bytes are the same (the nearest
    // such run, if several copies of these bytes reach x)
    for (let j = this.lowerBound(x, this.runsBySrc) - 1; j >= 0 && this.reach[j]! >= x; j--) {
      const k = this.runsBySrc[j]!;
      if (x <= this.pieceSrc[k]! + this.srcLen(k)) return this.pieceOut[k]! + (x - this.pieceSrc[k]!);
    }
    const i = this.lowerBound(x);
    // a re-encoded instruction: the last origin before x
    if (i === 0) return null;
    const src = this.pieceSrc[this.bySrc[i - 1]!]!;
    const n = this.within(src, src + 1);
    let only = -1;
    for (let w = 0; w < n; w++) {
      if (this.pieceRun[this.foundK[w]!] === 1) continue;
      if (only >= 0) return null;
      only = this.foundK[w]!;
    }
    if (only < 0) return null;
    const op = this.code[this.pieceOut[only]!];
    return op === 0x10 || op === 0x11 || op === 0x14 ? this.pieceEnd[only]! : null;
  }
}

/**
 * Indices of the pieces with an origin (src >= 0), sorted by src, ties in
 * index order. Packed into one number per piece (src * count + index) when
 * that stays exact, so the sort is a numeric one with no comparator.
 */
function sortedBySrc(src: Int32Array, withSrc: number): Int32Array {
  const n = src.length;
  const order = new Int32Array(withSrc);
  let maxSrc = 0;
  for (let k = 0, i = 0; k < n; k++) {
    if (src[k]! < 0) continue;
    order[i++] = k;
    if (src[k]! > maxSrc) maxSrc = src[k]!;
  }
  if ((maxSrc + 1) * n >= Number.MAX_SAFE_INTEGER) return order.sort((x, y) => src[x]! - src[y]! || x - y);
  const keys = new Float64Array(withSrc);
  for (let i = 0; i < withSrc; i++) keys[i] = src[order[i]!]! * n + order[i]!;
  keys.sort();
  for (let i = 0; i < withSrc; i++) order[i] = keys[i]! % n;
  return order;
}
