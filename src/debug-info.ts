// Custom sections that describe the code by byte offset or function index:
// DWARF (`.debug_*`, and `external_debug_info`, which names a file of it), the
// `sourceMappingURL` of a source map, and code metadata (`metadata.code.*`,
// e.g. branch hints). Once the passes change what they describe they would
// point at the wrong code (a debugger or symbolizer then shows wrong
// functions and lines, with no error). They are never written stale: the
// pipeline sets them aside before the passes (so the size judges do not
// compress them again and again either), and at the end puts back each one
// whose addresses still hold. Where the code changed, DWARF and code metadata
// follow it through the run's address map (dwarf/rewrite.ts,
// code-metadata.ts); what cannot follow exactly is removed with a note (all
// of the DWARF, or single metadata items). `stripDwarf` removes DWARF
// without a note. A source map follows its own way (pipeline/source-map-out.ts).

import { sameBytes, u32Size } from "./binary/bytes.js";
import { sectionSpans, withoutSections, type SectionSpan } from "./binary/sections.js";
import { readModule } from "./binary/reader.js";
import { writeModule } from "./binary/writer.js";
import type { AddressMap } from "./binary/address-map.js";
import type { CustomSection, Module } from "./ir/module.js";
import { CodeMap, functionSpans } from "./dwarf/code-map.js";
import { DwarfRefusal } from "./dwarf/bytes.js";
import { rewriteDwarf } from "./dwarf/rewrite.js";
import { followCodeMetadata, type CodeLayout } from "./code-metadata.js";

export type DebugKind = "dwarf" | "source map" | "code metadata";

export function debugKind(name: string): DebugKind | null {
  if (name.startsWith(".debug_") || name === "external_debug_info") return "dwarf";
  if (name === "sourceMappingURL") return "source map";
  if (name.startsWith("metadata.code.")) return "code metadata";
  return null;
}

/** Debug sections taken out of a module, with the order of all its custom sections to put them back in. */
export interface SetAside {
  sections: CustomSection[];
  /** Names of the module's custom sections in their order, set-aside ones included. */
  order: string[];
}

/** Does a run on `bytes` need to record where its code comes from, so debug info can follow it? */
export function debugInfoToFollow(bytes: Uint8Array, stripDwarf: boolean): boolean {
  try {
    return sectionSpans(bytes).some((s) => s.id === 0 && (debugKind(s.name) === "code metadata" || (!stripDwarf && debugKind(s.name) === "dwarf")));
  } catch {
    return false; // malformed: reading the input says how
  }
}

/** Takes the debug sections out of `m.customs` (all of them; the caller decides at the end what goes back). */
export function setAsideDebugInfo(m: Module): SetAside {
  const order = m.customs.map((c) => c.name);
  const sections = m.customs.filter((c) => debugKind(c.name) !== null);
  if (sections.length > 0) m.customs = m.customs.filter((c) => debugKind(c.name) === null);
  return { sections, order };
}

/** Bytes a custom section takes in a binary (id, size, name and payload). */
export function customSectionBytes(c: CustomSection): number {
  const nameLen = new TextEncoder().encode(c.name).length;
  const payload = u32Size(nameLen) + nameLen + c.bytes.length;
  return 1 + u32Size(payload) + payload;
}

/** Bytes of the set-aside sections a result can ship with (all of them, but DWARF when it is stripped). */
export function asideBytes(aside: SetAside, stripDwarf: boolean): number {
  return aside.sections.reduce((n, c) => n + (stripDwarf && debugKind(c.name) === "dwarf" ? 0 : customSectionBytes(c)), 0);
}

/** A removed section, for the report. */
export interface RemovedSection {
  name: string;
  /** Bytes of the whole section (id, size, name and payload). */
  bytes: number;
  kind: DebugKind;
  /** "stale": what it describes changed; "stripped": the user asked (stripDwarf). */
  why: "stale" | "stripped";
}

export interface DebugOutcome {
  binary: Uint8Array;
  removed: RemovedSection[];
  notes: string[];
}

/**
 * Do the addresses that DWARF and code metadata use still hold? They are
 * offsets into the code section's payload and function, global, type and
 * local indices: they hold when every known section but data is byte for
 * byte the input's (data addresses are memory addresses, which no pass moves).
 */
export function codeUnchanged(input: Uint8Array, output: Uint8Array): boolean {
  const known = (b: Uint8Array): SectionSpan[] => sectionSpans(b).filter((s) => s.id !== 0 && s.id !== 11);
  const a = known(input);
  const b = known(output);
  return a.length === b.length && a.every((s, k) => s.id === b[k]!.id && sameBytes(input.subarray(s.payload, s.end), output.subarray(b[k]!.payload, b[k]!.end)));
}

/** Does a source map still hold? Its offsets are file offsets of instructions: every byte up to the end of the code section must be the same. */
export function codePrefixUnchanged(input: Uint8Array, output: Uint8Array): boolean {
  const codeEnd = (b: Uint8Array): number => sectionSpans(b).find((s) => s.id === 10)?.end ?? -1;
  const e = codeEnd(input);
  return e === codeEnd(output) && sameBytes(input.subarray(0, e), output.subarray(0, e));
}

/** The note for a stale sourceMappingURL section removed (one that follows the map replaces it: see pipeline/source-map-out.ts). */
export const STALE_SOURCE_MAP_NOTE = "debug info: removed the sourceMappingURL section: the source map it names gives the input's code offsets, which the passes changed";

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The output's code in DWARF's terms (code-section offsets), mapped back to the input's. */
function codeMapOf(input: Uint8Array, output: Uint8Array, addresses: AddressMap): { map: CodeMap; input: CodeLayout; output: CodeLayout } {
  const a = functionSpans(input);
  const b = functionSpans(output);
  const codeEnd = (spans: typeof a): number => spans.codeStart + (spans.functions[spans.functions.length - 1]?.end ?? 0);
  const layout = (bytes: Uint8Array, spans: typeof a): CodeLayout => ({
    functions: spans.functions,
    code: bytes.subarray(spans.codeStart, codeEnd(spans)),
    get numImportedFuncs() {
      return readModule(bytes).numImportedFuncs;
    },
  });
  const outLayout = layout(output, b);
  return { map: new CodeMap(addresses, b.functions, b.codeStart, a.codeStart, outLayout.code, a.functions), input: layout(input, a), output: outLayout };
}

/**
 * Puts back into `output` (written from a module without them) the set-aside
 * sections whose addresses still hold against `input`, in their old places.
 * Where the code changed and `addresses` gives where `output`'s code came from
 * (its file offsets to the input's), DWARF and code metadata are rewritten to
 * follow it; the others are removed, with a note for each kind unless
 * stripped on request.
 */
export function restoreDebugInfo(input: Uint8Array, output: Uint8Array, aside: SetAside, stripDwarf: boolean, addresses?: () => AddressMap): DebugOutcome {
  if (aside.sections.length === 0) return { binary: output, removed: [], notes: [] };
  const removed: RemovedSection[] = [];
  const keep: CustomSection[] = [];
  const size = customSectionBytes;
  const holds = new Map<DebugKind, boolean>();
  const check = (k: DebugKind): boolean => {
    let h = holds.get(k);
    if (h === undefined) {
      h = k === "source map" ? codePrefixUnchanged(input, output) : codeUnchanged(input, output);
      holds.set(k, h);
    }
    return h;
  };
  const follow: CustomSection[] = [];
  for (const c of aside.sections) {
    const kind = debugKind(c.name)!;
    if (kind === "dwarf" && stripDwarf) removed.push({ name: c.name, bytes: size(c), kind, why: "stripped" });
    else if (check(kind)) keep.push(c);
    else if (addresses && kind !== "source map") follow.push(c);
    else removed.push({ name: c.name, bytes: size(c), kind, why: "stale" });
  }
  const notes: string[] = [];
  let dwarfRefused: string | null = null;
  if (follow.length > 0) {
    let code: ReturnType<typeof codeMapOf> | null = null;
    const codeMap = (): ReturnType<typeof codeMapOf> => (code ??= codeMapOf(input, output, addresses!()));
    const dwarf = follow.filter((c) => debugKind(c.name) === "dwarf");
    if (dwarf.length > 0) {
      try {
        if (new Set(dwarf.map((c) => c.name)).size < dwarf.length) throw new DwarfRefusal("two DWARF sections of one name");
        const rewritten = rewriteDwarf(new Map(dwarf.map((c) => [c.name, c.bytes])), codeMap().map);
        for (const c of dwarf) keep.push({ ...c, bytes: rewritten.get(c.name)! });
      } catch (e) {
        if (!(e instanceof DwarfRefusal)) throw e;
        dwarfRefused = e.message;
        for (const c of dwarf) removed.push({ name: c.name, bytes: size(c), kind: "dwarf", why: "stale" });
      }
    }
    for (const c of follow.filter((c) => debugKind(c.name) === "code metadata")) {
      let why = "";
      try {
        const m = codeMap();
        const f = followCodeMetadata(c.bytes, m.map, m.input, m.output, c.name);
        if (f.bytes) keep.push({ ...c, bytes: f.bytes });
        else why = `none of its ${plural(f.items, "item")} has its instruction in the output`;
        if (f.bytes && f.dropped > 0) notes.push(`debug info: ${c.name}: dropped ${f.dropped} of ${plural(f.items, "item")}: their instructions are gone or changed`);
      } catch (e) {
        if (!(e instanceof DwarfRefusal)) throw e;
        why = e.message;
      }
      if (why) {
        removed.push({ name: c.name, bytes: size(c), kind: "code metadata", why: "stale" });
        notes.push(`debug info: removed ${c.name}: it names functions and code offsets of the input, which the passes changed, and could not follow them (${why})`);
      }
    }
  }
  let binary = output;
  if (keep.length > 0) {
    // back in their places: the module's other custom sections are those of
    // the input in the same order (passes add none), set-aside ones between
    const m = readModule(output);
    const rest = m.customs;
    const merged: CustomSection[] = [];
    let r = 0;
    for (const name of aside.order) {
      const mine = keep.find((c) => c.name === name && !merged.includes(c));
      if (mine && debugKind(name) !== null) merged.push(mine);
      else if (r < rest.length && rest[r]!.name === name) merged.push(rest[r++]!);
    }
    while (r < rest.length) merged.push(rest[r++]!);
    m.customs = merged;
    binary = writeModule(m);
  }
  // in the input's order
  removed.sort((x, y) => aside.sections.findIndex((c) => c.name === x.name) - aside.sections.findIndex((c) => c.name === y.name));
  const stale = removed.filter((s) => s.why === "stale");
  const total = (list: RemovedSection[]): number => list.reduce((n, s) => n + s.bytes, 0);
  const dwarf = stale.filter((s) => s.kind === "dwarf");
  if (dwarf.length > 0) {
    const why = dwarfRefused === null ? "it describes the input's code, which the passes changed" : `it describes the input's code, which the passes changed, and could not be rewritten exactly to follow it (${dwarfRefused})`;
    notes.push(
      `debug info: removed DWARF (${plural(dwarf.length, "section")}: ${dwarf.map((s) => s.name).join(", ")}; ${total(dwarf)} bytes): ` +
        `${why}, so it would point at the wrong code (--strip-dwarf removes it without this note; --passes none keeps it)`,
    );
  }
  if (stale.some((s) => s.kind === "source map")) {
    notes.push(STALE_SOURCE_MAP_NOTE);
  }
  const meta = addresses ? [] : stale.filter((s) => s.kind === "code metadata");
  if (meta.length > 0) {
    notes.push(`debug info: removed ${meta.map((s) => s.name).join(", ")}: it names functions and code offsets of the input, which the passes changed`);
  }
  return { binary, removed, notes };
}

/** `bytes` without the custom sections whose name `drop` says yes to (byte for byte otherwise). */
export function withoutCustomSections(bytes: Uint8Array, drop: (name: string) => boolean): Uint8Array {
  return withoutSections(bytes, (s) => s.id === 0 && drop(s.name));
}
