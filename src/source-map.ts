// Source maps of wasm modules: version 3 maps whose one line of mappings
// gives, per file offset of an instruction (the "column"), a source file,
// line and column. The optimizer records where each byte of its output's
// code came from (binary/address-map.ts); this follows the input's map
// through that record, so every surviving instruction keeps its source.
// The VLQ format is left to @jridgewell/sourcemap-codec.

import { decode, encode, type SourceMapSegment } from "@jridgewell/sourcemap-codec";
import type { AddressMap } from "./binary/address-map.js";
import { UsageError } from "./errors.js";
import { lastAtOrBefore } from "./last-at-or-before.js";

export interface SourceMapV3 {
  version: 3;
  file?: string;
  sourceRoot?: string;
  sources: (string | null)[];
  sourcesContent?: (string | null)[];
  names: string[];
  mappings: string;
  [extra: string]: unknown;
}

/** A checked wasm source map with its mappings decoded (sorted by file offset). */
export interface ReadSourceMap {
  map: SourceMapV3;
  segments: SourceMapSegment[];
}

/** Parses and checks a wasm source map; throws UsageError naming what is wrong. */
export function parseSourceMap(text: string, what = "input source map"): SourceMapV3 {
  return readSourceMap(text, what).map;
}

/** Checks a wasm source map, given as JSON text or parsed, and decodes its mappings once; throws UsageError naming what is wrong. */
export function readSourceMap(value: string | object, what = "input source map"): ReadSourceMap {
  let j: unknown = value;
  if (typeof value === "string") {
    try {
      j = JSON.parse(value);
    } catch (e) {
      throw new UsageError(`${what}: not JSON (${(e as Error).message})`);
    }
  }
  if (typeof j !== "object" || j === null || Array.isArray(j)) throw new UsageError(`${what}: not a JSON object`);
  const o = j as Record<string, unknown>;
  if (o.version !== 3) throw new UsageError(`${what}: version ${JSON.stringify(o.version)} (only version 3 source maps are read)`);
  if (typeof o.mappings !== "string") throw new UsageError(`${what}: no "mappings" string`);
  if (!Array.isArray(o.sources) || !o.sources.every((s) => s === null || typeof s === "string")) throw new UsageError(`${what}: "sources" is not an array of strings`);
  if (o.names !== undefined && (!Array.isArray(o.names) || !o.names.every((s) => typeof s === "string"))) throw new UsageError(`${what}: "names" is not an array of strings`);
  if ("sections" in o) throw new UsageError(`${what}: indexed source maps ("sections") are not supported`);
  const map = { ...o, names: (o.names as string[] | undefined) ?? [] } as SourceMapV3;
  const segments = segmentsOf(map, what);
  for (const seg of segments as readonly (readonly number[])[]) {
    if (seg.length !== 1 && seg.length !== 4 && seg.length !== 5) throw new UsageError(`${what}: a mapping with ${seg.length} fields`);
    if (seg.length >= 4 && (seg[1]! < 0 || seg[1]! >= map.sources.length)) throw new UsageError(`${what}: a mapping names source ${seg[1]}, but there are ${map.sources.length}`);
    if (seg.length === 5 && (seg[4]! < 0 || seg[4]! >= map.names.length)) throw new UsageError(`${what}: a mapping names name ${seg[4]}, but there are ${map.names.length}`);
  }
  return { map, segments };
}

/** The map's segments, sorted by file offset; a wasm map has all of them on its first line. */
function segmentsOf(map: SourceMapV3, what: string): SourceMapSegment[] {
  let lines: SourceMapSegment[][];
  try {
    lines = decode(map.mappings);
  } catch (e) {
    throw new UsageError(`${what}: the mappings do not decode (${(e as Error).message})`);
  }
  const more = lines.slice(1).findIndex((l) => l.length > 0);
  if (more >= 0) throw new UsageError(`${what}: mappings on line ${more + 2}: a wasm source map has all of them on one line (file offsets as columns)`);
  const segs = lines[0] ?? [];
  // the format does not require sorted segments; lookups below do
  for (let k = 1; k < segs.length; k++) {
    if (segs[k]![0] < segs[k - 1]![0]) return [...segs].sort((a, b) => a[0] - b[0]);
  }
  return segs;
}

/** Index of the last segment at or before offset `at`, or -1. */
function segmentAt(segs: readonly SourceMapSegment[], at: number): number {
  return lastAtOrBefore(segs, (s) => s[0], at);
}

/**
 * The input's map, followed through `addresses` (output file offset → input
 * file offset): the map of the output. An instruction keeps the mapping in
 * effect at its origin; glue with no origin is unmapped. Sources, names and
 * sourcesContent stay as they were.
 */
export function followSourceMap(input: ReadSourceMap, addresses: AddressMap): SourceMapV3 {
  const segs = input.segments;
  const out: SourceMapSegment[] = [];
  const emit = (at: number, from: SourceMapSegment | undefined): void => {
    const seg: SourceMapSegment = from === undefined || from.length === 1 ? [at] : ([at, ...from.slice(1)] as SourceMapSegment);
    const prev = out[out.length - 1];
    if (prev && prev[0] === at) out.pop();
    const last = out[out.length - 1];
    // a segment holds until the next, so one equal to the last adds nothing
    if (last && last.length === seg.length && last.every((v, k) => k === 0 || v === seg[k])) return;
    if (!last && seg.length === 1) return;
    out.push(seg);
  };
  for (const e of addresses.entries) {
    if (e.len === 0) {
      emit(e.out, e.src === 0 ? undefined : segs[segmentAt(segs, e.src)]);
      continue;
    }
    // a run of unchanged bytes: the mapping in effect at its start, then every segment inside it
    let k = segmentAt(segs, e.src);
    emit(e.out, segs[k]);
    for (k++; k < segs.length && segs[k]![0] < e.src + e.len; k++) emit(e.out + (segs[k]![0] - e.src), segs[k]);
  }
  const { mappings: _, ...rest } = input.map;
  return { ...rest, version: 3, mappings: encode([out]) };
}
