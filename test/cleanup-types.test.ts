// cleanup's removal of unused types: what goes, what stays (whole recursion
// groups, types reached through fields and supertypes), that every type
// reference follows the renumbering, and that behaviour stays.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parse, print } from "@bytecodealliance/jco-transpile/wasm-tools";
import { readModule } from "../src/binary/reader.js";
import { validateModule } from "../src/analysis/validate.js";
import { optimize } from "../src/index.js";
import { removeDeadTypes } from "../src/passes/cleanup.js";
import { writeModule } from "../src/binary/writer.js";

function cleaned(input: Uint8Array) {
  const m = readModule(input, { decodeBodies: true });
  const removed = removeDeadTypes(m);
  const out = writeModule(m);
  const back = readModule(out, { decodeBodies: true });
  validateModule(back);
  return { removed, out, m: back };
}

function run(bytes: Uint8Array, name: string, ...args: number[]): unknown {
  const inst = new WebAssembly.Instance(new WebAssembly.Module(bytes as Uint8Array<ArrayBuffer>), {});
  return (inst.exports[name] as (...a: number[]) => unknown)(...args);
}

test("unused function types go; call_indirect, block types and imports follow the renumbering", async () => {
  const input = await parse(`(module
    (type $unused1 (func (param f64 f64)))
    (type $bin (func (param i32 i32) (result i32)))
    (type $unused2 (func (result f32)))
    (type $pair (func (param i32) (result i32 i32)))
    (import "env" "f" (func $imp (type $bin)))
    (table 2 funcref)
    (elem (i32.const 0) func $add $sub)
    (func $add (type $bin) (i32.add (local.get 0) (local.get 1)))
    (func $sub (type $bin) (i32.sub (local.get 0) (local.get 1)))
    (func (export "run") (param i32 i32) (result i32)
      local.get 0
      local.get 0
      block (type $pair) (param i32) (result i32 i32)
        i32.const 7
      end
      local.get 1
      call_indirect (type $bin)
      i32.add))`);
  const { removed, out, m } = cleaned(input);
  assert.equal(removed, 2);
  assert.equal(m.types.length, 2);
  assert.ok(out.length < input.length);
  const text = await print(out);
  // the printer names each index from the (renumbered) type names
  assert.match(text, /\(type \$bin \(;0;\) \(func \(param i32 i32\) \(result i32\)\)\)/);
  assert.match(text, /\(type \$pair \(;1;\) \(func \(param i32\) \(result i32 i32\)\)\)/);
  assert.match(text, /call_indirect \(type \$bin\)/);
  assert.match(text, /block \(type \$pair\)/);
  const imports = { env: { f: (a: number, b: number) => a * b } };
  for (const [a, slot] of [[10, 0], [10, 1], [-3, 1]] as const) {
    const ia = new WebAssembly.Instance(new WebAssembly.Module(input as Uint8Array<ArrayBuffer>), imports);
    const ib = new WebAssembly.Instance(new WebAssembly.Module(out as Uint8Array<ArrayBuffer>), imports);
    const f = (i: WebAssembly.Instance) => (i.exports.run as (a: number, b: number) => number)(a, slot);
    assert.equal(f(ib), f(ia));
  }
});

test("nothing unused: the module is left as it is", async () => {
  const input = await parse(`(module (func (export "f") (result i32) i32.const 1))`);
  const { removed, out } = cleaned(input);
  assert.equal(removed, 0);
  assert.deepEqual(out, input);
});

test("GC types: whole unused recursion groups go, a group with one used member stays whole, fields and supertypes keep types alive", async () => {
  const input = await parse(`(module
    (rec (type $dead1 (struct (field i32))) (type $dead2 (struct (field (ref null $dead1)))))
    (rec (type $node (struct (field i32) (field (ref null $list)))) (type $list (array (ref null $node))) (type $side (struct)))
    (type $base (sub (struct (field i64))))
    (type $derived (sub $base (struct (field i64) (field f32))))
    (type $held (struct (field f64)))
    (type $holder (struct (field (ref null $held))))
    (type $lonely (func (param f32)))
    (global $g (mut (ref null $holder)) (ref.null $holder))
    (func (export "make") (param i32) (result i32)
      (local $n (ref null $node))
      (local.set $n (struct.new $node (local.get 0) (ref.null $list)))
      (drop (ref.cast (ref null $base) (struct.new $derived (i64.const 1) (f32.const 2))))
      (struct.get $node 0 (local.get $n))))`);
  const { removed, m, out } = cleaned(input);
  assert.equal(removed, 3, "$dead1, $dead2 and $lonely");
  const text = await print(out);
  assert.doesNotMatch(text, /\(func \(param f32\)\)/, "$lonely is gone");
  assert.equal(m.recGroups.filter((g) => g.explicit && g.count === 3).length, 1, "the group of $node, $list and $side stays whole");
  const kinds = m.types.map((t) => t.composite.kind);
  // node list side base derived held holder, then the export's function type
  assert.deepEqual(kinds, ["struct", "array", "struct", "struct", "struct", "struct", "struct", "func"]);
  assert.deepEqual(m.types[4]!.supertypes, [3], "derived's supertype follows");
  // fields, supertypes, locals, globals and immediates name the right types (the printer names indices from the renumbered type names)
  assert.match(text, /\(type \$node \(;0;\) \(struct \(field i32\) \(field \(ref null \$list\)\)\)\)/);
  assert.match(text, /\(type \$derived \(;4;\) \(sub \$base /);
  assert.match(text, /\(type \$holder \(;6;\) \(struct \(field \(ref null \$held\)\)\)\)/);
  assert.match(text, /\(global \$g \(;0;\) \(mut \(ref null \$holder\)\) ref.null \$holder\)/);
  assert.match(text, /\(local \$n \(ref null \$node\)\)/);
  assert.match(text, /ref.null \$list\s+struct.new \$node/);
  assert.match(text, /struct.new \$derived\s+ref.cast \(ref null \$base\)/);
});

test("type names in the name section follow their types", async () => {
  const input = await parse(`(module
    (type $gone (func (param f64)))
    (type $kept (func (result i32)))
    (func $f (type $kept) i32.const 3)
    (export "f" (func $f)))`);
  const { out } = cleaned(input);
  assert.match(await print(input), /\(type \$kept \(;1;\)/);
  assert.match(await print(out), /\(type \$kept \(;0;\)/);
  assert.doesNotMatch(await print(out), /\$gone/);
  assert.equal(run(out, "f"), 3);
});

test("the cleanup pass reports removed types", async () => {
  const input = await parse(`(module (type (func (param f64))) (func (export "f") (result i32) i32.const 1))`);
  const { binary, report } = optimize(input, { passes: ["cleanup"] });
  assert.equal(report.passes[0]!.stats?.typesRemoved, 1);
  assert.ok(binary.length < input.length);
  assert.equal(run(binary, "f"), 1);
});
