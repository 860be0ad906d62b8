// Executed work (src/profile/executed-work.ts): the instructions and calls a
// profiled run executed, counted exactly from the region counts; what the
// runtime benchmark compares between the -Oz module and our output.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { ProfileError, instrument, profileFromCounts, type Profile } from "../src/index.js";
import { executedWork } from "../src/profile/executed-work.js";
import { LOOPS_WAT, instantiate, mapOf, readCounters } from "./profiled-module.js";

/** Instruments `wat`, calls `run` with each argument, and returns the profile of those calls with the instrumented module's bytes. */
async function profileOf(wat: string, args: number[]): Promise<{ input: Uint8Array; profile: Profile; results: unknown[] }> {
  const input = await parse(wat);
  const { binary } = instrument(input);
  const e = instantiate(binary);
  const results = args.map((a) => e.run!(a));
  return { input, profile: profileFromCounts(mapOf(binary), [readCounters(e)]), results };
}

test("executed work counts each region's instructions times its count, structure markers left out", async () => {
  const { input, profile, results } = await profileOf(LOOPS_WAT, [5]);
  assert.deepEqual(results, [10]);
  // $inner, called 5 times (n = 0..4): loop test 4 instructions × 15, body 9 × 10, `local.get $s` × 5 = 155.
  // run: loop body 13 × 5 (one call each), 4 for the `if` test, 1 for the result = 70.
  assert.deepEqual(executedWork(profile, input), { instructions: 225, calls: 5, indirectCalls: 0, functionsRun: 2 });
});

// The same sum twice: once with the step inline, once through a helper, directly and through a table.
const HELPER_WAT = (how: "inline" | "call" | "indirect"): string => `(module
  (type $step (func (param i32 i32) (result i32)))
  (table 1 funcref)
  (elem (i32.const 0) $add)
  (func $add (type $step) (i32.add (local.get 0) (local.get 1)))
  (func (export "run") (param $k i32) (result i32) (local $j i32) (local $t i32)
    (loop $l
      (local.set $t ${
        how === "inline"
          ? "(i32.add (local.get $t) (local.get $j))"
          : how === "call"
            ? "(call $add (local.get $t) (local.get $j))"
            : "(call_indirect (type $step) (local.get $t) (local.get $j) (i32.const 0))"
      })
      (local.set $j (i32.add (local.get $j) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $j) (local.get $k))))
    (local.get $t)))`;

test("a call that replaced inline code shows as added calls and instructions", async () => {
  const inline = await profileOf(HELPER_WAT("inline"), [10]);
  const called = await profileOf(HELPER_WAT("call"), [10]);
  const indirect = await profileOf(HELPER_WAT("indirect"), [10]);
  assert.deepEqual(called.results, inline.results);
  assert.deepEqual(indirect.results, inline.results);
  const a = executedWork(inline.profile, inline.input);
  const b = executedWork(called.profile, called.input);
  const c = executedWork(indirect.profile, indirect.input);
  assert.equal(a.calls, 0);
  assert.equal(b.calls, 10);
  assert.equal(b.indirectCalls, 0);
  assert.equal(c.calls, 10);
  assert.equal(c.indirectCalls, 10);
  // the call replaces i32.add; the helper runs local.get, local.get, i32.add (its `end` is structure) each time
  assert.equal(b.instructions - a.instructions, 10 * 3);
  assert.equal(c.instructions - b.instructions, 10); // the table index
  assert.equal(a.functionsRun, 1);
  assert.equal(b.functionsRun, 2);
});

test("a profile of another module is refused", async () => {
  const one = await profileOf(LOOPS_WAT, [3]);
  const other = await profileOf(HELPER_WAT("call"), [3]);
  assert.throws(() => executedWork(one.profile, other.input), ProfileError);
  const bad: Profile = { ...one.profile, functions: [{ origin: 0, blocks: [[0, 1], [400, 1]] }] };
  assert.throws(() => executedWork(bad, one.input), /does not fit the module/);
});
