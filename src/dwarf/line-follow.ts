// The line rows of the output code: each output function gets one new
// sequence, in the line program of the unit most of its code came from;
// each output instruction gets the rows its input instruction had (all rows
// at its origin, else the row in effect there), glue with no origin and code
// from another unit get line 0 (as compilers mark code of no line).

import type { CodeMap, CodeSpan } from "./code-map.js";
import { STMT, type LineProgram, type Row, type Sequence } from "./line.js";
import { lastAtOrBefore, lastAtOrBeforeFrom } from "../last-at-or-before.js";

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
  // Lookups go piece by piece, mostly forward through one sequence's rows,
  // so each starts from where the last one ended (a hint) before it searches.
  const seqLo = Float64Array.from(seqs, (q) => q.lo);
  let seqHint = 0;
  /** The sequence holding x, else the first that begins in [x, end). */
  const seqIn = (x: number, end: number): SeqRef | null => {
    const found = lastAtOrBeforeFrom(seqLo, x, seqHint);
    if (found >= 0) seqHint = found;
    for (let k = found; k >= 0 && found - k < 8; k--) if (seqs[k]!.end > x) return seqs[k]!;
    // the first beginning at or after x: all before found + 1 begin at or before x
    let lo = found + 1;
    while (lo > 0 && seqLo[lo - 1]! >= x) lo--;
    return lo < seqs.length && seqLo[lo]! < end ? seqs[lo]! : null;
  };
  const rowAddresses = new Map<readonly Row[], Float64Array>();
  let rowHint = 0;
  /** Index of the last row at or before x. */
  const rowAt = (rows: readonly Row[], x: number): number => {
    let at = rowAddresses.get(rows);
    if (!at) rowAddresses.set(rows, (at = Float64Array.from(rows, (r) => r.address)));
    const i = lastAtOrBeforeFrom(at, x, rowHint);
    if (i >= 0) rowHint = i;
    return i;
  };
  const result = new Map<LineProgram, Sequence[]>();
  const { count, pieceOut, pieceEnd, pieceSrc, pieceRun, pieceFn } = code;
  const srcEnd = (j: number): number => (pieceRun[j] === 1 ? pieceSrc[j]! + (pieceEnd[j]! - pieceOut[j]!) : pieceSrc[j]! + 1);
  let k = 0;
  while (k < count) {
    const fn = pieceFn[k]!;
    let e = k;
    while (e < count && pieceFn[e] === fn) e++;
    // the function goes to the program most of its code came from (a pass
    // may give an added instruction an origin in another function)
    const seqOf: (SeqRef | null)[] = [];
    // votes: output bytes per program, programs in the order first met (a function has one or a few)
    const voters: LineProgram[] = [];
    const votes: number[] = [];
    let v = -1;
    for (let j = k; j < e; j++) {
      const s = pieceSrc[j]! >= 0 ? seqIn(pieceSrc[j]!, srcEnd(j)) : null;
      seqOf.push(s);
      if (!s) continue;
      if (v < 0 || voters[v] !== s.program) {
        v = voters.indexOf(s.program);
        if (v < 0) {
          v = voters.length;
          voters.push(s.program);
          votes.push(0);
        }
      }
      votes[v] += pieceEnd[j]! - pieceOut[j]!;
    }
    let owner: LineProgram | null = null;
    let most = 0;
    for (let i = 0; i < voters.length; i++) {
      if (!owner || votes[i]! > most) {
        owner = voters[i]!;
        most = votes[i]!;
      }
    }
    if (owner) {
      const rows: Row[] = [];
      // a row in effect at an origin (not one at it) brings only its position: its flags marked another address
      const add = (r: Row, address: number, exact = true): void => {
        const flags = exact ? r.flags : r.flags & STMT;
        const prev = rows[rows.length - 1];
        const same = prev && prev.file === r.file && prev.line === r.line && prev.column === r.column && prev.isa === r.isa && prev.discriminator === r.discriminator;
        if (same && address > prev.address && (prev.flags & STMT) === (flags & STMT) && (flags & ~STMT) === 0) return;
        rows.push({ address, file: r.file, line: r.line, column: r.column, flags, isa: r.isa, discriminator: r.discriminator });
      };
      for (let j = k; j < e; j++) {
        const out = pieceOut[j]!;
        const src = pieceSrc[j]!;
        const s = seqOf[j - k]!;
        if (!s || s.program !== owner) {
          const prev = rows[rows.length - 1];
          add({ address: 0, file: prev?.file ?? 1, line: 0, column: 0, flags: prev ? prev.flags & STMT : 0, isa: prev?.isa ?? 0, discriminator: 0 }, out);
          continue;
        }
        let i = rowAt(s.rows, src);
        if (i >= 0) {
          // all rows at the origin itself (the last one is what lookups find), else the one in effect
          let first = i;
          while (first > 0 && s.rows[first - 1]!.address === src) first--;
          for (let r = first; r <= i; r++) add(s.rows[r]!, out, s.rows[r]!.address === src);
        }
        if (pieceRun[j] === 1) {
          const end = srcEnd(j);
          for (i++; i < s.rows.length && s.rows[i]!.address < end; i++) add(s.rows[i]!, out + (s.rows[i]!.address - src));
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
