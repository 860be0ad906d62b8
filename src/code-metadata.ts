// Code metadata (`metadata.code.*` custom sections, e.g. branch hints) names
// instructions by function index and byte offset from the start of the
// function's body (its locals). Each item follows its instruction through the
// run's address map; an item whose instruction is gone, went to more than one
// place, or is another instruction there (its first byte differs) is dropped:
// a hint is only a hint, and one on the wrong instruction would be a lie.

import { DwarfReader, refuse } from "./dwarf/bytes.js";
import type { CodeMap, CodeSpan } from "./dwarf/code-map.js";
import { ByteWriter } from "./binary/bytes.js";

export interface CodeLayout {
  /** Function bodies, as code-section offsets. */
  functions: readonly CodeSpan[];
  /** The code section's payload. */
  code: Uint8Array;
  numImportedFuncs: number;
}

export interface FollowedMetadata {
  /** The new payload, or null when no item is left. */
  bytes: Uint8Array | null;
  items: number;
  dropped: number;
}

/** Rewrites one `metadata.code.*` payload for the output; throws (a DwarfRefusal) if it is malformed. */
export function followCodeMetadata(payload: Uint8Array, code: CodeMap, input: CodeLayout, output: CodeLayout, name: string): FollowedMetadata {
  const r = new DwarfReader(payload, 0, payload.length, name);
  const out = new Map<number, Map<number, Uint8Array>>();
  let items = 0;
  let dropped = 0;
  for (let n = r.uleb(); n > 0; n--) {
    const fi = r.uleb();
    const f = input.functions[fi - input.numImportedFuncs];
    for (let k = r.uleb(); k > 0; k--) {
      const off = r.uleb();
      const size = r.uleb();
      const data = payload.slice(r.pos, r.pos + size);
      r.skip(size);
      items++;
      const o = f ? code.start(f.start + off) : null;
      const g = o === null ? -1 : output.functions.findIndex((s) => s.start <= o && o < s.end);
      if (o === null || g < 0 || output.code[o] !== input.code[f!.start + off]) {
        dropped++;
        continue;
      }
      const idx = output.numImportedFuncs + g;
      let m = out.get(idx);
      if (!m) out.set(idx, (m = new Map()));
      const at = o - output.functions[g]!.start;
      if (m.has(at)) dropped++;
      else m.set(at, data);
    }
  }
  if (r.pos !== payload.length) refuse(`${name}: bytes after its last function`);
  if (out.size === 0) return { bytes: null, items, dropped };
  const w = new ByteWriter(payload.length + 16);
  w.u32(out.size);
  for (const [idx, m] of [...out].sort((a, b) => a[0] - b[0])) {
    w.u32(idx);
    w.u32(m.size);
    for (const [at, data] of [...m].sort((a, b) => a[0] - b[0])) {
      w.u32(at);
      w.u32(data.length);
      w.bytes(data);
    }
  }
  return { bytes: w.finish(), items, dropped };
}
