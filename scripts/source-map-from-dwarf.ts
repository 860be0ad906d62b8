// node dist/scripts/source-map-from-dwarf.js IN.wasm OUT.map
//
// Writes a wasm source map made from IN.wasm's DWARF line tables, as
// Emscripten's wasm-sourcemap.py does: every row of every line table becomes
// a mapping at its address plus the code section's file offset (DWARF
// addresses in wasm are offsets into the code section's payload). Used to
// make test inputs with source maps; needs llvm-dwarfdump-19 (Debian llvm-19).

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { encode, type SourceMapSegment } from "@jridgewell/sourcemap-codec";
import { sectionSpans } from "../src/binary/sections.js";

const [inPath, outPath] = process.argv.slice(2);
if (!inPath || !outPath) {
  process.stderr.write("usage: node dist/scripts/source-map-from-dwarf.js IN.wasm OUT.map\n");
  process.exit(2);
}
const bytes = readFileSync(inPath);
const code = sectionSpans(bytes).find((s) => s.id === 10);
if (!code) throw new Error(`${inPath}: no code section`);
const dump = execFileSync("llvm-dwarfdump-19", ["--debug-line", inPath], { encoding: "utf8", maxBuffer: 1 << 28 });

const sources: string[] = [];
const sourceIndex = new Map<string, number>();
const segs: SourceMapSegment[] = [];
let dirs: string[] = [];
let files: string[] = [];
let version = 4;
let pendingName: string | null = null;
for (const line of dump.split("\n")) {
  let m: RegExpMatchArray | null;
  if (line.startsWith("debug_line[")) {
    dirs = [];
    files = [];
    continue;
  }
  if ((m = line.match(/^\s+version: (\d+)/))) version = Number(m[1]);
  else if ((m = line.match(/^include_directories\[\s*(\d+)\] = "(.*)"/))) dirs[Number(m[1])] = m[2]!;
  else if ((m = line.match(/^file_names\[\s*(\d+)\]:/))) pendingName = m[1]!;
  else if (pendingName !== null && (m = line.match(/^\s+name: "(.*)"/))) files[Number(pendingName)] = m[1]!;
  else if (pendingName !== null && (m = line.match(/^\s+dir_index: (\d+)/))) {
    const d = Number(m[1]);
    const dir = d === 0 && version < 5 ? "" : (dirs[d] ?? "");
    const name = files[Number(pendingName)]!;
    files[Number(pendingName)] = dir && !name.startsWith("/") ? `${dir}/${name}` : name;
    pendingName = null;
  } else if ((m = line.match(/^0x([0-9a-f]+)\s+(\d+)\s+(\d+)\s+(\d+)\s.*?(end_sequence)?\s*$/))) {
    const at = code.payload + parseInt(m[1]!, 16);
    const ln = Number(m[2]);
    const col = Number(m[3]);
    const file = files[Number(m[4])];
    if (m[5] || ln === 0 || file === undefined) {
      segs.push([at]);
      continue;
    }
    let si = sourceIndex.get(file);
    if (si === undefined) {
      si = sources.length;
      sources.push(file);
      sourceIndex.set(file, si);
    }
    segs.push([at, si, ln - 1, col]);
  }
}
segs.sort((a, b) => a[0] - b[0]);
writeFileSync(outPath, JSON.stringify({ version: 3, sources, names: [], mappings: encode([segs]) }));
process.stdout.write(`${outPath}: ${segs.length} mappings, ${sources.length} sources\n`);
