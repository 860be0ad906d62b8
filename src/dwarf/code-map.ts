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
  /** reach[j]: the furthest input address a run among bySrc[0..j] covers (prefix maximum of src + length). */
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
    this.reach = new Float64Array(this.bySrc.length);
    let far = -1;
    this.bySrc.forEach((k, j) => {
      const p = this.pieces[k]!;
      if (p.run) far = Math.max(far, p.src + (p.end - p.out));
      this.reach[j] = far;
    });
    this.nonGlue = new Int32Array(this.pieces.length + 1);
    for (let k = 0; k < this.pieces.length; k++) this.nonGlue[k + 1] = this.nonGlue[k]! + (this.pieces[k]!.src >= 0 ? 1 : 0);
  }

  /** First position in bySrc whose src is >= x. */
  private lowerBound(x: number): number {
    let lo = 0;
    let hi = this.bySrc.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.pieces[this.bySrc[mid]!]!.src < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Pieces (index, and the part of it) whose origin lies in input range [a, b), in output order. */
  private within(a: number, b: number): { k: number; lo: number; hi: number }[] {
    const found: { k: number; lo: number; hi: number }[] = [];
    let i = this.lowerBound(a);
    // runs that start before a may reach into it (none before the last j
    // whose prefix reach is past a: tsd's DWARF asked 64 each time)
    for (let j = i - 1; j >= 0 && this.reach[j]! > a; j--) {
      const p = this.pieces[this.bySrc[j]!]!;
      if (!p.run) continue;
      if (p.src + (p.end - p.out) > a) found.push({ k: this.bySrc[j]!, lo: p.out + (a - p.src), hi: Math.min(p.end, p.out + (b - p.src)) });
      // runs are whole function bodies: the nearest few are enough
      if (i - j > 64) break;
    }
    for (; i < this.bySrc.length; i++) {
      const k = this.bySrc[i]!;
      const p = this.pieces[k]!;
      if (p.src >= b) break;
      found.push({ k, lo: p.out, hi: p.run ? Math.min(p.end, p.out + (b - p.src)) : p.end });
    }
    return found.sort((x, y) => x.lo - y.lo);
  }

  /**
   * The output code that came from input range [a, b): maximal intervals in
   * output order. Two parts join where only glue lies between them in one
   * function (a call that replaced code, a thunk's marshalling).
   */
  image(a: number, b: number): Interval[] {
    const out: Interval[] = [];
    let lastK = -1;
    for (const w of this.within(a, b)) {
      const prev = out[out.length - 1];
      if (prev && w.lo <= prev.hi) {
        prev.hi = Math.max(prev.hi, w.hi);
      } else if (
        prev &&
        this.pieces[lastK]!.fn === this.pieces[w.k]!.fn &&
        this.pieces[lastK]!.end === prev.hi &&
        this.pieces[w.k]!.out === w.lo &&
        this.nonGlue[w.k]! - this.nonGlue[lastK + 1]! === 0
      ) {
        prev.hi = w.hi;
      } else out.push({ lo: w.lo, hi: w.hi });
      lastK = w.k;
    }
    return out;
  }

  /**
   * Where the input instruction at `x` begins in the output, if it went to
   * exactly one place (re-encoded as one instruction or as several in a row).
   */
  start(x: number): number | null {
    const hits = this.within(x, x + 1);
    if (hits.length === 0) return null;
    for (let k = 1; k < hits.length; k++) {
      if (this.pieces[hits[k]!.k]!.out !== this.pieces[hits[k - 1]!.k]!.end) return null;
    }
    return hits[0]!.lo;
  }

  /**
   * The output address just after the call instruction that ended at input
   * address `x` (a call site's return address), if that call went to exactly
   * one place and is still a call there.
   */
  afterCall(x: number): number | null {
    // inside or at the end of a run: the bytes are the same
    const i = this.lowerBound(x);
    for (let j = i - 1; j >= 0 && i - j <= 64; j--) {
      const p = this.pieces[this.bySrc[j]!]!;
      if (p.run && p.src < x && x <= p.src + (p.end - p.out)) return p.out + (x - p.src);
    }
    // a re-encoded instruction: the last origin before x
    if (i === 0) return null;
    const src = this.pieces[this.bySrc[i - 1]!]!.src;
    const same = this.within(src, src + 1).filter((w) => !this.pieces[w.k]!.run);
    if (same.length !== 1) return null;
    const p = this.pieces[same[0]!.k]!;
    const op = this.code[p.out];
    return op === 0x10 || op === 0x11 || op === 0x14 ? p.end : null;
  }
}
