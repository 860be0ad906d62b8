// The optimization report: sizes of the whole file, the code section and the
// custom sections before and after, what each pass did, and where the time
// went. Section sizes come from scanning the section headers of the actual
// input and output bytes, so they are exact, whatever the model did.

import type { RemovedSection } from "./debug-info.js";
import { sectionSpans } from "./binary/sections.js";
import type { MergeMapEntry } from "./passes/merge-map.js";
import type { WasmFeature } from "./analysis/feature-names.js";

const SECTION_NAMES = [
  "custom", "type", "import", "function", "table", "memory", "global", "export",
  "start", "element", "code", "data", "datacount", "tag",
];

export interface SectionInfo {
  /** Section id (0 = custom). */
  id: number;
  /** "type", "code", ... or, for a custom section, "custom:<its name>". */
  name: string;
  /** File offset of the section's id byte. */
  offset: number;
  /** Bytes the section occupies in the file: id byte, size LEB128 and payload. */
  size: number;
}

/** A size before and after. */
export interface SizeChange {
  before: number;
  after: number;
}

export interface PassReport {
  name: string;
  /** Size of the whole module before and after the pass. */
  bytesBefore: number;
  bytesAfter: number;
  timeMs: number;
  /** What the pass returned: false if it left the module untouched. */
  changed: boolean;
  /** False if the pass made the module larger and the pipeline undid it. */
  kept: boolean;
  stats: Record<string, number>;
  notes: string[];
}

export interface Report {
  tool: { name: "wasm-compact"; version: string };
  /** Totals in bytes. `code` and `custom` count whole sections (header included). */
  sizes: {
    file: SizeChange;
    code: SizeChange;
    custom: SizeChange;
  };
  /** Every section of the input and of the output, in file order. */
  sections: { input: SectionInfo[]; output: SectionInfo[] };
  passes: PassReport[];
  /** Whether the input and the output were validated (type-checked). */
  validated: { input: boolean; output: boolean };
  /** True if the optimized module was larger than the input and the input was returned unchanged. */
  keptInput: boolean;
  /**
   * WebAssembly features by wasm-opt's names (`multivalue`, `tail-call` ...):
   * what the input uses, what its target_features section declares, and what
   * the output uses. The output uses nothing beyond the input's used and
   * declared features unless the `features` option enabled it.
   */
  features: { input: WasmFeature[]; declared: WasmFeature[]; output: WasmFeature[] };
  /**
   * What became of every folded or merged function of the input, and which
   * new functions hold code extracted from a function (by input index and
   * name), and where each is in the output; empty when no pass folded,
   * merged or extracted anything, or when the input was returned.
   */
  mergeMap: MergeMapEntry[];
  /**
   * Custom sections the output lacks: debug info (DWARF, a sourceMappingURL,
   * code metadata) that the changed code made stale, or DWARF removed on
   * request (stripDwarf). See debug-info.ts.
   */
  removedSections: RemovedSection[];
  notes: string[];
  timings: Timings;
}

/** Milliseconds spent in each phase of a run. */
export interface Timings {
  readMs: number;
  validateInputMs: number;
  passesMs: number;
  writeMs: number;
  validateOutputMs: number;
  totalMs: number;
}

/**
 * Lists the sections of a binary module by walking its section headers.
 * Throws WasmDecodeError if the header structure is malformed (the payloads
 * are not looked at, except for a custom section's name).
 */
export function scanSections(bytes: Uint8Array): SectionInfo[] {
  return sectionSpans(bytes).map((s) => ({
    id: s.id,
    name: s.id === 0 ? `custom:${s.name}` : SECTION_NAMES[s.id]!,
    offset: s.start,
    size: s.end - s.start,
  }));
}

/** Sum of the sizes of the sections with this id. */
export function sectionBytes(sections: readonly SectionInfo[], id: number): number {
  let n = 0;
  for (const s of sections) if (s.id === id) n += s.size;
  return n;
}

/** Change from `before` to `after` in percent, as text ("-12.34%"), or "-" when both are 0. */
export function percentChange(c: SizeChange): string {
  if (c.before === 0) return c.after === 0 ? "-" : "new";
  const p = ((c.after - c.before) / c.before) * 100;
  const s = p.toFixed(2);
  return `${p > 0 ? "+" : ""}${s === "-0.00" ? "0.00" : s}%`;
}

function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * The size summary as a text table (no trailing newline):
 *
 *                      before      after   change
 *     whole file        1,234      1,200   -2.76%
 *     code section        800        780   -2.50%
 *     custom sections     120        120    0.00%
 */
export function formatSizeTable(report: Report): string {
  const rows: [string, SizeChange][] = [
    ["whole file", report.sizes.file],
    ["code section", report.sizes.code],
    ["custom sections", report.sizes.custom],
  ];
  const cells = rows.map(([label, c]) => [label, thousands(c.before), thousands(c.after), percentChange(c)]);
  const header = ["", "before", "after", "change"];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[i]!))).join("   ");
  return [line(header), ...cells.map(line)].map((l) => l.trimEnd()).join("\n");
}
