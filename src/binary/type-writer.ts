// Writing value and heap types, in their shortest form.

import type { ByteWriter } from "./bytes.js";
import { heapOf, isNullable, isRef, type HeapType, type ValType } from "../ir/types.js";

export function writeHeapType(w: ByteWriter, h: HeapType): void {
  w.s33(h);
}

export function writeValType(w: ByteWriter, t: ValType): void {
  if (!isRef(t)) {
    w.u8(t);
    return;
  }
  const h = heapOf(t);
  if (h < 0 && isNullable(t)) {
    w.u8(0x80 + h); // shorthand: funcref, externref, anyref ...
    return;
  }
  w.u8(isNullable(t) ? 0x63 : 0x64);
  writeHeapType(w, h);
}
