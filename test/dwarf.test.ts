// DWARF follows the code: after every target's passes, each instruction of
// the output has the source location (file, line, column) that the input's
// DWARF gives for the same instruction, each function's first instruction
// lies in the subprogram of the same name, and `llvm-dwarfdump --verify`
// passes. The oracle is llvm-dwarfdump-19 (Debian's llvm-19): it reads both
// line tables and DIE trees; "the same instruction" comes from aligning
// instruction sequences (test/instr-align.ts). Where some part cannot be
// rewritten exactly, all DWARF goes, with a note naming the reason.

import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { optimize, SIZE_TARGETS } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { OPS } from "../src/binary/opcodes/index.js";
import { sectionSpans } from "../src/binary/sections.js";
import { scanSections } from "../src/report.js";
import { align, instructions } from "./instr-align.js";
import { BODY, sameBehaviour } from "./behaviour.js";
import { uleb } from "./leb.js";

const DWARFDUMP = "llvm-dwarfdump-19";
const haveDump = spawnSync(DWARFDUMP, ["--version"]).status === 0;
const skip = haveDump ? false : `${DWARFDUMP} is not installed (Debian: apt-get install llvm-19): the DWARF oracle is missing`;

/** C (DWARF 5 and DWARF 4) and C++ (DWARF 5): scripts/build-dwarf-fixtures.sh. */
const FIXTURES = ["interp-Oz-g.wasm", "interp-Oz-g4.wasm", "templates-Oz-g.wasm"];
const fixture = (name: string): Uint8Array => new Uint8Array(readFileSync(fileURLToPath(new URL(`../../fixtures/wasm/${name}`, import.meta.url))));

const dir = mkdtempSync(join(tmpdir(), "wasm-compact-dwarf-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
let files = 0;
function dump(bytes: Uint8Array, ...args: string[]): { status: number | null; stdout: string } {
  const f = join(dir, `m${files++}.wasm`);
  writeFileSync(f, bytes);
  const r = spawnSync(DWARFDUMP, [...args, f], { encoding: "utf8", maxBuffer: 1 << 28 });
  return { status: r.status, stdout: r.stdout };
}

interface LineSeq {
  addrs: number[];
  locs: string[];
  end: number;
}

/** The line tables as llvm-dwarfdump reads them: sequences of (address, "file:line:column"). */
function lineTable(bytes: Uint8Array): LineSeq[] {
  const out: LineSeq[] = [];
  let files = new Map<number, string>();
  let fileIndex = -1;
  let cur: LineSeq = { addrs: [], locs: [], end: 0 };
  for (const line of dump(bytes, "--debug-line").stdout.split("\n")) {
    if (line.startsWith("debug_line[")) files = new Map();
    let m = /^file_names\[\s*(\d+)\]:/.exec(line);
    if (m) fileIndex = Number(m[1]);
    m = /^\s+name: "(.*)"$/.exec(line);
    if (m && fileIndex >= 0) files.set(fileIndex, m[1]!);
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
    cur.locs.push(`${files.get(Number(m[4])) ?? `#${m[4]}`}:${m[2]}:${m[3]}`);
  }
  return out;
}

/** The location in effect at `addr` (the last row at or before it in its sequence), or "-". */
function locate(seqs: readonly LineSeq[], addr: number): string {
  for (const s of seqs) {
    if (s.addrs[0]! > addr || addr >= s.end) continue;
    let k = s.addrs.length - 1;
    while (s.addrs[k]! > addr) k--;
    return s.locs[k]!;
  }
  return "-";
}

interface Sub {
  lo: number;
  hi: number;
  name: string;
}

/** Subprograms with a low_pc/high_pc in llvm-dwarfdump's dump of .debug_info (the tombstone left out). */
function subprograms(text: string): Sub[] {
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

const functionAt = (subs: readonly Sub[], addr: number): string => subs.find((s) => s.lo <= addr && addr < s.hi)?.name ?? "-";
const codeStart = (b: Uint8Array): number => sectionSpans(b).find((s) => s.id === 10)!.payload;
const dwarfNotes = (notes: readonly string[]): string[] => notes.filter((n) => n.includes("DWARF"));

/**
 * Compares what the input's and the output's DWARF say about every aligned
 * instruction and every function. `shared` names functions whose body now
 * stands for several (folded, merged): by design it keeps the lines of one.
 */
function checkFollows(input: Uint8Array, output: Uint8Array, what: string, shared: ReadonlySet<string>): void {
  const inLines = lineTable(input);
  const outLines = lineTable(output);
  const outInfo = dump(output, "--debug-info").stdout;
  const inSubs = subprograms(dump(input, "--debug-info").stdout);
  const outSubs = subprograms(outInfo);
  const inCode = codeStart(input);
  const outCode = codeStart(output);
  const before = instructions(readModule(input));
  const after = instructions(readModule(output));
  let checked = 0;
  let wrong = 0;
  let fns = 0;
  const wrongFns: string[] = [];
  const examples: string[] = [];
  for (const [name, outs] of after) {
    const ins = before.get(name);
    if (!ins || shared.has(name)) continue;
    let first = true;
    for (const [i, j] of align(ins, outs)) {
      const a = ins[i]!.offset - inCode;
      const b = outs[j]!.offset - outCode;
      if (first && functionAt(inSubs, a) !== "-") {
        first = false;
        fns++;
        if (functionAt(outSubs, b) !== functionAt(inSubs, a)) wrongFns.push(`${name}: ${functionAt(outSubs, b)}, input ${functionAt(inSubs, a)}`);
      }
      const want = locate(inLines, a);
      if (want === "-") continue;
      checked++;
      const got = locate(outLines, b);
      if (got !== want) {
        wrong++;
        if (examples.length < 5) examples.push(`${name} #${j} ${outs[j]!.key} @0x${b.toString(16)}: ${got}, input ${want}`);
      }
    }
  }
  console.log(`# ${what}: ${checked} aligned instructions checked, ${wrong} elsewhere; ${fns} functions, ${wrongFns.length} in another subprogram; ${shared.size} functions folded or merged left out`);
  if (wrong > 0) console.log(`# ${examples.join("\n# ")}`);
  assert.ok(checked > 1000, `${what}: checked ${checked} instructions`);
  assert.ok(fns > 20, `${what}: ${fns} functions`);
  // the alignment may pair an instruction with an identical one of another statement: a few in a thousand
  assert.ok(wrong <= checked / 500, `${what}: ${wrong} of ${checked} instructions have another location than in the input: ${examples.join("; ")}`);
  assert.deepEqual(wrongFns, [], `${what}: functions whose first instruction lies in another subprogram`);
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
  const sample = [...after.values()].flat().filter((_, k) => k % 997 === 0).slice(0, 6);
  for (const x of sample) {
    const b = x.offset - outCode;
    const text = dump(output, `--lookup=0x${b.toString(16)}`).stdout;
    const m = /Line info: file '([^']*)', line (\d+), column (\d+)/.exec(text);
    const got = m ? `${m[1]}:${m[2]}:${m[3]}` : "-";
    const want = locate(outLines, b);
    if (want !== "-" && !want.endsWith(":0:0")) assert.equal(got.replace(/^.*\//, ""), want.replace(/^.*\//, ""), `${what}: --lookup=0x${b.toString(16)}`);
  }
  const v = dump(output, "--verify");
  assert.equal(v.status, 0, `${what}: llvm-dwarfdump --verify:\n${v.stdout.slice(0, 3000)}`);
}

for (const name of FIXTURES) {
  // the C++ module is 2.8 MB (libc++'s DWARF): one target, to keep this file fast
  for (const target of name.startsWith("templates") ? (["raw"] as const) : SIZE_TARGETS) {
    test(`DWARF follows the code: ${name} under target ${target}`, { skip }, () => {
      const input = fixture(name);
      const r = optimize(input, { target, measures: nodeMeasures });
      assert.ok(!r.report.keptInput, "the passes changed the code (else this shows little)");
      assert.deepEqual(dwarfNotes(r.report.notes), [], "no DWARF note");
      const names = scanSections(r.binary).map((s) => s.name);
      for (const s of [".debug_info", ".debug_line", ".debug_abbrev"]) assert.ok(names.includes(`custom:${s}`), `${s} kept`);
      const shared = new Set(r.report.mergeMap.filter((e) => e.became !== "extracted").flatMap((e) => [e.function.name ?? "", e.into.name ?? ""]));
      checkFollows(input, r.binary, `${name} ${target}`, shared);
    });
  }
}

test("DWARF: the input passes llvm-dwarfdump --verify (the checks above mean something)", { skip }, () => {
  for (const name of FIXTURES) assert.equal(dump(fixture(name), "--verify").status, 0, name);
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
