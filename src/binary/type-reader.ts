// Reading value and heap types (shared by the section reader and the code reader).

import type { ByteReader } from "./bytes.js";
import { unknownHeapTypeMessage } from "./proposals.js";
import { isAbstractHeap, refType, type HeapType, type ValType } from "../ir/types.js";

export function readHeapType(s: ByteReader): HeapType {
  const at = s.pos;
  const h = s.s33();
  if (h >= 0) return h;
  if (!isAbstractHeap(h)) s.fail(unknownHeapTypeMessage(h & 0x7f, "heap type"), at);
  return h;
}

export function readValType(s: ByteReader): ValType {
  const at = s.pos;
  const b = s.u8();
  if (b >= 0x7b && b <= 0x7f) return b;
  if (b === 0x63 || b === 0x64) {
    return refType(readHeapType(s), b === 0x63);
  }
  const h = b - 0x80;
  if (isAbstractHeap(h)) return refType(h, true);
  s.fail(unknownHeapTypeMessage(b, "value type"), at);
}

