// Asking a FunctionSlicer about one instruction by name, for the slices tests:
// the n-th instruction named so, its slice (the test fails on a refusal), or
// its refusal (the test fails on a slice).

import assert from "node:assert/strict";
import { OPS } from "../src/binary/opcodes/index.js";
import type { FunctionSlicer, Refusal, Slice } from "../src/passes/slices/identify.js";

/** The n-th (from 0) instruction named `name`. */
export function nth(fs: FunctionSlicer, name: string, n = 0): number {
  for (let i = 0; i < fs.body.count; i++) if (OPS[fs.body.ops[i]!]!.name === name && n-- === 0) return i;
  throw new Error(`no ${name}`);
}

export function sliceOf(fs: FunctionSlicer, name: string, n = 0): Slice {
  const s = fs.slice(nth(fs, name, n));
  assert.ok(!("reason" in s), `refused: ${JSON.stringify(s)}`);
  return s as Slice;
}

export function refusalOf(fs: FunctionSlicer, name: string, n = 0): Refusal {
  const s = fs.slice(nth(fs, name, n));
  assert.ok("reason" in s, "expected a refusal");
  return s as Refusal;
}
