// One cache entry as stored: a magic line, a header (format, tool version,
// kind, the key it was stored under, the payload's length and SHA-256),
// then the payload. Reading it back checks all of that, so an entry from
// another version or format, a truncated or corrupt file, or one that two
// writers interleaved is refused with the reason, never used.

import { VERSION } from "../version.js";
import { sha256Parts, type HashParts } from "./sha256.js";

/** Bumped whenever what an entry holds or how it is laid out changes. */
export const CACHE_FORMAT = 1;

const MAGIC = new TextEncoder().encode("wasm-compact cache\n");

interface Header {
  format: number;
  version: string;
  kind: string;
  key: string;
  length: number;
  sha256: string;
}

export function encodeEntry(kind: string, key: string, payload: Uint8Array, hash: HashParts = sha256Parts): Uint8Array {
  const header: Header = { format: CACHE_FORMAT, version: VERSION, kind, key, length: payload.length, sha256: hash([payload]) };
  const h = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(MAGIC.length + 4 + h.length + payload.length);
  out.set(MAGIC, 0);
  new DataView(out.buffer).setUint32(MAGIC.length, h.length, true);
  out.set(h, MAGIC.length + 4);
  out.set(payload, MAGIC.length + 4 + h.length);
  return out;
}

export type Decoded = { payload: Uint8Array } | { problem: string };

/** The payload of `raw` if it is a whole, intact entry of this kind, key, format and version; else why not. */
export function decodeEntry(raw: Uint8Array, kind: string, key: string, hash: HashParts = sha256Parts): Decoded {
  if (raw.length < MAGIC.length + 4 || MAGIC.some((b, i) => raw[i] !== b)) return { problem: "not a wasm-compact cache entry (or truncated before its header)" };
  const hlen = new DataView(raw.buffer, raw.byteOffset, raw.byteLength).getUint32(MAGIC.length, true);
  const start = MAGIC.length + 4 + hlen;
  if (start > raw.length) return { problem: "truncated in its header" };
  let header: Partial<Header>;
  try {
    header = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(raw.subarray(MAGIC.length + 4, start))) as Partial<Header>;
  } catch {
    return { problem: "its header is corrupt" };
  }
  if (header === null || typeof header !== "object") return { problem: "its header is corrupt" };
  if (header.format !== CACHE_FORMAT || header.version !== VERSION) {
    return { problem: `written by another version (wasm-compact ${String(header.version)}, cache format ${String(header.format)}; this is ${VERSION}, format ${CACHE_FORMAT})` };
  }
  if (header.kind !== kind || header.key !== key) return { problem: "stored under another key" };
  const payload = raw.subarray(start);
  if (payload.length < (header.length ?? 0)) return { problem: `truncated (${payload.length} of ${header.length} bytes)` };
  if (payload.length !== header.length || hash([payload]) !== header.sha256) return { problem: "corrupt (its checksum does not match)" };
  return { payload };
}

/** A JSON value and a byte string as one payload. */
export function packParts(json: unknown, bytes: Uint8Array): Uint8Array {
  const j = new TextEncoder().encode(JSON.stringify(json));
  const out = new Uint8Array(4 + j.length + bytes.length);
  new DataView(out.buffer).setUint32(0, j.length, true);
  out.set(j, 4);
  out.set(bytes, 4 + j.length);
  return out;
}

/** The parts packParts joined (the payload was checked whole: a failure here is a bug, and throws). */
export function unpackParts(payload: Uint8Array): { json: unknown; bytes: Uint8Array } {
  const n = new DataView(payload.buffer, payload.byteOffset, payload.byteLength).getUint32(0, true);
  const json: unknown = JSON.parse(new TextDecoder().decode(payload.subarray(4, 4 + n)));
  return { json, bytes: payload.slice(4 + n) };
}
