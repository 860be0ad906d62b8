// DWARF follows the code: after every target's passes, each instruction of
// the output has the source location (file, line, column) that the input's
// DWARF gives for the same instruction; call-site glue (a call to code a
// pass extracted, and its marshalling) has the location of the code it
// replaced; each function's first instruction lies in the subprogram of the
// same name; and `llvm-dwarfdump --verify` passes. A source map made from the
// input's line tables, followed in the same run, says the same. The oracle
// (test/debug-oracle.ts) is llvm-dwarfdump-19 (Debian's llvm-19) and
// aligned instruction sequences (test/instr-align.ts). Where some part
// cannot be rewritten exactly, all DWARF goes, with a note naming the reason.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { encode } from "@jridgewell/sourcemap-codec";
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { optimize, SIZE_TARGETS, type OptimizeResult } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import { sectionSpans } from "../src/binary/sections.js";
import { scanSections } from "../src/report.js";
import { instructions } from "./instr-align.js";
import { codeStart, compareLocations, DWARFDUMP, dwarfdump, functionAt, haveDwarfdump, lineTable, locate, sourceMapFromLines, subprograms } from "./debug-oracle.js";
import { BODY, sameBehaviour } from "./behaviour.js";
import { uleb } from "./leb.js";
import { DwarfWriter } from "../src/dwarf/bytes.js";
import { readLineProgram, Rows, STMT, writeLineProgram, type LineProgram, type Sequence } from "../src/dwarf/line.js";
import { followLines } from "../src/dwarf/line-follow.js";
import { CodeMap } from "../src/dwarf/code-map.js";
import { AddressMap } from "../src/binary/address-map.js";

const skip = haveDwarfdump() ? false : `${DWARFDUMP} is not installed (Debian: apt-get install llvm-19): the DWARF oracle is missing`;

/** C (DWARF 5 and DWARF 4), C++ without libc++ and C++ with it (DWARF 5): scripts/build-dwarf-fixtures.sh. */
const FIXTURES = ["interp-Oz-g.wasm", "interp-Oz-g4.wasm", "shapes-Oz-g.wasm", "templates-Oz-g.wasm"];
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(fileURLToPath(new URL(`../../fixtures/wasm/${name}`, import.meta.url))));
const dwarfNotes = (notes: readonly string[]): string[] => notes.filter((n) => n.includes("DWARF"));

const where = (map: TraceMap, offset: number): string => {
  const p = originalPositionFor(map, { line: 1, column: offset });
  return p.source === null ? "-" : `${p.source}:${p.line}:${p.column}`;
};

/**
 * Compares what the input's and the output's DWARF (and a source map made
 * from the input's line tables, followed in the same run) say about every
 * aligned instruction, call-site glue and every function's first
 * instruction; checks call sites' return addresses and --verify.
 */
function checkFollows(input: Uint8Array, r: OptimizeResult, inputMap: string, what: string): void {
  const output = r.binary;
  const inLines = lineTable(input);
  const outLines = lineTable(output);
  const outInfo = dwarfdump(output, "--debug-info").stdout;
  const inSubs = subprograms(dwarfdump(input, "--debug-info").stdout);
  const outSubs = subprograms(outInfo);
  const inCode = codeStart(input);
  const outCode = codeStart(output);
  const d = compareLocations(input, output, {
    whereIn: (o) => locate(inLines, o - inCode),
    whereOut: (o) => locate(outLines, o - outCode),
    subprogramIn: (o) => functionAt(inSubs, o - inCode),
    subprogramOut: (o) => functionAt(outSubs, o - outCode),
    mergeMap: r.report.mergeMap,
  });
  console.log(`# ${what}: DWARF: ${d.checked} aligned instructions checked, ${d.wrong} elsewhere; ${d.glue} of call-site glue, ${d.glueWrong} elsewhere; ${d.functions} functions, ${d.wrongFunctions.length} in another subprogram`);
  assert.ok(d.checked > 1000, `${what}: checked ${d.checked} instructions`);
  assert.ok(d.functions > 20, `${what}: ${d.functions} functions`);
  assert.deepEqual(d.examples, [], `${what}: instructions with another location than in the input`);
  assert.equal(d.wrong + d.glueWrong, 0);
  assert.deepEqual(d.wrongFunctions, [], `${what}: functions whose first instruction lies in another subprogram`);
  const inTrace = new TraceMap(inputMap);
  const outTrace = new TraceMap(r.sourceMap!);
  const m = compareLocations(input, output, { whereIn: (o) => where(inTrace, o), whereOut: (o) => where(outTrace, o), mergeMap: r.report.mergeMap });
  console.log(`# ${what}: source map: ${m.checked} aligned instructions checked, ${m.wrong} elsewhere; ${m.glue} of call-site glue, ${m.glueWrong} elsewhere`);
  assert.ok(m.checked > 1000, `${what}: source map: checked ${m.checked} instructions`);
  assert.deepEqual(m.examples, [], `${what}: source map: instructions mapped elsewhere than in the input`);
  // every call site's return address (but the tombstone of a call that is gone) is just after a call
  const afterCalls = new Set<number>();
  const om = readModule(output);
  decodeAllBodies(om);
  for (const f of om.functions) {
    const b = f.body!;
    for (let i = 0; i + 1 < b.count; i++) if (OPS[b.ops[i]!]!.name.startsWith("call")) afterCalls.add(b.offsets![i + 1]! - outCode);
  }
  const returns = [...outInfo.matchAll(/DW_AT_call_return_pc\s+\(0x([0-9a-f]+)\)/g)].map((x) => parseInt(x[1]!, 16)).filter((a) => a !== 0xffffffff);
  const stray = returns.filter((a) => !afterCalls.has(a));
  assert.deepEqual(stray, [], `${what}: call sites whose return address follows no call`);
  console.log(`# ${what}: ${returns.length} call sites just after a call`);
  // llvm-dwarfdump's own lookup agrees with the line table read above, on a sample
  const sample = [...instructions(om).values()].flat().filter((_, k) => k % 997 === 0).slice(0, 6);
  for (const x of sample) {
    const b = x.offset - outCode;
    const text = dwarfdump(output, `--lookup=0x${b.toString(16)}`).stdout;
    const mm = /Line info: file '([^']*)', line (\d+), column (\d+)/.exec(text);
    const got = mm ? `${mm[1]}:${mm[2]}:${mm[3]}` : "-";
    const want = locate(outLines, b);
    if (want !== "-" && !want.endsWith(":0:0")) assert.equal(got.replace(/^.*\//, ""), want.replace(/^.*\//, ""), `${what}: --lookup=0x${b.toString(16)}`);
  }
  const v = dwarfdump(output, "--verify");
  assert.equal(v.status, 0, `${what}: llvm-dwarfdump --verify:\n${v.stdout.slice(0, 3000)}`);
}

for (const name of FIXTURES) {
  // the libc++ module is 2.8 MB (its DWARF): one target here; scripts/debug-info-check.ts runs it under all
  for (const target of name.startsWith("templates") ? (["raw"] as const) : SIZE_TARGETS) {
    test(`DWARF and a source map follow the code: ${name} under target ${target}`, { skip }, () => {
      const input = fixture(name);
      const inputMap = sourceMapFromLines(input, lineTable(input));
      const r = optimize(input, { target, measures: nodeMeasures, inputSourceMap: inputMap });
      assert.ok(!r.report.keptInput, "the passes changed the code (else this shows little)");
      assert.deepEqual(dwarfNotes(r.report.notes), [], "no DWARF note");
      const names = scanSections(r.binary).map((s) => s.name);
      for (const s of [".debug_info", ".debug_line", ".debug_abbrev"]) assert.ok(names.includes(`custom:${s}`), `${s} kept`);
      if (target === "raw") assert.ok(r.report.mergeMap.some((e) => e.became === "extracted"), "code was extracted (else the glue checks show little)");
      checkFollows(input, r, inputMap, `${name} ${target}`);
    });
  }
}

// The optimizer's own record, asked through the library: with an input map
// that maps each instruction to its own offset, the output map names each
// output instruction's origin. No instruction of a function (but those that
// stand for several, and the new functions extracted code went to) comes
// from another function: once, a `block` a pass added at a function's start
// took an origin in another function (5 __insertion_sort instances got
// fclose.c's lines).
for (const name of ["interp-Oz-g.wasm", "shapes-Oz-g.wasm"]) {
  for (const target of SIZE_TARGETS) {
    test(`origins stay in their function: ${name} under target ${target}`, () => {
      const input = fixture(name);
      const before = instructions(readModule(input));
      const fnAt = new Map<number, string>();
      for (const [fn, list] of before) for (const x of list) fnAt.set(x.offset, fn);
      const offsets = [...fnAt.keys()].sort((a, b) => a - b);
      const identity = JSON.stringify({ version: 3, sources: ["input"], names: [], mappings: encode([offsets.map((o): [number, number, number, number] => [o, 0, 0, o])]) });
      const r = optimize(input, { target, measures: nodeMeasures, inputSourceMap: identity });
      const map = new TraceMap(r.sourceMap!);
      const skipFns = new Set(r.report.mergeMap.flatMap((e) => (e.became === "extracted" ? [e.into.name ?? ""] : [e.function.name ?? "", e.into.name ?? ""])));
      let seen = 0;
      const foreign: string[] = [];
      for (const [fn, list] of instructions(readModule(r.binary))) {
        if (skipFns.has(fn)) continue;
        for (const x of list) {
          const p = originalPositionFor(map, { line: 1, column: x.offset });
          if (p.source === null) continue;
          seen++;
          const from = fnAt.get(p.column!);
          if (from !== fn) foreign.push(`${fn}: ${x.key} from ${from ?? `offset ${p.column}, no instruction's start`}`);
        }
      }
      assert.ok(seen > 1000, `${seen} instructions with an origin`);
      assert.deepEqual(foreign.slice(0, 10), [], `${foreign.length} instructions with an origin in another function`);
    });
  }
}

test("DWARF: the input passes llvm-dwarfdump --verify (the checks above mean something)", { skip }, () => {
  for (const name of FIXTURES) assert.equal(dwarfdump(fixture(name), "--verify").status, 0, name);
});

test("DWARF: --strip-dwarf removes it silently; no passes keep it byte for byte", () => {
  const input = fixture("interp-Oz-g.wasm");
  const s = optimize(input, { target: "raw", stripDwarf: true });
  assert.ok(!scanSections(s.binary).some((x) => x.name.startsWith("custom:.debug_")));
  assert.deepEqual(dwarfNotes(s.report.notes), []);
  const n = optimize(input, { passes: [] });
  const debug = (b: Uint8Array): Uint8Array[] => {
    const spans = sectionSpans(b).filter((x) => x.name.startsWith(".debug_"));
    return spans.map((x) => b.subarray(x.payload, x.end));
  };
  assert.deepEqual(debug(n.binary), debug(input));
});

// ---- refusals: hand-made DWARF the rewrite cannot follow exactly ----

function custom(name: string, payload: readonly number[]): Uint8Array {
  const n = new TextEncoder().encode(name);
  const body = [...uleb(n.length), ...n, ...payload];
  return Uint8Array.from([0, ...uleb(body.length), ...body]);
}
const u32 = (v: number): number[] => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
const u16 = (v: number): number[] => [v & 0xff, v >>> 8];
/** A DWARF 4 unit with one DIE of abbreviation 1 and `die` as its bytes. */
const unit4 = (die: number[], version = 4): number[] => {
  const body = [...u16(version), ...u32(0), 4, 1, ...die, 0];
  return [...u32(body.length), ...body];
};
/** Abbreviation 1: a compile unit without children, with these (attribute, form) pairs. */
const abbrev = (...pairs: [number, number][]): number[] => [1, 0x11, 0, ...pairs.flatMap(([a, f]) => [...uleb(a), ...uleb(f)]), 0, 0, 0];

async function moduleWith(...sections: Uint8Array[]): Promise<Uint8Array> {
  const wat = `(module
    (func $a (param i32) (result i32) (local i32) ${BODY("5")})
    (func $b (param i32) (result i32) (local i32) ${BODY("5")})
    (func (export "run") (param i32) (result i32) (i32.add (call $a (local.get 0)) (call $b (local.get 0)))))`;
  const base = await parse(wat);
  const out = new Uint8Array(base.length + sections.reduce((n, s) => n + s.length, 0));
  out.set(base);
  let o = base.length;
  for (const s of sections) {
    out.set(s, o);
    o += s.length;
  }
  return out;
}

const REFUSALS: [string, () => Uint8Array[], RegExp][] = [
  ["an unknown form", () => [custom(".debug_abbrev", abbrev([0x03, 0x7e])), custom(".debug_info", unit4([1, 0]))], /unknown attribute form 0x7e/],
  ["64-bit DWARF", () => [custom(".debug_abbrev", abbrev()), custom(".debug_info", [0xff, 0xff, 0xff, 0xff, ...u32(20), 0, 0, 0, 0])], /64-bit DWARF/],
  ["DWARF 3", () => [custom(".debug_abbrev", abbrev()), custom(".debug_info", unit4([1], 3))], /DWARF version 3/],
  [
    "a split-DWARF skeleton unit",
    () => {
      const body = [...u16(5), 4, 4, ...u32(0), 0, 0, 0, 0, 0, 0, 0, 0, 1, 0];
      return [custom(".debug_abbrev", abbrev()), custom(".debug_info", [...u32(body.length), ...body])];
    },
    /split DWARF/,
  ],
  ["a section it does not know", () => [custom(".debug_abbrev", abbrev()), custom(".debug_info", unit4([1])), custom(".debug_frame", [0, 0, 0, 0])], /\.debug_frame section, which the rewrite does not know/],
  ["external_debug_info", () => [custom("external_debug_info", [5, ...new TextEncoder().encode("x.dbg")])], /external_debug_info names DWARF in another file/],
  ["an address attribute of unknown meaning", () => [custom(".debug_abbrev", abbrev([0x01, 0x01])), custom(".debug_info", unit4([1, ...u32(3)]))], /attribute 0x1 holds an address/],
];

for (const [what, sections, reason] of REFUSALS) {
  test(`DWARF: ${what} is removed with a note saying why`, async () => {
    const input = await moduleWith(...sections());
    const r = optimize(input, { passes: ["fold-functions"] });
    assert.equal(r.report.passes[0]!.stats?.functionsFolded, 1, "the code changed");
    assert.ok(!scanSections(r.binary).some((s) => s.name.startsWith("custom:.debug_") || s.name === "custom:external_debug_info"), "no DWARF left");
    const notes = dwarfNotes(r.report.notes);
    assert.equal(notes.length, 1, notes.join("\n"));
    assert.match(notes[0]!, /^debug info: removed DWARF \(/);
    assert.match(notes[0]!, reason);
    assert.ok(r.report.removedSections.every((s) => s.why === "stale"));
    sameBehaviour(input, r.binary, [["run", [3]]]);
    // asked to strip: gone without a note
    assert.deepEqual(dwarfNotes(optimize(input, { passes: ["fold-functions"], stripDwarf: true }).report.notes), []);
  });
}

test("line programs: rows read column-wise and written back byte for byte, across the stores' growth", () => {
  // one program of two sequences, 700 rows in all (the row store starts at 256), every register used
  const w = new DwarfWriter(1 << 12);
  const header = new DwarfWriter(64);
  header.u16(4); // version
  header.u32(0); // header_length, patched below
  const hlStart = header.len;
  header.u8(1); // minimum_instruction_length
  header.u8(1); // maximum_operations_per_instruction
  header.u8(1); // default_is_stmt
  header.u8(0xfb); // line_base -5
  header.u8(14); // line_range
  header.u8(13); // opcode_base
  for (const n of [0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]) header.u8(n);
  header.u8(0); // no include directories
  header.bytes(new TextEncoder().encode("a.c\0"));
  header.u8(0);
  header.u8(0);
  header.u8(0);
  header.u8(0); // end of file names
  header.patchU32(2, header.len - hlStart);
  const program: LineProgram = { offset: 0, header: header.finish(), addressSize: 4, defaultIsStmt: true, lineBase: -5, lineRange: 14, opcodeBase: 13, sequences: [] };
  const rows = new Rows();
  const seqs: Sequence[] = [];
  let address = 100;
  for (const count of [300, 400]) {
    const from = rows.length;
    for (let k = 0; k < count; k++) {
      address += 1 + (k % 7);
      rows.push(address, 1 + (k % 3), 10 + ((k * 13) % 50), k % 5, k % 11 === 0 ? 0 : 1 | (k % 17 === 0 ? 2 : 0), k % 29 === 0 ? 1 : 0, k % 23 === 0 ? k : 0);
    }
    seqs.push({ rows, from, to: rows.length, end: address + 4 });
    address += 50;
  }
  writeLineProgram(w, program, seqs);
  const bytes = w.finish();
  const back = readLineProgram(bytes, 0, 4);
  assert.equal(back.sequences.length, 2);
  assert.equal(rows.length, 700);
  for (let s = 0; s < 2; s++) {
    const a = seqs[s]!;
    const b = back.sequences[s]!;
    assert.equal(b.to - b.from, a.to - a.from);
    assert.equal(b.end, a.end);
    for (let k = 0; k < a.to - a.from; k++) {
      const i = a.from + k;
      const j = b.from + k;
      const one = (r: Rows, x: number): number[] => [r.address[x]!, r.file[x]!, r.line[x]!, r.column[x]!, r.flags[x]!, r.isa[x]!, r.discriminator[x]!];
      assert.deepEqual(one(b.rows, j), one(a.rows, i), `sequence ${s}, row ${k}`);
    }
  }
  // and written again from what was read: the same bytes
  const again = new DwarfWriter(1 << 12);
  writeLineProgram(again, back, back.sequences);
  assert.deepEqual(again.finish(), bytes);
});

test("followLines on a fixed case: glue, a copied run, a re-encoded instruction, rows at one address", () => {
  // input code [0, 20): rows (address, line) (0, 10) (4, 11) (4, 12) (9, 13), all statements
  const rows = new Rows();
  for (const [address, line] of [[0, 10], [4, 11], [4, 12], [9, 13]] as const) rows.push(address, 1, line, 0, STMT, 0, 0);
  const program: LineProgram = { offset: 0, header: new Uint8Array(0), addressSize: 4, defaultIsStmt: true, lineBase: -5, lineRange: 14, opcodeBase: 13, sequences: [{ rows, from: 0, to: 4, end: 20 }] };
  // output function [0, 16) (file offsets: output code at 50, input code at 100): glue [0, 2),
  // input [4, 12) copied to [2, 10), the instruction at input 0 re-encoded at [10, 13), glue [13, 16)
  const entries = [
    { out: 50, len: 0, src: 0 },
    { out: 52, len: 8, src: 104 },
    { out: 60, len: 0, src: 100 },
    { out: 63, len: 0, src: 0 },
  ];
  const code = new CodeMap(new AddressMap(entries), [{ start: 0, end: 16 }], 50, 100, new Uint8Array(16), [{ start: 0, end: 20 }]);
  const out = followLines([program], code).get(program)!;
  assert.equal(out.length, 1);
  const s = out[0]!;
  assert.equal(s.end, 16);
  const got = [];
  for (let k = s.from; k < s.to; k++) got.push([s.rows.address[k], s.rows.line[k], s.rows.flags[k]]);
  assert.deepEqual(got, [
    [0, 0, 0], // glue before any row: line 0, not a statement
    [2, 11, STMT], // both rows at the run's origin, in order
    [2, 12, STMT],
    [7, 13, STMT], // a row inside the run, at its offset there
    [10, 10, STMT], // the re-encoded instruction's row
    [13, 0, STMT], // glue after: line 0, the statement flag of the row before
  ]);
});
