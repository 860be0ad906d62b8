// Bodies are never changed once built: renumbering functions, globals and
// types gives the functions new bodies and leaves the old ones as they were
// (analyses cache views of bodies by identity; trial copies share them).

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse } from "@bytecodealliance/jco-transpile/wasm-tools";
import { decodeAllBodies, readModule } from "../src/binary/reader.js";
import { writeModule } from "../src/binary/writer.js";
import { validateModule } from "../src/analysis/validate.js";
import { printBody } from "../src/binary/printer.js";
import { mapWords, type Body } from "../src/ir/body.js";
import { FUNC_WORDS } from "../src/ir/imm-layout.js";
import { constExprs } from "../src/ir/module.js";
import { redirectFunctions } from "../src/ir/renumber.js";
import { removeDeadGlobals, removeDeadTypes } from "../src/passes/cleanup.js";

const WAT = `(module
  (type $unused (func (param f64)))
  (type $t (func (param i32) (result i32)))
  (global $dead (mut i32) (i32.const 0))
  (global $g (mut i32) (i32.const 1))
  (global $h (mut i32) (i32.const 2))
  (table 2 funcref)
  (elem (i32.const 0) func $a $b)
  (func $gone (type $t) local.get 0)
  (func $a (export "a") (type $t) local.get 0 global.get $g i32.add call $b)
  (func $b (type $t) local.get 0 global.get $h i32.const 1 call_indirect (type $t) i32.add global.set $h global.get $h))`;

function snapshot(bodies: readonly Body[]): Int32Array[] {
  return bodies.map((b) => b.imm.slice());
}

test("renumbering functions, globals and types builds new bodies and leaves the old ones unchanged", async () => {
  const m = readModule(await parse(WAT));
  decodeAllBodies(m);
  const before = m.functions.map((f) => f.body!);
  const beforeExprs = constExprs(m).map((x) => x.body);
  const words = snapshot(before);
  const exprWords = snapshot(beforeExprs);

  redirectFunctions(m, Int32Array.from([-1, 1, 2])); // $gone removed: $a and $b move down
  assert.equal(removeDeadGlobals(m), 1); // $dead: $g and $h move down
  assert.equal(removeDeadTypes(m), 1); // $unused: $t moves down

  before.forEach((b, i) => assert.deepEqual(b.imm, words[i], `old body ${i} unchanged`));
  beforeExprs.forEach((b, i) => assert.deepEqual(b.imm, exprWords[i], `old constant expression ${i} unchanged`));
  // the kept functions got new bodies with the new indices
  assert.notEqual(m.functions[0]!.body, before[1]);
  assert.notEqual(m.functions[1]!.body, before[2]);
  assert.match(printBody(m.functions[0]!.body!), /call 1\b/);
  assert.match(printBody(m.functions[1]!.body!), /global.get 1\b[\s\S]*call_indirect/);
  const out = readModule(writeModule(m));
  decodeAllBodies(out);
  validateModule(out);
});

test("mapWords returns the body itself when no word changes, and a copy that shares all but the immediates otherwise", async () => {
  const m = readModule(await parse(WAT));
  decodeAllBodies(m);
  const b = m.functions[1]!.body!;
  assert.equal(mapWords(b, FUNC_WORDS, (w) => w), b);
  const c = mapWords(b, FUNC_WORDS, (w) => w + 5);
  assert.notEqual(c, b);
  assert.equal(c.ops, b.ops);
  assert.equal(c.immStart, b.immStart);
  assert.notEqual(c.imm, b.imm);
  assert.deepEqual([...b.imm].filter((w, p) => c.imm[p] !== w).length, 1, "one call immediate changed");
});
