// The oracle of the debug-info checks (test/dwarf.test.ts, the source-map
// tests, scripts/debug-info-check.ts): what llvm-dwarfdump-19 (Debian's
// llvm-19) reads from a module's DWARF, and the comparison of an input's and
// an output's locations over aligned instructions (test/instr-align.ts).
// None of it uses the optimizer's own record of where code came from.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encode, type SourceMapSegment } from "@jridgewell/sourcemap-codec";
import { readModule } from "../src/binary/reader.js";
import { sectionSpans } from "../src/binary/sections.js";
import type { MergeMapEntry } from "../src/passes/merge-map.js";
import { align, instructions, type Instr } from "./instr-align.js";

export const DWARFDUMP = "llvm-dwarfdump-19";
export const haveDwarfdump = (): boolean => spawnSync(DWARFDUMP, ["--version"]).status === 0;

let dir: string | null = null;
let files = 0;
/** Runs llvm-dwarfdump on `bytes` (written to a temporary file). */
export function dwarfdump(bytes: Uint8Array, ...args: string[]): { status: number | null; stdout: string } {
  if (!dir) {
    const d = mkdtempSync(join(tmpdir(), "wasm-compact-dwarf-"));
    dir = d;
    process.on("exit", () => rmSync(d, { recursive: true, force: true }));
  }
  const f = join(dir, `m${files++}.wasm`);
  writeFileSync(f, bytes);
  const r = spawnSync(DWARFDUMP, [...args, f], { encoding: "utf8", maxBuffer: 1 << 28 });
  rmSync(f, { force: true });
  return { status: r.status, stdout: r.stdout };
}

export interface LineSeq {
  addrs: number[];
  /** "file:line:column" of each row. */
  locs: string[];
  end: number;
}

export const codeStart = (b: Uint8Array): number => sectionSpans(b).find((s) => s.id === 10)!.payload;

/** Function bodies of `b` as code-section offsets [start, end) (after each body's size). */
function bodySpans(b: Uint8Array): [number, number][] {
  const m = readModule(b);
  const start = codeStart(b);
  return m.functions.map((f) => [f.rawOffset - start, f.rawOffset - start + f.raw!.length]);
}

/**
 * The line tables as llvm-dwarfdump reads them: sequences of (address,
 * "file:line:column"), sorted by first address. Where two sequences overlap,
 * one that runs past the end of the function it begins in is left out: it
 * is the rows of another copy of the function, which wasm-ld points at the
 * copy it kept (C++ inline functions and templates have one per object file).
 */
export function lineTable(bytes: Uint8Array): LineSeq[] {
  const out: LineSeq[] = [];
  let names = new Map<number, string>();
  let fileIndex = -1;
  let cur: LineSeq = { addrs: [], locs: [], end: 0 };
  for (const line of dwarfdump(bytes, "--debug-line").stdout.split("\n")) {
    if (line.startsWith("debug_line[")) names = new Map();
    let m = /^file_names\[\s*(\d+)\]:/.exec(line);
    if (m) fileIndex = Number(m[1]);
    m = /^\s+name: "(.*)"$/.exec(line);
    if (m && fileIndex >= 0) names.set(fileIndex, m[1]!);
    m = /^0x([0-9a-f]+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+\s+\d+(?:\s+\d+)?\s*(.*)$/.exec(line);
    if (!m) continue;
    const addr = parseInt(m[1]!, 16);
    if (m[5]!.includes("end_sequence")) {
      cur.end = addr;
      if (cur.addrs.length > 0) out.push(cur);
      cur = { addrs: [], locs: [], end: 0 };
      continue;
    }
    cur.addrs.push(addr);
    cur.locs.push(`${names.get(Number(m[4])) ?? `#${m[4]}`}:${m[2]}:${m[3]}`);
  }
  out.sort((a, b) => a.addrs[0]! - b.addrs[0]!);
  const spans = bodySpans(bytes);
  const crosses = (s: LineSeq): boolean => {
    const f = spans.find(([lo, hi]) => lo <= s.addrs[0]! && s.addrs[0]! < hi);
    return f !== undefined && s.end > f[1];
  };
  return out.filter((s, k) => {
    const overlaps = out.some((t, j) => j !== k && t.addrs[0]! < s.end && s.addrs[0]! < t.end);
    return !(overlaps && crosses(s));
  });
}

/** The location in effect at code address `addr` (the last row at or before it in its sequence), or "-". */
export function locate(seqs: readonly LineSeq[], addr: number): string {
  for (const s of seqs) {
    if (s.addrs[0]! > addr || addr >= s.end) continue;
    let k = s.addrs.length - 1;
    while (s.addrs[k]! > addr) k--;
    return s.locs[k]!;
  }
  return "-";
}

/**
 * A wasm source map of `bytes` made from its line tables (`seqs`), as
 * Emscripten's wasm-sourcemap.py makes one: each row becomes a mapping at its
 * address plus the code section's file offset; rows of line 0 and the ends
 * of sequences become unmapped segments.
 */
export function sourceMapFromLines(bytes: Uint8Array, seqs: readonly LineSeq[]): string {
  const at0 = codeStart(bytes);
  const sources: string[] = [];
  const index = new Map<string, number>();
  const byOffset = new Map<number, SourceMapSegment>();
  const ends: number[] = [];
  for (const s of seqs) {
    s.addrs.forEach((a, k) => {
      const [, file, line, col] = /^(.*):(\d+):(\d+)$/.exec(s.locs[k]!)!;
      if (Number(line) === 0) return void byOffset.set(at0 + a, [at0 + a]);
      let si = index.get(file!);
      if (si === undefined) index.set(file!, (si = sources.push(file!) - 1));
      byOffset.set(at0 + a, [at0 + a, si, Number(line) - 1, Number(col)]);
    });
    ends.push(at0 + s.end);
  }
  // a sequence's end is unmapped unless another sequence begins there
  for (const e of ends) if (!byOffset.has(e)) byOffset.set(e, [e]);
  const segs = [...byOffset.values()].sort((a, b) => a[0] - b[0]);
  return JSON.stringify({ version: 3, sources, names: [], mappings: encode([segs]) });
}

export interface Sub {
  lo: number;
  hi: number;
  name: string;
}

/** Subprograms with a low_pc/high_pc in llvm-dwarfdump's dump of .debug_info (the tombstone left out). */
export function subprograms(text: string): Sub[] {
  const out: Sub[] = [];
  let cur: Partial<Sub> | null = null;
  const flush = (): void => {
    if (cur && cur.lo !== undefined && cur.hi !== undefined && cur.lo !== 0xffffffff) out.push({ lo: cur.lo, hi: cur.hi, name: cur.name ?? "?" });
    cur = null;
  };
  for (const line of text.split("\n")) {
    if (/DW_TAG_/.test(line)) {
      flush();
      if (/DW_TAG_subprogram/.test(line)) cur = {};
      continue;
    }
    if (!cur) continue;
    let m = /DW_AT_low_pc\s+\((?:indexed \([0-9a-fx]+\) address = )?0x([0-9a-f]+)/.exec(line);
    if (m) cur.lo = parseInt(m[1]!, 16);
    m = /DW_AT_high_pc\s+\(0x([0-9a-f]+)\)/.exec(line);
    if (m) cur.hi = parseInt(m[1]!, 16);
    m = /DW_AT_(?:name|abstract_origin)\s+\((?:0x[0-9a-f]+ )?"(.*)"\)/.exec(line);
    if (m && !cur.name) cur.name = m[1]!;
  }
  flush();
  return out;
}

export const functionAt = (subs: readonly Sub[], addr: number): string => subs.find((s) => s.lo <= addr && addr < s.hi)?.name ?? "-";

/** What the comparison found. */
export interface Comparison {
  /** Aligned instructions whose input instruction has a location, and how many of them have another in the output. */
  checked: number;
  wrong: number;
  /** Call-site glue (test/instr-align.ts markGlue) with a location expected, and how many have another. */
  glue: number;
  glueWrong: number;
  /** Functions whose first instruction lies in a subprogram in the input, and those that lie in another in the output. */
  functions: number;
  wrongFunctions: string[];
  /** Up to 5 mismatches, described. */
  examples: string[];
}

export interface CompareOptions {
  /** The input's location of file offset `o` ("-": none). */
  whereIn: (o: number) => string;
  whereOut: (o: number) => string;
  mergeMap: readonly MergeMapEntry[];
  /** For the subprogram check: the subprogram names at file offsets of the input and of the output. */
  subprogramIn?: (o: number) => string;
  subprogramOut?: (o: number) => string;
}

/**
 * Compares what the input's and the output's debug info say about every
 * aligned instruction (per function, by name). Functions that stand for
 * several (folded, merged, thunks: the merge map's other entries) keep the
 * lines of one by design and are left out. Call-site glue (the call to an
 * extracted function and its marshalling) must have the location of the
 * first instruction of the code it replaced. To find that code, the
 * extracted function's body stands in the output's sequence at its call
 * while aligning: the input instructions it pairs with are the ones that
 * moved (the alignment alone would pair glue's `local.get`s, or an `end`
 * just before the site, with equal instructions of the moved code).
 */
export function compareLocations(input: Uint8Array, output: Uint8Array, o: CompareOptions): Comparison {
  const shared = new Set(o.mergeMap.filter((e) => e.became !== "extracted").flatMap((e) => [e.function.name ?? "", e.into.name ?? ""]));
  const extracted = new Set(o.mergeMap.filter((e) => e.became === "extracted").map((e) => e.into.name ?? ""));
  // a call to a folded function now calls the one it was folded into
  const folded = new Map(o.mergeMap.filter((e) => e.became === "folded" && e.function.name && e.into.name).map((e) => [e.function.name!, e.into.name!]));
  const before = instructions(readModule(input), new Set(), folded);
  const after = instructions(readModule(output), extracted);
  const c: Comparison = { checked: 0, wrong: 0, glue: 0, glueWrong: 0, functions: 0, wrongFunctions: [], examples: [] };
  const miss = (what: string): void => void (c.examples.length < 5 && c.examples.push(what));
  for (const [name, outs] of after) {
    const ins = before.get(name);
    if (!ins || shared.has(name)) continue;
    // the sequence aligned: the output's instructions (at >= 0: index in outs), with each glue call's callee body before it (at: -1 - index of the call)
    const seq: Instr[] = [];
    const at: number[] = [];
    outs.forEach((x, j) => {
      const call = x.glue ? /^glue (?:call|return_call) (.*)$/.exec(x.key) : null;
      for (const y of call ? spliced(after.get(call[1]!) ?? []) : []) {
        seq.push(y);
        at.push(-1 - j);
      }
      seq.push(x);
      at.push(j);
    });
    const pairs = align(ins, seq);
    const store = storesAfterGlue(outs, seq, at, pairs);
    if (o.subprogramIn && o.subprogramOut) {
      const first = pairs.find(([, k]) => at[k]! >= 0);
      const want = first ? o.subprogramIn(ins[first[0]]!.offset) : "-";
      if (want !== "-") {
        c.functions++;
        const got = o.subprogramOut(outs[at[first![1]]!]!.offset);
        if (got !== want) c.wrongFunctions.push(`${name}: ${got}, input ${want}`);
      }
    }
    // each glue call's site: the input instruction its callee's body's first instruction pairs with; else the first
    // input instruction left unpaired before the call, or the first its callee's body pairs with if that is earlier
    const site = new Map<number, number>();
    const whole = new Set<number>();
    for (const [i, k] of pairs) {
      const j = at[k]!;
      if (j < 0 && !site.has(-1 - j)) {
        site.set(-1 - j, i);
        if (k === 0 || at[k - 1] !== j) whole.add(-1 - j);
      }
      if (j >= 0) {
        const x = outs[j]!;
        if (!x.glue) {
          const want = o.whereIn(ins[i]!.offset);
          if (want === "-") continue;
          c.checked++;
          const got = o.whereOut(x.offset);
          if (got !== want) {
            c.wrong++;
            miss(`${name} #${j} ${x.key}: ${got}, input #${i} ${want}`);
          }
        }
      }
    }
    // glue (a call and the arguments before it) belongs to the next call
    const callOf = (j: number): number => {
      for (let k = j; k < outs.length && outs[k]!.glue; k++) if (/^glue (?:call|return_call) /.test(outs[k]!.key)) return k;
      return -1;
    };
    // the first input instruction after the last pair (the code of sites before included) before output instruction j's sequence entries
    const firstSeq = new Map<number, number>();
    at.forEach((j, k) => {
      const x = j >= 0 ? j : -1 - j;
      if (!firstSeq.has(x)) firstSeq.set(x, k);
    });
    const unpairedBefore = (j: number): number => {
      const limit = firstSeq.get(j)!;
      let i = 0;
      for (const [pi, k] of pairs) if (k < limit) i = pi + 1;
      return i;
    };
    outs.forEach((x, j) => {
      if (!x.glue && !store.has(j)) return;
      const call = x.glue ? callOf(j) : store.get(j)!;
      const s = call >= 0 && whole.has(call) ? site.get(call)! : Math.min(unpairedBefore(call >= 0 ? call : j), call >= 0 ? (site.get(call) ?? ins.length) : ins.length);
      if (s >= ins.length) return;
      const want = o.whereIn(ins[s]!.offset);
      if (want === "-") return;
      c.glue++;
      const got = o.whereOut(x.offset);
      if (got !== want) {
        c.glueWrong++;
        miss(`${name} #${j} ${x.key}: ${got}, site input #${s} ${want}`);
      }
    });
  }
  return c;
}

/**
 * An extracted function's body as it stands in for its call while
 * aligning: without its final `end` and the `local.get`s just before it,
 * which may hand locals back (extract/moved-body.ts) and would pair with
 * the host's own `local.get`s after the site.
 */
function spliced(body: readonly Instr[]): readonly Instr[] {
  let n = body.length - 1;
  while (n > 0 && body[n - 1]!.key === "local.get") n--;
  return body.slice(0, n);
}

/**
 * After a glue call, the `local.set`s and `drop`s that may store its results
 * (at most one per result) look like the host's own next instructions of the
 * same kind, and the alignment pairs the first of equal ones. A site's stores
 * come first: where a candidate is paired and the next output instruction,
 * of the same key, is not, the pair moves to that one (right to left, so a
 * run shifts). Returns the candidates left unpaired, each with its call: the
 * site's stores, whose location is the site's. Moves pairs in place.
 */
function storesAfterGlue(outs: readonly Instr[], seq: readonly Instr[], at: readonly number[], pairs: [number, number][]): Map<number, number> {
  const seqOf = new Map<number, number>();
  at.forEach((j, k) => j >= 0 && seqOf.set(j, k));
  const pairAt = new Map<number, number>();
  pairs.forEach(([, k], p) => pairAt.set(k, p));
  const stores = new Map<number, number>();
  outs.forEach((x, c) => {
    if (!x.glue || x.results === undefined || !/^glue call /.test(x.key)) return;
    let end = c + 1;
    while (end < outs.length && end - c - 1 < x.results && (outs[end]!.key === "local.set" || outs[end]!.key === "drop")) end++;
    for (let j = end - 1; j > c; j--) {
      const k = seqOf.get(j)!;
      const next = seqOf.get(j + 1);
      const p = pairAt.get(k);
      if (p === undefined || next === undefined || seq[next]!.key !== seq[k]!.key || pairAt.has(next)) continue;
      pairs[p]![1] = next;
      pairAt.delete(k);
      pairAt.set(next, p);
    }
    for (let j = c + 1; j < end; j++) if (!pairAt.has(seqOf.get(j)!)) stores.set(j, c);
  });
  return stores;
}
