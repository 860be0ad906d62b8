// The line rows of the output code: each output function gets one new
// sequence, in the line program of the unit most of its code came from;
// each output instruction gets the rows its input instruction had (all rows
// at its origin, else the row in effect there), glue with no origin and code
// from another unit get line 0 (as compilers mark code of no line).

import type { CodeMap, CodeSpan } from "./code-map.js";
import { Rows, STMT, type LineProgram, type Sequence } from "./line.js";
import { lastAtOrBefore, lastAtOrBeforeFrom } from "../last-at-or-before.js";

interface SeqRef {
  lo: number;
  end: number;
  program: LineProgram;
  /** The sequence's rows: rows[from..to) of its program's store, their addresses in `at` (a view). */
  rows: Rows;
  from: number;
  to: number;
  at: Float64Array;
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
      if (s.to <= s.from || s.end <= s.rows.address[s.from]!) continue;
      seqs.push({ lo: s.rows.address[s.from]!, end: s.end, program: p, rows: s.rows, from: s.from, to: s.to, at: s.rows.address.subarray(s.from, s.to) });
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
  let rowHint = 0;
  /** Index (in its store) of the sequence's last row at or before x; s.from - 1 if none. */
  const rowAt = (s: SeqRef, x: number): number => {
    const i = lastAtOrBeforeFrom(s.at, x, rowHint);
    if (i >= 0) rowHint = i;
    return s.from + i;
  };
  const result = new Map<LineProgram, Sequence[]>();
  // the output rows, one store per program
  const stores = new Map<LineProgram, Rows>();
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
      let rows = stores.get(owner);
      if (!rows) stores.set(owner, (rows = new Rows()));
      const out = rows;
      const start = out.length;
      /** A row of the new sequence, unless it only repeats the one before at a later address. */
      const put = (address: number, file: number, line: number, column: number, flags: number, isa: number, discriminator: number): void => {
        const q = out.length - 1;
        if (
          q >= start &&
          out.file[q] === file &&
          out.line[q] === line &&
          out.column[q] === column &&
          out.isa[q] === isa &&
          out.discriminator[q] === discriminator &&
          address > out.address[q]! &&
          (out.flags[q]! & STMT) === (flags & STMT) &&
          (flags & ~STMT) === 0
        ) {
          return;
        }
        out.push(address, file, line, column, flags, isa, discriminator);
      };
      // a row in effect at an origin (not one at it) brings only its position: its flags marked another address
      const add = (from: Rows, r: number, address: number, exact: boolean): void =>
        put(address, from.file[r]!, from.line[r]!, from.column[r]!, exact ? from.flags[r]! : from.flags[r]! & STMT, from.isa[r]!, from.discriminator[r]!);
      for (let j = k; j < e; j++) {
        const at = pieceOut[j]!;
        const src = pieceSrc[j]!;
        const s = seqOf[j - k]!;
        if (!s || s.program !== owner) {
          const q = out.length - 1;
          const has = q >= start;
          put(at, has ? out.file[q]! : 1, 0, 0, has ? out.flags[q]! & STMT : 0, has ? out.isa[q]! : 0, 0);
          continue;
        }
        const a = s.rows.address;
        let i = rowAt(s, src);
        if (i >= s.from) {
          // all rows at the origin itself (the last one is what lookups find), else the one in effect
          let first = i;
          while (first > s.from && a[first - 1] === src) first--;
          for (let r = first; r <= i; r++) add(s.rows, r, at, a[r] === src);
        }
        if (pieceRun[j] === 1) {
          const end = srcEnd(j);
          for (i++; i < s.to && a[i]! < end; i++) add(s.rows, i, at + (a[i]! - src), true);
        }
      }
      if (out.length > start) {
        let list = result.get(owner);
        if (!list) result.set(owner, (list = []));
        list.push({ rows: out, from: start, to: out.length, end: code.functions[fn]!.end });
      }
    }
    k = e;
  }
  return result;
}
