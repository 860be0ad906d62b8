// Shared by the profile tests: a small module with nested loops and calls,
// and the helpers that run an instrumented module in V8 and read its counters.

import assert from "node:assert/strict";
import { readModule } from "../src/binary/reader.js";
import { COUNTER_EXPORT, COUNT_EXPORT, MAP_SECTION, decodeProfileMap } from "../src/index.js";

export type Exports = Record<string, (...a: unknown[]) => unknown>;

export function instantiate(bytes: Uint8Array): Exports {
  const module = new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>);
  return new WebAssembly.Instance(module, {}).exports as Exports;
}

/** All counter values of an instance of an instrumented module, read through its exports. */
export function readCounters(e: Exports): bigint[] {
  const n = e[COUNT_EXPORT]!() as number;
  return Array.from({ length: n }, (_, i) => e[COUNTER_EXPORT]!(i) as bigint);
}

export function mapOf(bytes: Uint8Array) {
  const sec = readModule(bytes).customs.find((c) => c.name === MAP_SECTION);
  assert.ok(sec, "the instrumented module carries its profile map");
  return decodeProfileMap(sec.bytes);
}

// $inner sums 0..n-1 in a loop; run(k) calls it for n = 0..k-1 and clamps at 100.
export const LOOPS_WAT = `(module
  (func $inner (param $n i32) (result i32) (local $i i32) (local $s i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (i32.add (local.get $s) (local.get $i)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (local.get $s))
  (func (export "run") (param $k i32) (result i32) (local $j i32) (local $t i32)
    (loop $outer
      (local.set $t (i32.add (local.get $t) (call $inner (local.get $j))))
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $outer (i32.lt_u (local.get $j) (local.get $k))))
    (if (i32.gt_u (local.get $t) (i32.const 100)) (then (local.set $t (i32.const 100))))
    (local.get $t)))`;
