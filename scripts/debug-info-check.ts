// node dist/scripts/debug-info-check.js [--targets raw,gzip,...] [FIXTURE.wasm ...]
//
// The full check of issue 18 for the DWARF fixtures (default: the four of
// scripts/build-dwarf-fixtures.sh) under every target, with the oracle of
// the tests (test/debug-oracle.ts): per fixture x target, the aligned
// instructions compared and how many have another location than in the
// input (DWARF line tables, and a source map made from them), call-site
// glue, functions in another subprogram, `llvm-dwarfdump --verify`, and what
// keeping debug info costs: output bytes and CPU time (user+sys, one run
// each) with DWARF and a source map followed, and with --strip-dwarf. The
// fast tests run the small fixtures; this runs the 2.8 MB C++ one too.
// Needs llvm-dwarfdump-19 (Debian llvm-19).

import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { optimize, SIZE_TARGETS, type SizeTarget } from "../src/index.js";
import { nodeMeasures } from "../src/cli/compress.js";
import { codeStart, compareLocations, dwarfdump, functionAt, haveDwarfdump, lineTable, locate, sourceMapFromLines, subprograms, type Comparison } from "../test/debug-oracle.js";

const args = process.argv.slice(2);
let targets: SizeTarget[] = [...SIZE_TARGETS];
const files: string[] = [];
for (let k = 0; k < args.length; k++) {
  if (args[k] === "--targets") targets = args[++k]!.split(",") as SizeTarget[];
  else files.push(args[k]!);
}
if (files.length === 0) {
  for (const f of ["interp-Oz-g.wasm", "interp-Oz-g4.wasm", "shapes-Oz-g.wasm", "templates-Oz-g.wasm"]) files.push(fileURLToPath(new URL(`../../fixtures/wasm/${f}`, import.meta.url)));
}
if (!haveDwarfdump()) {
  process.stderr.write("debug-info-check: llvm-dwarfdump-19 is not installed (Debian: apt-get install llvm-19)\n");
  process.exit(2);
}

const cpu = <T>(f: () => T): [T, number] => {
  const t = process.cpuUsage();
  const r = f();
  const d = process.cpuUsage(t);
  return [r, (d.user + d.system) / 1e6];
};
const cell = (c: Comparison): string => `${c.checked} / ${c.wrong} / ${c.glue} / ${c.glueWrong}`;

const rows: string[] = [];
let failed = false;
for (const file of files) {
  const input = new Uint8Array(readFileSync(file));
  const inLines = lineTable(input);
  const inSubs = subprograms(dwarfdump(input, "--debug-info").stdout);
  const inCode = codeStart(input);
  const inputMap = sourceMapFromLines(input, inLines);
  const inTrace = new TraceMap(inputMap);
  const where = (map: TraceMap, o: number): string => {
    const p = originalPositionFor(map, { line: 1, column: o });
    return p.source === null ? "-" : `${p.source}:${p.line}:${p.column}`;
  };
  for (const target of targets) {
    const [r, withTime] = cpu(() => optimize(input, { target, measures: nodeMeasures, inputSourceMap: inputMap }));
    const [s, stripTime] = cpu(() => optimize(input, { target, measures: nodeMeasures, stripDwarf: true }));
    const out = r.binary;
    const outLines = lineTable(out);
    const outSubs = subprograms(dwarfdump(out, "--debug-info").stdout);
    const outCode = codeStart(out);
    const dwarf = compareLocations(input, out, {
      whereIn: (o) => locate(inLines, o - inCode),
      whereOut: (o) => locate(outLines, o - outCode),
      subprogramIn: (o) => functionAt(inSubs, o - inCode),
      subprogramOut: (o) => functionAt(outSubs, o - outCode),
      mergeMap: r.report.mergeMap,
    });
    const outTrace = new TraceMap(r.sourceMap!);
    const map = compareLocations(input, out, { whereIn: (o) => where(inTrace, o), whereOut: (o) => where(outTrace, o), mergeMap: r.report.mergeMap });
    const verify = dwarfdump(out, "--verify").status === 0 ? "passes" : "FAILS";
    const notes = r.report.notes.filter((n) => n.includes("DWARF") || n.includes("source map"));
    if (dwarf.wrong + dwarf.glueWrong + map.wrong + map.glueWrong > 0 || dwarf.wrongFunctions.length > 0 || verify !== "passes" || notes.length > 0) {
      failed = true;
      for (const e of [...dwarf.examples, ...dwarf.wrongFunctions.slice(0, 5), ...map.examples, ...notes]) process.stderr.write(`${basename(file)} ${target}: ${e}\n`);
    }
    const row = [
      basename(file),
      target,
      cell(dwarf),
      `${dwarf.wrongFunctions.length} of ${dwarf.functions}`,
      verify,
      cell(map),
      String(out.length),
      String(s.binary.length),
      withTime.toFixed(1),
      stripTime.toFixed(1),
    ];
    rows.push(`| ${row.join(" | ")} |`);
    process.stderr.write(`${rows[rows.length - 1]}\n`);
  }
}
console.log("| fixture | target | DWARF: compared / different / glue / glue different | functions in another subprogram | --verify | source map: compared / different / glue / glue different | bytes with DWARF | bytes --strip-dwarf | CPU s with DWARF + map | CPU s --strip-dwarf |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(r);
process.exit(failed ? 1 : 0);
