// The last step of a run given a source map: the map follows the code to
// the output, and the output's sourceMappingURL section names the new map
// (when the caller gives its URL) instead of being removed as stale.

import { ByteWriter } from "../binary/bytes.js";
import { STALE_SOURCE_MAP_NOTE, withoutCustomSections, type RemovedSection } from "../debug-info.js";
import { followSourceMap, type ReadSourceMap } from "../source-map.js";
import type { CodeOrigins } from "./code-origins.js";
import type { LastWord } from "./last-word.js";

export interface MappedOutput {
  binary: Uint8Array;
  sourceMap: string;
  removedSections: RemovedSection[];
  notes: string[];
}

const URL_SECTION = "sourceMappingURL";

/** `bytes` with a sourceMappingURL custom section naming `url` at the end, in place of any it had. */
export function withSourceMapUrl(bytes: Uint8Array, url: string): Uint8Array {
  const rest = withoutCustomSections(bytes, (n) => n === URL_SECTION);
  const payload = new ByteWriter(url.length + 32);
  payload.name(URL_SECTION);
  payload.name(url);
  const sec = new ByteWriter(payload.len + 8);
  sec.u8(0);
  sec.sized(payload);
  const section = sec.finish();
  const out = new Uint8Array(rest.length + section.length);
  out.set(rest);
  out.set(section, rest.length);
  return out;
}

export function mapOutput(inputMap: ReadSourceMap, last: LastWord, written: Uint8Array, origins: CodeOrigins, url: string | undefined): MappedOutput {
  const binary = url === undefined ? last.binary : withSourceMapUrl(last.binary, url);
  const sourceMap = JSON.stringify(followSourceMap(inputMap, origins.mapOf(binary, written)));
  if (url === undefined) {
    const stale = last.removedSections.some((s) => s.kind === "source map");
    const notes = stale ? [...last.notes, "debug info: the new source map is not named by the output (no sourceMappingURL given)"] : last.notes;
    return { binary, sourceMap, removedSections: last.removedSections, notes };
  }
  // the stale section's removal is no news: a new one names the new map
  return {
    binary,
    sourceMap,
    removedSections: last.removedSections.filter((s) => s.kind !== "source map"),
    notes: last.notes.filter((n) => n !== STALE_SOURCE_MAP_NOTE),
  };
}
