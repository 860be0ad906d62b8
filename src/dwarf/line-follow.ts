// The line rows of the output code: each output function gets one new
// sequence, in the line program of the unit most of its code came from;
// each output instruction gets the rows its input instruction had (all rows
// at its origin, else the row in effect there), glue with no origin and code
// from another unit get line 0 (as compilers mark code of no line).

import type { CodeMap, CodeSpan } from "./code-map.js";
import { STMT, type LineProgram, type Row, type Sequence } from "./line.js";
import { lastAtOrBefore } from "../last-at-or-before.js";

interface SeqRef {
  lo: number;
  end: number;
  program: LineProgram;
  rows: Row[];
}

/**
 * Removes (in place) each sequence that overlaps another and runs past the
 * end of the input function it begins in. wasm-ld points the rows of a
 * discarded copy of a function (a C++ inline function or template instance,
 * one copy per object file) at the copy it kept, whose code differs: such a
 * sequence lies over the kept copy's own and runs on into the functions
 * after it (templates-Oz-g.wasm: libc++'s copy of a `basic_string`
 * `operator+`, 37 rows, 18 of them inside instructions). Sequences that do
 * not overlap stay, whatever their extent: some producers write one
 * sequence for several functions.
 */
function dropForeignOverlaps(seqs: SeqRef[], functions: readonly CodeSpan[]): void {
  const crosses = (q: SeqRef): boolean => {
    const f = lastAtOrBefore(functions, (x) => x.start, q.lo);
    return f >= 0 && q.end > functions[f]!.end;
  };
  const foreign = new Set<SeqRef>();
  let reach = 0; // index of the earlier sequence that ends last
  for (let k = 1; k < seqs.length; k++) {
    const a = seqs[reach]!;
    const b = seqs[k]!;
    if (b.lo < a.end) {
      if (crosses(a)) foreign.add(a);
      if (crosses(b)) foreign.add(b);
    }
    if (b.end > a.end) reach = k;
  }
  if (foreign.size === 0) return;
  const kept = seqs.filter((q) => !foreign.has(q));
  seqs.length = 0;
  seqs.push(...kept);
}

/** For each program, the new sequences of the output code, one per output function most of whose code came from it. */
export function followLines(programs: readonly LineProgram[], code: CodeMap): Map<LineProgram, Sequence[]> {
  const seqs: SeqRef[] = [];
  for (const p of programs) {
    for (const s of p.sequences) {
      if (s.rows.length === 0 || s.end <= s.rows[0]!.address) continue;
      seqs.push({ lo: s.rows[0]!.address, end: s.end, program: p, rows: s.rows });
    }
  }
  seqs.sort((a, b) => a.lo - b.lo);
  dropForeignOverlaps(seqs, code.inputFunctions);
  /** The sequence holding x, else the first that begins in [x, end). */
  const seqIn = (x: number, end: number): SeqRef | null => {
    const s = seqAt(x);
    if (s) return s;
    let lo = 0;
    let hi = seqs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (seqs[mid]!.lo < x) lo = mid + 1;
      else hi = mid;
    }
    return lo < seqs.length && seqs[lo]!.lo < end ? seqs[lo]! : null;
  };
  function seqAt(x: number): SeqRef | null {
    const found = lastAtOrBefore(seqs, (q) => q.lo, x);
    for (let k = found; k >= 0 && found - k < 8; k--) if (seqs[k]!.end > x) return seqs[k]!;
    return null;
  }
  /** Index of the last row at or before x. */
  const rowAt = (rows: readonly Row[], x: number): number => lastAtOrBefore(rows, (r) => r.address, x);
  const result = new Map<LineProgram, Sequence[]>();
  const pieces = code.pieces;
  let k = 0;
  while (k < pieces.length) {
    const fn = pieces[k]!.fn;
    let e = k;
    while (e < pieces.length && pieces[e]!.fn === fn) e++;
    // the function goes to the program most of its code came from (a pass
    // may give an added instruction an origin in another function)
    const srcEnd = (p: (typeof pieces)[number]): number => (p.run ? p.src + (p.end - p.out) : p.src + 1);
    const seqOf: (SeqRef | null)[] = [];
    const votes = new Map<LineProgram, number>();
    for (let j = k; j < e; j++) {
      const p = pieces[j]!;
      const s = p.src >= 0 ? seqIn(p.src, srcEnd(p)) : null;
      seqOf.push(s);
      if (s) votes.set(s.program, (votes.get(s.program) ?? 0) + (p.end - p.out));
    }
    let owner: LineProgram | null = null;
    for (const [prog, n] of votes) if (!owner || n > votes.get(owner)!) owner = prog;
    if (owner) {
      const rows: Row[] = [];
      // a row in effect at an origin (not one at it) brings only its position: its flags marked another address
      const add = (r: Row, address: number, exact = true): void => {
        const row = exact ? { ...r, address } : { ...r, address, flags: r.flags & STMT };
        const prev = rows[rows.length - 1];
        const same = prev && prev.file === row.file && prev.line === row.line && prev.column === row.column && prev.isa === row.isa && prev.discriminator === row.discriminator;
        if (same && address > prev.address && (prev.flags & STMT) === (row.flags & STMT) && (row.flags & ~STMT) === 0) return;
        rows.push(row);
      };
      for (let j = k; j < e; j++) {
        const p = pieces[j]!;
        const s = seqOf[j - k]!;
        if (!s || s.program !== owner) {
          const prev = rows[rows.length - 1];
          add({ address: 0, file: prev?.file ?? 1, line: 0, column: 0, flags: prev ? prev.flags & STMT : 0, isa: prev?.isa ?? 0, discriminator: 0 }, p.out);
          continue;
        }
        let i = rowAt(s.rows, p.src);
        if (i >= 0) {
          // all rows at the origin itself (the last one is what lookups find), else the one in effect
          let first = i;
          while (first > 0 && s.rows[first - 1]!.address === p.src) first--;
          for (let r = first; r <= i; r++) add(s.rows[r]!, p.out, s.rows[r]!.address === p.src);
        }
        if (p.run) {
          const end = srcEnd(p);
          for (i++; i < s.rows.length && s.rows[i]!.address < end; i++) add(s.rows[i]!, p.out + (s.rows[i]!.address - p.src));
        }
      }
      if (rows.length > 0) {
        let list = result.get(owner);
        if (!list) result.set(owner, (list = []));
        list.push({ rows, end: code.functions[fn]!.end });
      }
    }
    k = e;
  }
  return result;
}
