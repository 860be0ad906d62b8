// Section-level views of an encoded module, without decoding it: where each
// section is, and the module with some sections left out (byte for byte
// otherwise). For callers that work on whole sections only (debug info kept
// or removed, size estimates on the part of a module passes change).

import { ByteReader } from "./bytes.js";

export interface SectionSpan {
  id: number;
  /** Custom sections: their name; "" for the others. */
  name: string;
  /** Offset of the section's id byte, of its payload, and its end. */
  start: number;
  payload: number;
  end: number;
}

/** Section ids are 0 (custom) to 13 (tag). */
const MAX_SECTION_ID = 13;

/**
 * The sections of a module, by walking its section headers. Throws
 * WasmDecodeError if the header structure is malformed (the payloads are not
 * looked at, except for a custom section's name).
 */
export function sectionSpans(bytes: Uint8Array): SectionSpan[] {
  const r = new ByteReader(bytes);
  if (bytes.length < 8) r.fail("unexpected end: module header missing", 0);
  r.pos = 8;
  const out: SectionSpan[] = [];
  while (!r.atEnd()) {
    const start = r.pos;
    const id = r.u8();
    if (id > MAX_SECTION_ID) r.fail(`malformed section id ${id}`, start);
    const size = r.u32();
    const payload = r.pos;
    if (size > bytes.length - payload) r.fail("section size mismatch: unexpected end", start);
    let name = "";
    if (id === 0) {
      const s = new ByteReader(bytes, payload, payload + size);
      s.section = "custom";
      name = s.name();
    }
    out.push({ id, name, start, payload, end: payload + size });
    r.pos = payload + size;
  }
  return out;
}

/**
 * Sections a size estimate leaves out (size-target.ts estimateView, and the
 * writer's estimateView option): the data section and every custom section
 * but "name" (`name` is a custom section's name, "" for the others).
 */
export function leftOutOfEstimates(id: number, name: string): boolean {
  return id === 11 || (id === 0 && name !== "name");
}

/** `bytes` without the sections `drop` says yes to; `bytes` itself when none is dropped. */
export function withoutSections(bytes: Uint8Array, drop: (s: SectionSpan) => boolean): Uint8Array {
  const parts: [number, number][] = [];
  let from = 0;
  for (const s of sectionSpans(bytes)) {
    if (!drop(s)) continue;
    parts.push([from, s.start]);
    from = s.end;
  }
  if (parts.length === 0) return bytes;
  parts.push([from, bytes.length]);
  const out = new Uint8Array(parts.reduce((n, [a, b]) => n + b - a, 0));
  let o = 0;
  for (const [a, b] of parts) {
    out.set(bytes.subarray(a, b), o);
    o += b - a;
  }
  return out;
}
