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
  readonly pieces: Piece[] = [];
  /** Indices into `pieces`, sorted by src (glue left out). */
  private readonly bySrc: number[];
  /** nonGlue[k]: pieces with an origin among pieces[0..k). */
  private readonly nonGlue: Int32Array;
  /** Indices into `pieces` of the runs alone, sorted by src. */
  private readonly runsBySrc: number[];
  /** reach[j]: the furthest input address a run among runsBySrc[0..j] covers (prefix maximum of src + length). */
  private readonly reach: Float64Array;

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
      this.pieces.push({ out, end, src, run: e[k]!.len > 0, fn });
    }
    this.bySrc = [];
    for (let k = 0; k < this.pieces.length; k++) if (this.pieces[k]!.src >= 0) this.bySrc.push(k);
    this.bySrc.sort((a, b) => this.pieces[a]!.src - this.pieces[b]!.src || a - b);
    this.runsBySrc = this.bySrc.filter((k) => this.pieces[k]!.run);
    this.reach = new Float64Array(this.runsBySrc.length);
    let far = -1;
    this.runsBySrc.forEach((k, j) => {
      const p = this.pieces[k]!;
      far = Math.max(far, p.src + (p.end - p.out));
      this.reach[j] = far;
    });
    this.nonGlue = new Int32Array(this.pieces.length + 1);
    for (let k = 0; k < this.pieces.length; k++) this.nonGlue[k + 1] = this.nonGlue[k]! + (this.pieces[k]!.src >= 0 ? 1 : 0);
  }

  /** First position in `order` (piece indices sorted by src) whose src is >= x. */
  private lowerBound(x: number, order: readonly number[] = this.bySrc): number {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.pieces[order[mid]!]!.src < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Runs that start before x and reach past it (the walk stops where no earlier run reaches x). */
  private runsInto(x: number, visit: (k: number) => void): void {
    for (let j = this.lowerBound(x, this.runsBySrc) - 1; j >= 0 && this.reach[j]! > x; j--) {
      const k = this.runsBySrc[j]!;
      const p = this.pieces[k]!;
      if (p.src + (p.end - p.out) > x) visit(k);
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
  private within(a: number, b: number, kFrom = 0, kTo = this.pieces.length): number {
    const i0 = this.lowerBound(a);
    let n = 0;
    if (this.lowerBound(b) - i0 > kTo - kFrom) {
      this.grow(kTo - kFrom);
      for (let k = kFrom; k < kTo; k++) {
        const p = this.pieces[k]!;
        if (p.src < 0) continue;
        if (p.run) {
          if (p.src + (p.end - p.out) <= a || p.src >= b) continue;
        } else if (p.src < a || p.src >= b) continue;
        this.record(n++, k, a, b);
      }
      return n;
    }
    const ks: number[] = [];
    const take = (k: number): void => {
      if (k >= kFrom && k < kTo) ks.push(k);
    };
    this.runsInto(a, take);
    for (let i = i0; i < this.bySrc.length; i++) {
      const k = this.bySrc[i]!;
      if (this.pieces[k]!.src >= b) break;
      take(k);
    }
    if (ks.length > 1) ks.sort((x, y) => x - y);
    this.grow(ks.length);
    for (const k of ks) this.record(n++, k, a, b);
    return n;
  }

  /** found*[w] := piece k, and the part of its output whose origin lies in input range [a, b). */
  private record(w: number, k: number, a: number, b: number): void {
    const p = this.pieces[k]!;
    this.foundK[w] = k;
    this.foundLo[w] = p.src >= a ? p.out : p.out + (a - p.src);
    this.foundHi[w] = p.run ? Math.min(p.end, p.out + (b - p.src)) : p.end;
  }

  /**
   * The pieces image() must look at for parts inside the output window
   * [lo, hi): those that overlap it, the glue around them and the first
   * piece with an origin beyond that glue on each side (a part joined across
   * glue into the window starts or ends there).
   */
  private windowPieces(lo: number, hi: number): [number, number] {
    const n = this.pieces.length;
    // pieces never overlap, so both their starts and their ends ascend
    let kFrom = lastAtOrBefore(this.pieces, (p) => p.end, lo) + 1;
    while (kFrom > 0 && this.pieces[kFrom - 1]!.src < 0) kFrom--;
    if (kFrom > 0) kFrom--;
    let kTo = lastAtOrBefore(this.pieces, (p) => p.out, hi - 1) + 1;
    while (kTo < n && this.pieces[kTo]!.src < 0) kTo++;
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
    const [kFrom, kTo] = clip === null ? [0, this.pieces.length] : this.windowPieces(clip[0]!.lo, clip[clip.length - 1]!.hi);
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
        this.pieces[lastK]!.fn === this.pieces[k]!.fn &&
        this.pieces[lastK]!.end === prev.hi &&
        this.pieces[k]!.out === lo &&
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
      if (this.pieces[this.foundK[w]!]!.out !== this.pieces[this.foundK[w - 1]!]!.end) return null;
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
      const p = this.pieces[this.runsBySrc[j]!]!;
      if (x <= p.src + (p.end - p.out)) return p.out + (x - p.src);
    }
    const i = this.lowerBound(x);
    // a re-encoded instruction: the last origin before x
    if (i === 0) return null;
    const src = this.pieces[this.bySrc[i - 1]!]!.src;
    const n = this.within(src, src + 1);
    let only = -1;
    for (let w = 0; w < n; w++) {
      if (this.pieces[this.foundK[w]!]!.run) continue;
      if (only >= 0) return null;
      only = this.foundK[w]!;
    }
    if (only < 0) return null;
    const p = this.pieces[only]!;
    const op = this.code[p.out];
    return op === 0x10 || op === 0x11 || op === 0x14 ? p.end : null;
  }
}
